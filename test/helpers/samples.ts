import type { Labels, SampleSet } from "../../src/convert/samples.js";

/** The value of the one sample of `name` whose labels include `match`; fails on zero or several. */
export function sampleValue(set: SampleSet, name: string, match: Labels = {}): number {
  const found = set.get(name).filter((s) => Object.entries(match).every(([k, v]) => s.labels[k] === v));
  if (found.length !== 1) throw new Error(`${name} ${JSON.stringify(match)}: expected 1 sample, found ${found.length}`);
  return (found[0] as { value: number }).value;
}
