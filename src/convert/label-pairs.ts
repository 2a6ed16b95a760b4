// The label pieces of a text-format line, with nothing to import: converters build series keys from them
// and the writers (src/exposition/) write lines with them.

const NEEDS_ESCAPE = /[\\"\n]/;

// ES2024, in Node 20 and later; the lib this project compiles against is ES2023.
type WellFormed = string & { isWellFormed(): boolean; toWellFormed(): string };

/** The string with each lone surrogate made U+FFFD, as UTF-8 writes it: what a line carries. */
export const wellFormed = (text: string): string =>
  (text as WellFormed).isWellFormed() ? text : (text as WellFormed).toWellFormed();

/**
 * The value as written in a line, and so as keyed: a lone surrogate (JSON's "\ud800") is written in
 * UTF-8 as U+FFFD, so it is made U+FFFD here, or "\ud800" and "\ufffd" would be two keys for one line.
 */
export function escapeLabelValue(raw: string): string {
  const value = wellFormed(raw);
  if (!NEEDS_ESCAPE.test(value)) return value;
  return value.replace(/[\\"\n]/g, (c) => (c === "\n" ? "\\n" : `\\${c}`));
}

/** `name="value",…` in the labels' order, values escaped: also the source prefix `source="…",…`. */
export function labelPairs(labels: Record<string, string>): string {
  // Joined, not concatenated: `+=` builds a tree of string pieces that V8 keeps as it is, and a 500k-
  // target answer keeps one per series (~400 bytes each instead of the ~100 of a flat string).
  const pairs: string[] = [];
  for (const key in labels) pairs.push(`${key}="${escapeLabelValue(labels[key] as string)}"`);
  return pairs.join(",");
}
