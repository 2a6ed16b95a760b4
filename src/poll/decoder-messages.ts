import type { Endpoint } from "../config/types.js";
import type { Families } from "../exposition/pack.js";
import type { InputEncoding } from "./answer-input.js";
import type { DecodeJob, DecodeOptions, DecodeResult } from "./decode-types.js";
import type { Filled } from "./lines-again.js";

/** What the main thread asks of a decoder thread. */
export type DecoderRequest =
  /** A whole answer, decoded at once. */
  | { kind: "job"; job: DecodeJob }
  /** An answer that will come chunk by chunk, under `id`. */
  | { kind: "open"; id: number; endpoint: Endpoint; options: DecodeOptions }
  /** How the answer's chunks come (plain unless said): before its first chunk. */
  | { kind: "input"; id: number; encoding: InputEncoding }
  /** The answer's next chunks, in order. */
  | { kind: "chunks"; id: number; bytes: Uint8Array[] }
  /** The last chunk was sent: the result, please. */
  | { kind: "end"; id: number }
  /** Forget the answer (its fetch failed or ran out of time). */
  | { kind: "drop"; id: number }
  /** Load what decoding whole answers needs, then say `ready`. */
  | { kind: "warm" }
  /**
   * Write the next plain lines of the family packed as `hash` into the writing's slot `slot` (writing
   * `id`: lines-again.ts); its `first` request begins it.
   */
  | { kind: "again"; id: number; hash: string; slot: number; first?: true }
  /** End writing `id`: its slots are free (nothing reads them, none is being filled). */
  | { kind: "again-end"; id: number };

type Decoded = Extract<DecodeResult, { ok: true }>;

/**
 * A decode's result as a decoder thread hands it over: its large families packed (exposition/pack.ts),
 * so their plain lines never reach the main thread. An answer decoded inline has plain families only.
 */
export type PackedResult = Exclude<DecodeResult, { ok: true }> | (Omit<Decoded, "families"> & { families: Families });

/** What a decoder thread answers; `heapBytes` is its heap after the work, so an idle large one can be ended. */
export type DecoderReply =
  /** The thread has loaded what decoding whole answers needs: it may be given one. */
  | { kind: "ready" }
  | { kind: "result"; result: PackedResult; heapBytes: number; keptBytes?: number }
  /** `bytes` of chunks were read since the last ack; `gaveUp`: the reader gave up on the answer (the rest need not be sent). */
  | { kind: "ack"; id: number; bytes: number; gaveUp: boolean }
  /** `keptBytes`: what the thread keeps of its sources for their next answers (their series). */
  /** `tail`: the answer's last bytes (gunzipped), for the flavor clue at its end. */
  | { kind: "streamed"; id: number; result: PackedResult; tail: string; heapBytes: number; keptBytes?: number }
  /** The streamed answer was not in a shape the reader handles: the reference path decides. */
  | { kind: "gave-up"; id: number; heapBytes: number; keptBytes?: number }
  /**
   * Slot `slot` of writing `id` holds its next lines, `length` bytes at `at` in the memory (which the
   * answer to its first request gives); how the writing goes on.
   */
  | ({ kind: "again"; id: number; slot: number } & Filled);
