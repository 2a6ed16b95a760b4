// The little of Markdown the link check needs: inline links and images outside code, and the anchors
// GitHub gives headings. Pure functions over the page's text.

export interface Link {
  target: string;
  line: number;
}

const FENCE = /^\s*(```|~~~)/;

/** The page's lines with fenced code blocks blanked (kept as empty lines, so line numbers hold). */
function proseLines(text: string): string[] {
  let fence: string | undefined;
  return text.split("\n").map((line) => {
    const open = FENCE.exec(line)?.[1];
    if (fence !== undefined) {
      if (open === fence) fence = undefined;
      return "";
    }
    if (open !== undefined) {
      fence = open;
      return "";
    }
    return line;
  });
}

// Inline code spans (`x`, ``x``) hold no links.
const withoutCode = (line: string) => line.replace(/(`+)[\s\S]*?\1/g, "");

const INLINE_LINK = /!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g;

/** Every `[text](target)` and `![alt](target)` outside code, with its line number (from 1). */
export function markdownLinks(text: string): Link[] {
  return proseLines(text).flatMap((line, i) =>
    [...withoutCode(line).matchAll(INLINE_LINK)].map((m) => ({ target: m[1] as string, line: i + 1 })),
  );
}

/**
 * GitHub's anchor for a heading (github-slugger): the text as rendered, lower case, punctuation and
 * symbols removed, each space a hyphen.
 */
export function slug(heading: string): string {
  const rendered = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1") // a link shows its text
    .replace(/`/g, "")
    .replace(/<[^>]+>/g, "");
  return rendered
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
    .replace(/ /g, "-");
}

/** The anchors a page offers: one per ATX heading (repeats get -1, -2, ...) and any HTML id. */
export function headingAnchors(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of proseLines(text)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading !== undefined) {
      const base = slug(heading);
      const count = seen.get(base) ?? 0;
      seen.set(base, count + 1);
      anchors.add(count === 0 ? base : `${base}-${count}`);
    }
    for (const m of line.matchAll(/\b(?:id|name)="([^"]+)"/g)) anchors.add(m[1] as string);
  }
  return anchors;
}
