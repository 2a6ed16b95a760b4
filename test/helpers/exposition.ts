/** One parsed sample line of the text exposition format. */
export interface ParsedSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)",?/g;
const unescapeLabel = (v: string) => v.replace(/\\(.)/g, (_m, c: string) => (c === "n" ? "\n" : c));

/** Parses the samples of a text exposition (test helper; the format's own escaping rules). */
export function parseExposition(text: string): ParsedSample[] {
  const out: ParsedSample[] = [];
  for (const line of text.split("\n")) {
    if (!line || line.startsWith("#")) continue;
    const m = LINE.exec(line);
    if (!m) throw new Error(`unparseable exposition line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? "").matchAll(LABEL)) labels[l[1] as string] = unescapeLabel(l[2] as string);
    out.push({ name: m[1] as string, labels, value: Number(m[3]) });
  }
  return out;
}

/** Samples named `name` whose labels include `match`. */
export function samplesOf(text: string, name: string, match: Record<string, string> = {}): ParsedSample[] {
  return parseExposition(text).filter(
    (s) => s.name === name && Object.entries(match).every(([k, v]) => s.labels[k] === v),
  );
}

/** The single value of `name` matching `match`; throws on zero or several. */
export function valueIn(text: string, name: string, match: Record<string, string> = {}): number {
  const found = samplesOf(text, name, match);
  if (found.length !== 1) throw new Error(`${name} ${JSON.stringify(match)}: expected 1 sample, found ${found.length}`);
  return (found[0] as ParsedSample).value;
}
