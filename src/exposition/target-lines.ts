import { PER_TARGET_FAMILIES, type TargetsSummary } from "../convert/targets.js";
import { formatValue } from "./label-pairs.js";
import { type RenderedFamilies, renderSampleSet } from "./text-format.js";

// The per-target families of a large answer (five lines per target, 500k at 100k targets) written
// straight from the summarised series: no sample object per line, and each target's labels written
// from the pairs the summary keyed it by. The bytes are those of renderSampleSet over
// convertTargets (test/upstream/targets-scanner.test.ts compares them on recorded and random answers).

/** Node's own writers behind Buffer#write, without its per-call argument handling (a million calls). */
type Writable = Buffer & {
  latin1Write(text: string, offset: number): number;
  utf8Write(text: string, offset: number): number;
};

interface FamilyLines {
  /** `name{prefix,`: what every line of the family starts with. */
  start: string;
  startBytes: number;
  /** Formatted value per series; undefined where the series has none. */
  values: (string | undefined)[];
  bytes: number;
}

/** The rendered families of a targets summary, and how many samples they hold. */
export function renderTargets(summary: TargetsSummary, prefix: string): { families: RenderedFamilies; series: number } {
  const { series } = summary;
  const pairsBytes = new Int32Array(series.length);
  // Each line starts `name{prefix,` (one write), then the series' own pairs (labelBlock's bytes).
  const lines: FamilyLines[] = PER_TARGET_FAMILIES.map((f) => {
    const start = `${f.name}{${prefix}${prefix ? "," : ""}`;
    return { start, startBytes: Buffer.byteLength(start), values: [], bytes: 0 };
  });
  // A family comes where its first sample would have been added (convertTargets' order).
  const order: number[] = [];
  let samples = 0;
  for (let i = 0; i < series.length; i++) {
    const s = series[i] as (typeof series)[number];
    const bytes = Buffer.byteLength(s.pairs);
    pairsBytes[i] = bytes;
    for (let f = 0; f < PER_TARGET_FAMILIES.length; f++) {
      const value = (PER_TARGET_FAMILIES[f] as (typeof PER_TARGET_FAMILIES)[number]).value(s);
      const family = lines[f] as FamilyLines;
      if (value === undefined) {
        family.values.push(undefined);
        continue;
      }
      if (family.bytes === 0) order.push(f);
      const text = formatValue(value);
      family.values.push(text);
      family.bytes += family.startBytes + bytes + text.length + 3; // "} " and the newline
      samples++;
    }
  }
  const families: RenderedFamilies = [];
  for (const f of order) {
    const family = lines[f] as FamilyLines;
    const out = Buffer.allocUnsafe(family.bytes) as Writable;
    const ascii = family.startBytes === family.start.length;
    let offset = 0;
    for (let i = 0; i < series.length; i++) {
      const value = family.values[i];
      if (value === undefined) continue;
      offset += ascii ? out.latin1Write(family.start, offset) : out.utf8Write(family.start, offset);
      const pairs = (series[i] as (typeof series)[number]).pairs;
      offset += pairsBytes[i] === pairs.length ? out.latin1Write(pairs, offset) : out.utf8Write(pairs, offset);
      out[offset++] = 0x7d; // }
      out[offset++] = 0x20; // space
      for (let k = 0; k < value.length; k++) out[offset++] = value.charCodeAt(k); // numbers are ASCII
      out[offset++] = 0x0a; // newline
    }
    families.push([PER_TARGET_FAMILIES[f]?.name as string, out]);
  }
  const pools = renderSampleSet(summary.pools, prefix);
  return { families: [...families, ...pools], series: samples + summary.pools.size };
}
