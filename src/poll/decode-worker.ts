import { getHeapStatistics } from "node:v8";
import { parentPort } from "node:worker_threads";
import { type Families, type FamilyLines, isPacked, PACK_MIN_BYTES, packFamilies } from "../exposition/pack.js";
import { PackCache } from "../exposition/pack-cache.js";
import { BoundedMap } from "../lib/bounded-map.js";
import { takeCollector } from "../lib/collector.js";
import { release } from "../lib/release-memory.js";
import { excerpt } from "../upstream/excerpt.js";
import { AnswerInput } from "./answer-input.js";
import { CollectAfterAnswers } from "./collect-after-answers.js";
import type { ChunkDecoder, DecodeJob, DecodeResult, DecoderMemory } from "./decode-types.js";
import type { DecoderReply, DecoderRequest, PackedResult } from "./decoder-messages.js";
import { ENDPOINTS } from "./endpoints.js";
import { LinesAgain } from "./lines-again.js";
import { ownMemory, ownMemoryTogether, transferList } from "./transferable.js";

/** The result's buffers, moved to the main thread rather than copied: families' lines or members, and facts. */
function resultBuffers(result: PackedResult): Uint8Array[] {
  if (!result.ok) return [];
  const buffers: Uint8Array[] = [];
  for (const [, lines] of result.families) {
    if (isPacked(lines)) buffers.push(...lines.members);
    else buffers.push(lines);
  }
  if (result.facts?.kind === "prometheus") {
    const { targets, health } = result.facts;
    buffers.push(new Uint8Array(targets.buffer, targets.byteOffset, targets.byteLength), health);
  }
  return buffers;
}

// An engine error's message may quote a value of the answer: the client-facing detail names the error only.
const failed = (error: unknown): DecodeResult => ({
  ok: false,
  reason: "invalid_payload",
  message: `decoder failed (${error instanceof Error ? error.name : typeof error})`,
  upstreamText: excerpt(String(error)),
});

/**
 * The result as it crosses to the main thread: large families packed into gzip members here, so their
 * plain lines never exist there, and every buffer in memory of its own (small ones from Node's shared
 * pool, a short member among them, are copied first).
 */
function handOver(result: DecodeResult | PackedResult): PackedResult {
  if (!result.ok) return result;
  const families: Families = packFamilies(result.families).map(([name, lines]) => [
    name,
    isPacked(lines) ? { ...lines, members: ownMemoryTogether(lines.members) } : ownMemory(lines),
  ]);
  return { ...result, families };
}

/** Sends a result, its buffers moved. */
function reply(
  to: { kind: "result" } | { kind: "streamed"; id: number; tail: string },
  decoded: DecodeResult | PackedResult,
): void {
  let result: PackedResult;
  try {
    result = handOver(decoded);
  } catch (error) {
    result = failed(error);
  }
  const message: DecoderReply = { ...to, result, heapBytes: heapBytes(), keptBytes: keptBySource.bytes };
  try {
    parentPort?.postMessage(message, transferList(resultBuffers(result)));
  } catch (error) {
    parentPort?.postMessage({ ...message, result: failed(error) });
  }
}

/** The heap a job left behind: the pool keeps a small worker warm and ends a large one. */
const heapBytes = () => getHeapStatistics().total_heap_size;

/** Answers being streamed to this thread, by id, with the labels naming their source. */
const streams = new Map<number, { decoder: ChunkDecoder; input: AnswerInput; source: string }>();
/** The thread's young generation collected once a poll's answers are done (collect-after-answers.ts). */
const afterAnswers = new CollectAfterAnswers(takeCollector);
// Chunks are acknowledged together, once this much was read (a socket's ~64 KiB each: a message per
// read cost the thread ~25 ms per 100k-target poll), and at once when the reader gives up. Well below
// the main thread's high-water mark (stream-decoder.ts), so its fetch never waits on an ack held here.
const ACK_BYTES = 2 ** 20;

/** Acknowledges answer `id`'s chunks as they are read: ACK_BYTES at a time, and at once when no more are wanted. */
function acknowledger(id: number): (bytes: number, more: boolean) => void {
  let unacknowledged = 0;
  let gaveUp = false;
  return (bytes, more) => {
    unacknowledged += bytes;
    if (gaveUp || (more && unacknowledged < ACK_BYTES)) return;
    gaveUp = !more;
    parentPort?.postMessage({ kind: "ack", id, bytes: unacknowledged, gaveUp } satisfies DecoderReply);
    unacknowledged = 0;
  };
}

/** The large families of the last answers, packed: a family of the same bytes is not compressed again. */
const packed = new PackCache();
const packFamily = (source: string) => (lines: FamilyLines, family: string, newName?: string) =>
  isPacked(lines) || lines.byteLength < PACK_MIN_BYTES ? lines : packed.pack(`${source}\n${family}`, lines, newName);
const packedAgain = (source: string) => (family: string, hash: string) => packed.again(`${source}\n${family}`, hash);
const packPieces = (source: string) => (pieces: Iterable<Uint8Array>, family: string, newName: string) =>
  packed.packPieces(`${source}\n${family}`, pieces, newName);

/**
 * What decoders keep of a source between its answers (a targets answer's series, 230-290 bytes a target),
 * bounded: the oldest source's goes first, and one larger than the whole budget is not kept.
 */
export const DECODER_MEMORY_BYTES = 192 * 2 ** 20;
const keptBySource = new BoundedMap<{ value: unknown; bytes: number }>((e) => e.bytes, { bytes: DECODER_MEMORY_BYTES });
const memory: DecoderMemory = {
  take(key) {
    const entry = keptBySource.get(key);
    keptBySource.delete(key);
    return entry?.value;
  },
  keep(key, value, bytes) {
    keptBySource.set(key, { value, bytes });
  },
};

/** Per-target families written again for plain scrapes, from the tables kept now. */
const linesAgain = new LinesAgain(function* () {
  for (const [, entry] of keptBySource) yield entry.value;
});

function finishStream(id: number): PackedResult | undefined {
  const stream = streams.get(id);
  streams.delete(id);
  if (stream?.input.failure) return { ok: false, ...stream.input.failure };
  try {
    const done = stream?.decoder.finishPacked(
      packFamily(stream.source),
      packedAgain(stream.source),
      packPieces(stream.source),
    );
    const refused = stream?.decoder.refusal();
    if (refused) return { ok: false, ...refused };
    return done && { ok: true, ...done };
  } catch (error) {
    return failed(error);
  }
}

/**
 * A whole answer through decode.ts, loaded with the first one: the reference path's schemas (zod,
 * ~20 MB of a thread's memory) are never loaded by a thread that only streams.
 */
async function decodeWhole(job: DecodeJob): Promise<DecodeResult> {
  try {
    const { decodeAnswer } = await import("./decode.js");
    return decodeAnswer(job);
  } catch (error) {
    // decodeAnswer reports what it expects; anything else must still answer this job, not kill the worker.
    return failed(error);
  }
}

// Worker thread entry: decodes answers off the main event loop, so reading them never stalls scrapes.
// Whole answers come as one job; streamed ones chunk by chunk, acknowledged as they are read (a MiB at
// a time) so the main thread reads no faster from the upstream than this thread decodes.
parentPort?.on("message", (message: DecoderRequest) => {
  switch (message.kind) {
    case "job":
      void decodeWhole(message.job).then((result) => reply({ kind: "result" }, result));
      return;
    case "warm":
      void import("./decode.js").then(
        () => parentPort?.postMessage({ kind: "ready" }),
        () => parentPort?.postMessage({ kind: "ready" }), // the job that follows reports what failed
      );
      return;
    case "open": {
      const { id, endpoint, options } = message;
      const decoder = ENDPOINTS[endpoint].stream?.(options, memory);
      if (!decoder) return;
      streams.set(id, { decoder, input: new AnswerInput(decoder, acknowledger(id)), source: options.labelPrefix });
      afterAnswers.opened();
      return;
    }
    case "input":
      streams.get(message.id)?.input.encoding(message.encoding);
      return;
    case "chunks": {
      const input = streams.get(message.id)?.input;
      if (!input) {
        for (const chunk of message.bytes) release(chunk);
        parentPort?.postMessage({ kind: "ack", id: message.id, bytes: 0, gaveUp: true });
        return;
      }
      for (const chunk of message.bytes) {
        afterAnswers.read(chunk.byteLength);
        input.write(chunk);
      }
      return;
    }
    case "end": {
      const { id } = message;
      const input = streams.get(id)?.input;
      const gaveUp = () =>
        parentPort?.postMessage({ kind: "gave-up", id, heapBytes: heapBytes(), keptBytes: keptBySource.bytes });
      if (!input) {
        gaveUp();
        return;
      }
      input.end(() => {
        if (streams.get(id)?.input !== input) return; // dropped meanwhile
        const { tail } = input;
        const result = finishStream(id);
        if (result === undefined) gaveUp();
        else reply({ kind: "streamed", id, tail }, result);
        afterAnswers.ended(streams.size);
      });
      return;
    }
    case "drop":
      streams.get(message.id)?.input.drop();
      streams.delete(message.id);
      afterAnswers.ended(streams.size);
      return;
    case "again": {
      const { id, hash, slot, first } = message;
      // An answer being read comes first: a source's poll is never held up by plain scrapes.
      const filled = streams.size > 0 ? linesAgain.stop(id) : linesAgain.fill(id, hash, slot, first === true);
      parentPort?.postMessage({ kind: "again", id, slot, ...filled } satisfies DecoderReply);
      return;
    }
    case "again-end":
      linesAgain.end(message.id);
      return;
  }
});
