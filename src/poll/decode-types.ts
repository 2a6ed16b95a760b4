import type { Flavor } from "../config/flavors.js";
import type { Endpoint } from "../config/types.js";
import type { EndpointSummary } from "../convert/endpoint-summary.js";
import type { RequestTiming } from "../convert/prometheus-runtime.js";
import type { ReplicaFacts } from "../convert/replica-facts.js";
import type { TargetLabel } from "../convert/targets.js";
import type { Families, FamilyLines } from "../exposition/pack.js";
import type { RenderedFamilies } from "../exposition/text-format.js";
import type { FailureReason } from "../upstream/poll-error.js";

// The shapes that cross between the decode pipeline's parts (and to worker threads: plain data only).
// Types only, importing none of the parts, so every part can name them without an import circle.

export type { RenderedFamilies };

/** What converters need from a source's config (plain data: it crosses to worker threads). */
export interface ConvertOptions {
  /** The source is in a replica group: also keep what its members are compared by. */
  replicaFacts: boolean;
  perTarget: boolean;
  limit: number | undefined;
  targetLabels: readonly TargetLabel[];
  /** The most active targets a streamed answer may list: set by the decoder pool from its threads' heap. */
  maxTargets?: number;
  /** The most series the answer may give (series_limit); 0 or absent for no limit. */
  seriesLimit?: number;
  /** External label names left out of the config hash (replica_labels); absent: none. */
  replicaLabels?: readonly string[];
  /** Flag names left out of the flag hash besides the built-in per-replica ones (flags.ignore). */
  flagsIgnore?: readonly string[];
  /**
   * When the request that got this answer went out and when its answer had arrived, Unix ms by the
   * exporter's clock: a server time in the answer is compared with their midpoint (clock skew).
   */
  request?: RequestTiming;
  /**
   * The server behind the API, configured or detected from earlier answers; absent until known (then
   * answers are read as Prometheus's, with the rules that hold for every flavor).
   */
  flavor?: Flavor;
}

export type { RequestTiming } from "../convert/prometheus-runtime.js";

/** What a fast path gives: the rendered lines, their sample count, and replica facts if asked for. */
export interface FastDecoded {
  families: RenderedFamilies;
  series: number;
  facts?: ReplicaFacts;
  /** A few figures for the status page (convert/endpoint-summary.ts), as the reference path gives them. */
  summary?: EndpointSummary;
  /** As DecodeResult's. */
  warnings?: string[];
}

/** A fast path's result whose families were packed as they were written (exposition/pack.ts). */
export type PackedFastDecoded = Omit<FastDecoded, "families"> & { families: Families };

/**
 * Reads an answer chunk by chunk; `write` says false once it has given up (further chunks are ignored).
 * It keeps nothing of a chunk once it returns: the decoder thread frees the chunk's memory then.
 */
export interface ChunkDecoder {
  write(chunk: Uint8Array): boolean;
  /** The result, or undefined when the reader gave up or the answer was refused. */
  finish(): FastDecoded | undefined;
  /**
   * As finish, each family handed to `pack` as soon as it is written: a decoder thread keeps no more
   * than one family's plain lines at a time (500k targets: 63 MB, not 313); lines the decoder knows to
   * be new come with a name standing for their hash (pack-cache.ts). `packedAgain` gives the
   * members packed last time of a family known to be the same bytes (by their hash), if still kept;
   * `packPieces` packs a large family of new bytes given piece by piece, never whole.
   */
  finishPacked(
    pack: (lines: FamilyLines, family: string, newName?: string) => FamilyLines,
    packedAgain?: (family: string, hash: string) => FamilyLines | undefined,
    packPieces?: (pieces: Iterable<Uint8Array>, family: string, newName: string) => FamilyLines,
  ): PackedFastDecoded | undefined;
  /** Why the answer is refused outright (not left to the reference path), if it is. */
  refusal(): { reason: FailureReason; message: string } | undefined;
}

/**
 * What a decoder thread keeps for a source from one answer to the next (its size stated, so the thread
 * can bound the total): taken when an answer starts, so two answers never share it, and kept again
 * when it ends well.
 */
export interface DecoderMemory {
  take(key: string): unknown;
  keep(key: string, value: unknown, bytes: number): void;
}

/** What a decoder needs from the source: plain data, so a job can cross to a worker thread. */
export interface DecodeOptions extends ConvertOptions {
  /** Rendered `source="…",…` labels of the source. */
  labelPrefix: string;
  maxBytes: number;
}

/** What a decoder may take for a whole answer: set by the pool from its workers' memory limit. */
export interface ParseBudget {
  /** The most JSON read of an answer, decompressed. */
  bytes: number;
  /** The most heap its JSON.parse may take, the text included, as estimated before parsing (parse-cost.ts). */
  heapBytes: number;
  /** Said in the error, so the operator knows what to raise. */
  because: string;
}

export interface DecodeJob {
  endpoint: Endpoint;
  body: Uint8Array;
  encoding: string | undefined;
  options: DecodeOptions;
  budget?: ParseBudget;
  /** Skip the endpoint's streaming reader: the reference path decides (after the reader gave up). */
  reference?: boolean;
}

export type DecodeResult = (
  | {
      ok: true;
      families: RenderedFamilies;
      series: number;
      facts?: ReplicaFacts;
      summary?: EndpointSummary;
      /** Entries of the answer left out for repeating a series (convert/samples.ts); absent for none. */
      duplicates?: number;
      /**
       * The answer's warnings (Thanos Query: a store that did not answer), distinct, normalised and
       * excerpted (convert/answer-warnings.ts); absent for none. The upstream's words: for the operator's
       * log only, never a /probe client. Counted in promstatus_answer_warnings.
       */
      warnings?: string[];
    }
  | {
      ok: false;
      reason: FailureReason;
      /** Never quotes the answer: what it said goes to upstreamText (PollError's, upstream/poll-error.ts). */
      message: string;
      upstreamText?: string;
    }
) & {
  /** The endpoint's fast reader left this answer to the reference path (about twice the CPU). */
  fallback?: true;
};
