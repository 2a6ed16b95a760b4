// A short, one-line, printable excerpt of text an upstream sent (an error page, a parser's complaint),
// for the operator's log and the status page of configured sources. Never for a /probe client.
//
// One forward pass, no regex: the index only moves on and each character is copied at most once, so
// the work is linear in the input whatever it holds (a run of `<`, of spaces, of quotes).

/** Characters kept, at most; a longer text ends with `…`. */
export const MAX_EXCERPT = 200;

const LT = 0x3c;
const GT = 0x3e;

/** Whitespace, control and invisible formatting characters: each run becomes one space. */
function isBlank(c: number): boolean {
  return (
    c <= 0x20 ||
    (c >= 0x7f && c <= 0xa0) ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200f) || // spaces, zero-width characters, directional marks
    (c >= 0x2028 && c <= 0x202f) || // line and paragraph separators, directional embeddings
    (c >= 0x205f && c <= 0x206f) ||
    c === 0x3000 ||
    c === 0xfeff ||
    (c >= 0xfff9 && c <= 0xfffb)
  );
}

const isHighSurrogate = (c: number) => c >= 0xd800 && c <= 0xdbff;

/** Builds the excerpt; `full` once MAX_EXCERPT characters are kept and one more arrives. */
class Excerpt {
  private out = "";
  private space = false;
  full = false;

  add(text: string, from: number, to: number): void {
    for (let i = from; i < to && !this.full; i++) {
      const c = text.charCodeAt(i);
      if (isBlank(c)) {
        this.space = this.out.length > 0;
        continue;
      }
      const needed = this.space ? 2 : 1;
      if (this.out.length + needed > MAX_EXCERPT) {
        this.full = true;
        return;
      }
      if (this.space) this.out += " ";
      this.space = false;
      this.out += text[i];
    }
  }

  blank(): void {
    this.space = this.out.length > 0;
  }

  text(): string {
    if (!this.full) return this.out;
    // A cut between the halves of a surrogate pair would leave half a character.
    const end = isHighSurrogate(this.out.charCodeAt(this.out.length - 1)) ? this.out.length - 1 : this.out.length;
    return `${this.out.slice(0, end)}…`;
  }
}

/**
 * The text on one line, without control characters, at most MAX_EXCERPT characters and `…`.
 * `tags`: markup `<…>` (no `<` inside) is dropped, as in an HTML error page.
 */
export function excerpt(text: string, { tags = false }: { tags?: boolean } = {}): string {
  const e = new Excerpt();
  // Where an open `<` waits for its `>`: meeting another `<` first (or the end) makes it plain text.
  let open = -1;
  for (let i = 0; i < text.length && !e.full; i++) {
    const c = text.charCodeAt(i);
    if (!tags) {
      e.add(text, i, i + 1);
    } else if (c === LT) {
      if (open >= 0) e.add(text, open, i);
      open = i;
    } else if (c === GT && open >= 0) {
      open = -1;
      e.blank();
    } else if (open < 0) {
      e.add(text, i, i + 1);
    }
  }
  if (open >= 0) e.add(text, open, text.length);
  return e.text();
}
