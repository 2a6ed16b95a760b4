// The pieces of a text-format line, with nothing to import: converters build series keys from them and
// the writers write lines with them.

const NEEDS_ESCAPE = /[\\"\n]/;

export function escapeLabelValue(value: string): string {
  if (!NEEDS_ESCAPE.test(value)) return value;
  return value.replace(/[\\"\n]/g, (c) => (c === "\n" ? "\\n" : `\\${c}`));
}

export function formatValue(value: number): string {
  if (Number.isFinite(value)) return String(value);
  return value > 0 ? "+Inf" : value < 0 ? "-Inf" : "NaN";
}

/** `name="value",…` in the labels' order, values escaped: also the source prefix `source="…",…`. */
export function labelPairs(labels: Record<string, string>): string {
  // Joined, not concatenated: `+=` builds a tree of string pieces that V8 keeps as it is, and a 500k-
  // target answer keeps one per series (~400 bytes each instead of the ~100 of a flat string).
  const pairs: string[] = [];
  for (const key in labels) pairs.push(`${key}="${escapeLabelValue(labels[key] as string)}"`);
  return pairs.join(",");
}
