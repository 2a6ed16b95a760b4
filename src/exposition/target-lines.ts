import type { TargetSeries } from "../convert/series-columns.js";
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

/** A family's lines as kept the last time, for a family the summary says is the same bytes again. */
export type KeptLines<L> = (name: string, v: number) => L | undefined;

/** The rendered families of a targets summary, and how many samples they hold. */
export function renderTargets(summary: TargetsSummary, prefix: string): { families: RenderedFamilies; series: number } {
  return renderTargetsKept(summary, prefix, (lines) => lines);
}

/**
 * As renderTargets, each family handed to `keep` as soon as it is written, and what it keeps in its
 * place: a family packed there leaves the rest of the rendering no more plain lines than one family's.
 */
export function renderTargetsKept<L>(
  summary: TargetsSummary,
  prefix: string,
  keep: (lines: Uint8Array, name: string) => L,
  kept?: KeptLines<L>,
): { families: [name: string, lines: L][]; series: number } {
  const { series, order } = summary;
  // A family comes where its first sample would have been added (convertTargets' order).
  const first = PER_TARGET_FAMILIES.map((_, v) => order.findIndex((i) => !Number.isNaN(series.value(v, i))));
  const written = PER_TARGET_FAMILIES.map((_, v) => v)
    .filter((v) => (first[v] as number) >= 0)
    .sort((a, b) => (first[a] as number) - (first[b] as number) || a - b);
  const families: [string, L][] = [];
  let samples = 0;
  for (const v of written) {
    const name = PER_TARGET_FAMILIES[v] as string;
    const again = summary.sameAsLast?.(v) ? kept?.(name, v) : undefined;
    if (again !== undefined) {
      samples += samplesOf(series, order, v);
      families.push([name, again]);
      continue;
    }
    const lines = familyLines(series, order, v, `${name}{${prefix}${prefix ? "," : ""}`);
    samples += lines.samples;
    families.push([name, keep(lines.bytes, name)]);
  }
  for (const [name, lines] of renderSampleSet(summary.pools, prefix)) families.push([name, keep(lines, name)]);
  return { families, series: samples + summary.pools.size };
}

function samplesOf(series: TargetSeries, order: Uint32Array, v: number): number {
  let n = 0;
  for (let k = 0; k < order.length; k++) if (!Number.isNaN(series.value(v, order[k] as number))) n++;
  return n;
}

/**
 * One family's lines, `start` + the series' pairs + `} value`: values formatted once, kept only while
 * this family is written (not five families' worth at once), then written into a buffer of the exact size.
 */
function familyLines(
  series: TargetSeries,
  order: Uint32Array,
  v: number,
  start: string,
): { bytes: Buffer; samples: number } {
  const startBytes = Buffer.byteLength(start);
  const ascii = startBytes === start.length;
  const values = new Array<string | undefined>(order.length);
  let bytes = 0;
  let samples = 0;
  for (let k = 0; k < order.length; k++) {
    const i = order[k] as number;
    const value = series.value(v, i);
    if (Number.isNaN(value)) continue;
    const text = formatValue(value);
    values[k] = text;
    bytes += startBytes + series.pairsLength(i) + text.length + 3; // "} " and the newline
    samples++;
  }
  const out = Buffer.allocUnsafe(bytes) as Writable;
  let offset = 0;
  for (let k = 0; k < order.length; k++) {
    const value = values[k];
    if (value === undefined) continue;
    offset += ascii ? out.latin1Write(start, offset) : out.utf8Write(start, offset);
    offset += series.writePairs(out, offset, order[k] as number);
    out[offset++] = 0x7d; // }
    out[offset++] = 0x20; // space
    for (let c = 0; c < value.length; c++) out[offset++] = value.charCodeAt(c); // numbers are ASCII
    out[offset++] = 0x0a; // newline
  }
  return { bytes: out, samples };
}
