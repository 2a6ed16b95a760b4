import { PER_TARGET_FAMILIES, type TargetsSummary } from "../convert/targets.js";
import { formatValue, labelBlock, type RenderedFamilies, renderSampleSet } from "./text-format.js";

// The per-target families of a large answer (five lines per target, 500k at 100k targets) written
// straight from the summarised series: no sample object per line, each target's label block built
// once for its five lines. The bytes are those of renderSampleSet over
// convertTargets (test/upstream/targets-scanner.test.ts compares them on recorded and random answers).

/** Node's own writers behind Buffer#write, without its per-call argument handling (a million calls). */
type Writable = Buffer & {
  latin1Write(text: string, offset: number): number;
  utf8Write(text: string, offset: number): number;
};

interface FamilyLines {
  /** Metric names are ASCII. */
  name: string;
  /** Formatted value per series; undefined where the series has none. */
  values: (string | undefined)[];
  bytes: number;
}

/** The rendered families of a targets summary, and how many samples they hold. */
export function renderTargets(summary: TargetsSummary, prefix: string): { families: RenderedFamilies; series: number } {
  const { series } = summary;
  // Arrays grow by push: `new Array(n)` of 100k or more elements is a slow dictionary in V8.
  const blocks: string[] = [];
  const blockBytes = new Int32Array(series.length);
  const lines: FamilyLines[] = PER_TARGET_FAMILIES.map((f) => ({
    name: f.name,
    values: [],
    bytes: 0,
  }));
  // A family comes where its first sample would have been added (convertTargets' order).
  const order: number[] = [];
  let samples = 0;
  for (let i = 0; i < series.length; i++) {
    const s = series[i] as (typeof series)[number];
    const block = labelBlock(prefix, s.labels);
    const bytes = Buffer.byteLength(block);
    blocks.push(block);
    blockBytes[i] = bytes;
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
      family.bytes += family.name.length + bytes + text.length + 2;
      samples++;
    }
  }
  const families: RenderedFamilies = [];
  for (const f of order) {
    const family = lines[f] as FamilyLines;
    const out = Buffer.allocUnsafe(family.bytes) as Writable;
    let offset = 0;
    for (let i = 0; i < series.length; i++) {
      const value = family.values[i];
      if (value === undefined) continue;
      offset += out.latin1Write(family.name, offset);
      const block = blocks[i] as string;
      const bytes = blockBytes[i] as number;
      offset += bytes === block.length ? out.latin1Write(block, offset) : out.utf8Write(block, offset);
      out[offset++] = 0x20; // space
      for (let k = 0; k < value.length; k++) out[offset++] = value.charCodeAt(k); // numbers are ASCII
      out[offset++] = 0x0a; // newline
    }
    families.push([family.name, out]);
  }
  const pools = renderSampleSet(summary.pools, prefix);
  return { families: [...families, ...pools], series: samples + summary.pools.size };
}
