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
  let out = "";
  for (const key in labels) out += `${out ? "," : ""}${key}="${escapeLabelValue(labels[key] as string)}"`;
  return out;
}
