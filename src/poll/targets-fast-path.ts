import { randomUUID } from "node:crypto";
import { AnswerWarnings } from "../convert/answer-warnings.js";
import { summarizeSamples } from "../convert/endpoint-summary.js";
import { PoolCounts, type PoolSummary, seriesAtLeast } from "../convert/pool-counts.js";
import { prometheusFacts } from "../convert/replica-facts.js";
import { SeriesColumns } from "../convert/series-columns.js";
import { TargetTable } from "../convert/target-table.js";
import { answerSamples, PER_TARGET_FAMILIES, publishesDropped, type TargetsSummary } from "../convert/targets.js";
import { type FamilyLines, isPacked, MEMBER_PLAIN_BYTES, PACK_MIN_BYTES } from "../exposition/pack.js";
import { familyStart, type KeepPieces, type KeptLines, renderTargetsKept } from "../exposition/target-lines.js";
import type { ActiveTarget } from "../upstream/payloads.js";
import { TargetsAnswerReader } from "../upstream/targets/answer-reader.js";
import { labelNamesRead } from "../upstream/targets/scanner.js";
import { TargetRead } from "../upstream/targets/target-read.js";
import type { ChunkDecoder, DecodeOptions, DecoderMemory, FastDecoded, PackedFastDecoded } from "./decode-types.js";
import { overSeriesLimit } from "./series-limit.js";
import { tooManyTargets, withinTargets } from "./targets-budget.js";

/** Targets added to the table a batch at a time: enough for their reads ahead to overlap. */
const HELD_TARGETS = 16;

// Names for lines known to be new: unique in the process (its threads and their restarts included).
const THREAD_NAME = randomUUID();
let named = 0;
const newLinesName = () => `${THREAD_NAME}/${++named}`;

/** No per-target series (per_target off): nothing to write. */
const NO_SERIES = new SeriesColumns(false);

/**
 * A targets answer from bytes to rendered lines as it streams: each target goes from the reader to the
 * summary as it is read, so the answer never exists whole, as bytes or as objects. The source's series
 * are kept between answers (convert/target-table.ts) in the decoder's memory when it has one. `finish`
 * gives undefined when the reader gave up (the reference path then decides).
 */
export class TargetsDecoder implements ChunkDecoder {
  private readonly pools = new PoolCounts();
  private readonly table: TargetTable | undefined;
  private readonly tableKey: string;
  // A grouped source's identities are computed per target, not per merged series: those targets are kept.
  private readonly kept: ActiveTarget[] | undefined;
  private readonly reader: TargetsAnswerReader;
  private targets = 0;
  /** Targets read and not yet added to the table (addHeld), with their pools' summaries. */
  private readonly held: TargetRead[] = [];
  private readonly heldPools: PoolSummary[] = [];
  private heldCount = 0;
  /** Pools met only among the dropped targets' (their counts are kept). */
  private droppedPools = 0;
  private tooMany = false;
  private overLimit = false;
  private readonly warnings = new AnswerWarnings();

  constructor(
    private readonly options: DecodeOptions,
    private readonly memory?: DecoderMemory,
  ) {
    const { perTarget, targetLabels } = options;
    this.tableKey = `${options.labelPrefix}\n${JSON.stringify(targetLabels)}`;
    if (perTarget) {
      const known = memory?.take(this.tableKey);
      this.table = known instanceof TargetTable ? known : new TargetTable(targetLabels);
      this.table.begin();
    }
    this.kept = options.replicaFacts ? [] : undefined;
    // A pool's summary (counts by health and reason, then its samples) weighs as much as many targets.
    const overBudget = () => {
      if (withinTargets(this.targets, this.pools.size + this.droppedPools, options.maxTargets)) return;
      this.tooMany = true;
      throw new Error("too many targets"); // stops the reader: the rest is not read
    };
    this.reader = new TargetsAnswerReader(labelNamesRead(targetLabels), (target) => {
      this.targets++;
      // Near series_limit, the held targets are added first and this one at once: the refusal then falls
      // on the target it fell on without holding, before the budget's check of the next one, with the
      // same counts, and the rest is not read.
      const atOnce = !this.table || this.nearSeriesLimit();
      if (atOnce) this.addHeld();
      overBudget();
      const pool = this.pools.add(target);
      if (atOnce) {
        this.added(target, pool, this.table?.add(target) ?? false);
        return;
      }
      // Held (a copy) until a batch is full or the reader writes over the bytes: table.warm() reads
      // ahead for the batch what adding each target reads.
      const held = this.held[this.heldCount] ?? new TargetRead(target.labelNames);
      this.held[this.heldCount] = held;
      held.copyFrom(target);
      this.heldPools[this.heldCount++] = pool;
      if (this.heldCount === HELD_TARGETS) this.addHeld();
    });
    this.reader.onBytesLeft = () => this.addHeld();
    // The dropped targets are counted by pool, not kept: only their pools weigh (a dropped pool may have
    // no active target; one that has is counted twice, a bound and not an exact figure).
    this.reader.onDroppedPool = () => {
      this.droppedPools++;
      overBudget();
    };
    this.reader.onWarning = (text) => this.warnings.add(text);
  }

  /** The targets held, each added to the table in the order read. */
  private addHeld(): void {
    const table = this.table;
    const n = this.heldCount;
    this.heldCount = 0;
    if (!table || n === 0) return;
    table.warm(this.held, n);
    for (let i = 0; i < n; i++)
      this.added(this.held[i] as TargetRead, this.heldPools[i] as PoolSummary, table.add(this.held[i] as TargetRead));
  }

  private added(target: TargetRead, pool: PoolSummary, collided: boolean): void {
    if (collided) pool.collisions++;
    this.kept?.push(target.toActiveTarget());
    // Refused as soon as it must be: the rest of a hostile answer is neither read nor kept.
    if (overSeriesLimit(this.seriesAtLeast, this.options.seriesLimit)) {
      this.overLimit = true;
      throw new Error("over series_limit");
    }
  }

  /**
   * Whether adding the held targets and one more could pass series_limit (each adds at most one series
   * and one pool). Held targets never pass it, so holding them changes no refusal.
   */
  private nearSeriesLimit(): boolean {
    const { perTarget, flavor, seriesLimit } = this.options;
    if (!seriesLimit) return false;
    const tableSeries = (this.table?.size ?? 0) + this.heldCount + 1;
    return seriesAtLeast(tableSeries, this.pools.size + 1, perTarget, publishesDropped(flavor)) > seriesLimit;
  }

  private get seriesAtLeast(): number {
    const { perTarget, flavor } = this.options;
    return seriesAtLeast(this.table?.size ?? 0, this.pools.size, perTarget, publishesDropped(flavor));
  }

  refusal() {
    if (this.overLimit) return overSeriesLimit(this.seriesAtLeast, this.options.seriesLimit, true);
    if (!this.tooMany) return undefined;
    return {
      reason: "too_large" as const,
      message: tooManyTargets(this.options.maxTargets),
    };
  }

  /** Reads the next chunk; false once the reader has given up. */
  write(chunk: Uint8Array): boolean {
    return this.reader.write(chunk);
  }

  finish(): FastDecoded | undefined {
    return this.finishKept((lines) => lines);
  }

  finishPacked(
    pack: (lines: FamilyLines, family: string, newName?: string) => FamilyLines,
    packedAgain?: (family: string, hash: string) => FamilyLines | undefined,
    packPieces?: (pieces: Iterable<Uint8Array>, family: string, newName: string) => FamilyLines,
  ): PackedFastDecoded | undefined {
    const table = this.table;
    if (!table || !packedAgain) return this.finishKept(pack);
    // What each per-target family was packed as is noted, so that the same bytes next time are not
    // written again. A per-target family written anew is new bytes (the same ones are given again):
    // it is named, not hashed, and a large one is packed piece by piece as it is written.
    const perTarget = (family: string) => (PER_TARGET_FAMILIES as readonly string[]).indexOf(family);
    // Only the families this answer has are noted: one it lacks (no target has its value) is not the
    // table's any more, and its old lines must not be written again from this poll's values (lines-again.ts).
    const before = [...table.packedAs];
    table.packedAs.fill(undefined);
    const note = (v: number, packed: FamilyLines) => {
      const family = PER_TARGET_FAMILIES[v] as string;
      table.packedAs[v] = isPacked(packed)
        ? { hash: packed.hash, start: familyStart(family, this.options.labelPrefix) }
        : undefined;
      return packed;
    };
    const noted = (lines: FamilyLines, family: string) => {
      const v = perTarget(family);
      const packed = pack(lines, family, v >= 0 ? newLinesName() : undefined);
      return v >= 0 ? note(v, packed) : packed;
    };
    const inPieces = (pieces: Iterable<Uint8Array>, family: string, bytes: number) => {
      const v = perTarget(family);
      if (!packPieces || v < 0 || bytes < PACK_MIN_BYTES) return undefined;
      return note(v, packPieces(pieces, family, newLinesName()));
    };
    const again = (family: string, v: number) => {
      const hash = before[v]?.hash;
      const packed = hash === undefined ? undefined : packedAgain(family, hash);
      return packed && note(v, packed);
    };
    return this.finishKept(noted, again, inPieces);
  }

  private finishKept<L>(
    keep: (lines: Uint8Array, family: string) => L,
    kept?: KeptLines<L>,
    keepPieces?: KeepPieces<L>,
  ) {
    if (this.tooMany || this.overLimit) return undefined;
    const scanned = this.reader.end();
    if (scanned === undefined) return undefined;
    const table = this.table;
    const summary: TargetsSummary = {
      series: table ?? NO_SERIES,
      order: table ? table.finish() : new Uint32Array(0),
      pools: answerSamples(this.pools, scanned.data, this.warnings.count, this.options),
      sameAsLast: table && ((v) => table.sameAsLast(v)),
    };
    const { families, series } = renderTargetsKept(
      summary,
      this.options.labelPrefix,
      keep,
      kept,
      keepPieces,
      MEMBER_PLAIN_BYTES,
    );
    if (table && !table.sparse) this.memory?.keep(this.tableKey, table, table.bytes);
    // The pool counts are the reference path's samples of those families: the same summary.
    const counted = summarizeSamples(summary.pools, "targets");
    const warnings = this.warnings.distinct;
    const result = {
      families,
      series,
      ...(counted ? { summary: counted } : {}),
      ...(warnings.length ? { warnings } : {}),
    };
    if (this.kept === undefined) return result;
    const payload = { ...scanned, data: { ...scanned.data, activeTargets: this.kept } };
    return { ...result, facts: prometheusFacts(payload, this.options.targetLabels) };
  }
}

/** A whole targets answer through the streaming decoder, as one chunk. */
export function decodeTargetsFast(bytes: Buffer, options: DecodeOptions): FastDecoded | undefined {
  const decoder = new TargetsDecoder(options);
  decoder.write(bytes);
  return decoder.finish();
}
