import { prometheusFacts } from "../convert/replica-facts.js";
import { TargetSummariser } from "../convert/targets.js";
import type { FamilyLines } from "../exposition/pack.js";
import { renderTargetsKept } from "../exposition/target-lines.js";
import type { ActiveTarget } from "../upstream/payloads.js";
import { labelNamesRead, TargetsAnswerReader } from "../upstream/targets-scanner.js";
import type { ChunkDecoder, DecodeOptions, FastDecoded, PackedFastDecoded } from "./decode-types.js";
import { overSeriesLimit } from "./series-limit.js";

// A scrape pool's summary takes several KB of heap: 100k pools of one target each ran a 320 MiB thread
// out of memory. Counted as this many targets against the budget.
const POOL_WEIGHT = 32;

/**
 * A targets answer from bytes to rendered lines as it streams: each target goes from the reader to the
 * summary as it is read, so the answer never exists whole, as bytes or as objects. `finish` gives
 * undefined when the reader gave up (the reference path then decides).
 */
export class TargetsDecoder implements ChunkDecoder {
  private readonly summariser: TargetSummariser;
  // A grouped source's identities are computed per target, not per merged series: those targets are kept.
  private readonly kept: ActiveTarget[] | undefined;
  private readonly reader: TargetsAnswerReader;
  private targets = 0;
  /** Pools met only among the dropped targets' (their counts are kept). */
  private droppedPools = 0;
  private tooMany = false;
  private overLimit = false;

  constructor(private readonly options: DecodeOptions) {
    const summariser = new TargetSummariser({ perTarget: options.perTarget, extraLabels: options.targetLabels });
    const kept: ActiveTarget[] | undefined = options.replicaFacts ? [] : undefined;
    const maxTargets = options.maxTargets ?? Number.POSITIVE_INFINITY;
    this.summariser = summariser;
    this.kept = kept;
    // A pool's summary (counts by health and reason, then its samples) weighs as much as many targets.
    const overBudget = () => {
      if (this.targets + POOL_WEIGHT * (summariser.poolCount + this.droppedPools) <= maxTargets) return;
      this.tooMany = true;
      throw new Error("too many targets"); // stops the reader: the rest is not read
    };
    this.reader = new TargetsAnswerReader(labelNamesRead(options.targetLabels), (target) => {
      this.targets++;
      overBudget();
      summariser.add(target);
      kept?.push(target);
      // Refused as soon as it must be: the rest of a hostile answer is neither read nor kept.
      if (overSeriesLimit(summariser.seriesAtLeast, options.seriesLimit)) {
        this.overLimit = true;
        throw new Error("over series_limit");
      }
    });
    // The dropped targets are counted by pool, not kept: only their pools weigh (a dropped pool may have
    // no active target; one that has is counted twice, a bound and not an exact figure).
    this.reader.onDroppedPool = () => {
      this.droppedPools++;
      overBudget();
    };
  }

  refusal() {
    if (this.overLimit) return overSeriesLimit(this.summariser.seriesAtLeast, this.options.seriesLimit, true);
    if (!this.tooMany) return undefined;
    return {
      reason: "too_large" as const,
      message: `answer lists more than ${this.options.maxTargets} active targets (a scrape pool counting as ${POOL_WEIGHT}), the most a decoder keeps with its --decoder.memory-limit`,
    };
  }

  /** Reads the next chunk; false once the reader has given up. */
  write(chunk: Uint8Array): boolean {
    return this.reader.write(chunk);
  }

  finish(): FastDecoded | undefined {
    return this.finishKept((lines) => lines);
  }

  finishPacked(pack: (lines: FamilyLines, family: string) => FamilyLines): PackedFastDecoded | undefined {
    return this.finishKept(pack);
  }

  private finishKept<L>(keep: (lines: Uint8Array, family: string) => L) {
    if (this.tooMany || this.overLimit) return undefined;
    const scanned = this.reader.end();
    if (scanned === undefined) return undefined;
    const summary = this.summariser.finish(scanned.data);
    const { families, series } = renderTargetsKept(summary, this.options.labelPrefix, keep);
    if (this.kept === undefined) return { families, series };
    const payload = { ...scanned, data: { ...scanned.data, activeTargets: this.kept } };
    return { families, series, facts: prometheusFacts(payload, this.options.targetLabels) };
  }
}

/** A whole targets answer through the streaming decoder, as one chunk. */
export function decodeTargetsFast(bytes: Buffer, options: DecodeOptions): FastDecoded | undefined {
  const decoder = new TargetsDecoder(options);
  decoder.write(bytes);
  return decoder.finish();
}
