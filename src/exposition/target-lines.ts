import type { TargetSeries } from "../convert/series-columns.js";
import { PER_TARGET_FAMILIES, type TargetsSummary } from "../convert/targets.js";
import type { FamilyBlocks } from "../lib/lines-arena.js";
import { type RenderedFamilies, renderSampleSet } from "./text-format.js";
import { MAX_VALUE_BYTES, writeValue } from "./value-bytes.js";

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
 * A family's lines written piece by piece (whole lines, at most `pieceBytes` each unless one line is
 * longer), each handed over as it is written and written over by the next (used before asking for it);
 * undefined to have them written whole instead. `bytes`: the family's plain bytes, or fewer (a bound
 * from below where the lines are not written yet).
 */
export type KeepPieces<L> = (pieces: Iterable<Uint8Array>, name: string, bytes: number) => L | undefined;

/**
 * As renderTargets, each family handed to `keep` as soon as it is written, and what it keeps in its
 * place: a family packed there leaves the rest of the rendering no more plain lines than one family's.
 * With `keepPieces`, a family may be handed over piece by piece: then not even one family's plain
 * lines are held at once (63 MB at 500k targets), only a piece's.
 */
export function renderTargetsKept<L>(
  summary: TargetsSummary,
  prefix: string,
  keep: (lines: Uint8Array, name: string) => L,
  kept?: KeptLines<L>,
  keepPieces?: KeepPieces<L>,
  pieceBytes = 2 ** 20,
): { families: [name: string, lines: L][]; series: number } {
  const { series, order } = summary;
  // A family comes where its first sample would have been added (convertTargets' order).
  const first = PER_TARGET_FAMILIES.map((_, v) => order.findIndex((i) => !Number.isNaN(series.value(v, i))));
  const written = PER_TARGET_FAMILIES.map((_, v) => v)
    .filter((v) => (first[v] as number) >= 0)
    .sort((a, b) => (first[a] as number) - (first[b] as number) || a - b);
  const families: [string, L][] = [];
  let samples = 0;
  const arena = keepPieces ? series.linesArena : undefined;
  // Where the series' labels are, in order: gathered once, when the first family is written (none is
  // when every family is the same as last poll's).
  let blocks: { offsets: Int32Array; lengths: Int32Array } | undefined;
  for (const v of written) {
    const name = PER_TARGET_FAMILIES[v] as string;
    const again = summary.sameAsLast?.(v) ? kept?.(name, v) : undefined;
    if (again !== undefined) {
      samples += samplesOf(series, order, v);
      families.push([name, again]);
      continue;
    }
    const start = familyStartText(name, prefix);
    if (arena && keepPieces) {
      // Written by the line writer in WebAssembly from the blocks in its memory, as the JavaScript writer
      // below would write them (test/exposition/family-lines.test.ts).
      blocks ??= seriesBlocks(series, order);
      const family = familyBlocks(blocks, series, order, v, familyStart(name, prefix));
      const inPieces = keepPieces(arena.pieces(family, pieceBytes, writeValue), name, family.atLeast);
      if (inPieces !== undefined) {
        samples += family.samples;
        families.push([name, inPieces]);
        continue;
      }
    }
    const family = new FamilyWriter(series, order, v, start);
    samples += family.samples;
    const inPieces = keepPieces?.(family.pieces(pieceBytes), name, family.bytes);
    families.push([name, inPieces !== undefined ? inPieces : keep(family.whole(), name)]);
  }
  for (const [name, lines] of renderSampleSet(summary.pools, prefix)) families.push([name, keep(lines, name)]);
  return { families, series: samples + summary.pools.size };
}

/** What each line of a per-target family starts with: its name, `{`, and the source's labels. */
const familyStartText = (name: string, prefix: string) => `${name}{${prefix}${prefix ? "," : ""}`;
export const familyStart = (name: string, prefix: string): Buffer => Buffer.from(familyStartText(name, prefix), "utf8");

/** Where the series' rendered labels are in the line writer's memory, in the order they are written. */
function seriesBlocks(series: TargetSeries, order: Uint32Array): { offsets: Int32Array; lengths: Int32Array } {
  const offsets = new Int32Array(order.length);
  const lengths = new Int32Array(order.length);
  const startOf = series.pairsStartOf?.bind(series) ?? (() => 0);
  for (let k = 0; k < order.length; k++) {
    const s = order[k] as number;
    offsets[k] = startOf(s);
    lengths[k] = series.pairsLength(s);
  }
  return { offsets, lengths };
}

/** Family v's blocks and values for the line writer, its samples, and the least its lines take. */
function familyBlocks(
  blocks: { offsets: Int32Array; lengths: Int32Array },
  series: TargetSeries,
  order: Uint32Array,
  v: number,
  start: Uint8Array,
): FamilyBlocks & { samples: number; atLeast: number } {
  const values = new Float64Array(order.length);
  let samples = 0;
  let atLeast = 0;
  for (let k = 0; k < order.length; k++) {
    const value = series.value(v, order[k] as number);
    values[k] = value;
    if (Number.isNaN(value)) continue;
    samples++;
    atLeast += start.length + (blocks.lengths[k] as number) + 4; // "} ", a value's one byte at least, newline
  }
  return { start, ...blocks, values, samples, atLeast };
}

function samplesOf(series: TargetSeries, order: Uint32Array, v: number): number {
  let n = 0;
  for (let k = 0; k < order.length; k++) if (!Number.isNaN(series.value(v, order[k] as number))) n++;
  return n;
}

/**
 * One family's lines, `start` + the series' pairs + `} value`: values written once as bytes (value-bytes.ts),
 * kept only while this family is written (not five families' worth at once), then written whole into a
 * buffer of the exact size, or in pieces.
 */
class FamilyWriter {
  private readonly startBytes: number;
  private readonly ascii: boolean;
  /** The values' text one after another; line k's is [valueStart[k], valueStart[k + 1]), empty for no value. */
  private valueText: Buffer;
  private readonly valueStart: Int32Array;
  /** Plain bytes of the whole family, and its samples. */
  readonly bytes: number;
  readonly samples: number;

  constructor(
    private readonly series: TargetSeries,
    private readonly order: Uint32Array,
    v: number,
    private readonly start: string,
  ) {
    this.startBytes = Buffer.byteLength(start);
    this.ascii = this.startBytes === start.length;
    this.valueStart = new Int32Array(order.length + 1);
    // Room for a typical value (a timestamp with milliseconds takes 14 bytes), grown when short.
    this.valueText = Buffer.allocUnsafe(order.length * 16 + MAX_VALUE_BYTES);
    let at = 0;
    let bytes = 0;
    let samples = 0;
    for (let k = 0; k < order.length; k++) {
      const s = order[k] as number;
      const value = series.value(v, s);
      if (!Number.isNaN(value)) {
        if (at + MAX_VALUE_BYTES > this.valueText.length) this.grow(at);
        const end = writeValue(this.valueText, at, value);
        bytes += this.startBytes + series.pairsLength(s) + (end - at) + 3; // "} " and the newline
        at = end;
        samples++;
      }
      this.valueStart[k + 1] = at;
    }
    this.bytes = bytes;
    this.samples = samples;
  }

  private grow(used: number): void {
    const grown = Buffer.allocUnsafe(this.valueText.length * 2);
    this.valueText.copy(grown, 0, 0, used);
    this.valueText = grown;
  }

  whole(): Buffer {
    const out = Buffer.allocUnsafe(this.bytes) as Writable;
    let offset = 0;
    for (let k = 0; k < this.order.length; k++) offset = this.writeLine(out, offset, k);
    return out;
  }

  /**
   * The lines in pieces of whole lines, each written over the one before: a piece is the consumer's
   * only until it asks for the next. One buffer for all of them, as fresh memory for each piece cost
   * more in page faults (tens of MB per poll) than writing the lines.
   */
  *pieces(pieceBytes: number): Generator<Uint8Array> {
    const shared = Buffer.allocUnsafe(Math.min(this.bytes, pieceBytes)) as Writable;
    let out = shared;
    let offset = 0;
    for (let k = 0; k < this.order.length; k++) {
      const valueBytes = (this.valueStart[k + 1] as number) - (this.valueStart[k] as number);
      if (valueBytes === 0) continue;
      const line = this.startBytes + this.series.pairsLength(this.order[k] as number) + valueBytes + 3;
      if (offset + line > out.length) {
        if (offset > 0) yield out.subarray(0, offset);
        // A line longer than a piece is a piece of its own, in memory of its own: the pieces after it
        // go back to the shared buffer and its size.
        out = line > shared.length ? (Buffer.allocUnsafe(line) as Writable) : shared;
        offset = 0;
      }
      offset = this.writeLine(out, offset, k);
    }
    if (offset > 0) yield out.subarray(0, offset);
  }

  /** Writes line k (if its series has a value) at `offset`; where the next goes. */
  private writeLine(out: Writable, offset: number, k: number): number {
    const from = this.valueStart[k] as number;
    const to = this.valueStart[k + 1] as number;
    if (from === to) return offset;
    let at = offset;
    at += this.ascii ? out.latin1Write(this.start, at) : out.utf8Write(this.start, at);
    at += this.series.writePairs(out, at, this.order[k] as number);
    out[at++] = 0x7d; // }
    out[at++] = 0x20; // space
    const text = this.valueText;
    for (let i = from; i < to; i++) out[at++] = text[i] as number;
    out[at++] = 0x0a; // newline
    return at;
  }
}
