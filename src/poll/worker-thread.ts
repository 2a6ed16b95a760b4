import { Worker } from "node:worker_threads";
import { excerpt } from "../upstream/excerpt.js";
import type { DecodeResult } from "./decode-types.js";

// The build runs plain JS. Under the tests and scripts the sources are TypeScript: the worker then
// registers tsx's loader before importing its entry.
const RUNNING_TS = import.meta.url.endsWith(".ts");
const WORKER_URL = new URL(`./decode-worker.${RUNNING_TS ? "ts" : "js"}`, import.meta.url);

// Reading an answer makes garbage at a high rate (a few objects per target, dead by the next one), and
// V8 grows the young generation for it up to 3 x 64 MiB on Node 24: 134 MB committed for a 500k-target
// answer whose live objects are a few MB at any time. 24 MiB (8 MiB semi-spaces) keeps that garbage
// small at no measured CPU cost (500k targets: RSS after reading 305 -> 180 MB). A process started with
// --max-semi-space-size (the image's 4) overrides this: V8 takes the flag over a thread's resourceLimits,
// and the thread's semi-spaces are 4 MiB too (new space at most ~10 MB, measured on Node 24).
const YOUNG_GENERATION_MIB = 24;

/** A decoder thread whose old-generation heap is capped, so one answer cannot take the process's memory. */
export function startDecoderThread(memoryLimitBytes: number): Worker {
  const resourceLimits = {
    maxOldGenerationSizeMb: Math.max(1, Math.floor(memoryLimitBytes / 2 ** 20)),
    maxYoungGenerationSizeMb: YOUNG_GENERATION_MIB,
  };
  if (!RUNNING_TS) return new Worker(WORKER_URL, { resourceLimits });
  const api = JSON.stringify(import.meta.resolve("tsx/esm/api"));
  const entry = JSON.stringify(WORKER_URL.href);
  const code = `import(${api}).then((tsx) => { tsx.register(); return import(${entry}); });`;
  return new Worker(code, { eval: true, resourceLimits });
}

export const mib = (bytes: number) => `${Math.round((bytes / 2 ** 20) * 10) / 10}MiB`;

// A decoder thread's heap grows to hold a large answer while it is read and is not given back to the
// system afterwards, and what it rendered is garbage there until its next collection. An idle thread
// whose heap grew past WARM_HEAP_LIMIT is therefore ended, which frees all of it: the restart (~150 ms
// of CPU: an isolate, the modules, cold code) is cheap next to keeping hundreds of MB. A thread that
// stayed small (answers up to ~10k targets) is kept for the next poll, where a restart would be most
// of the poll's cost.
export const WARM_HEAP_LIMIT = 64 * 2 ** 20;

/** How long an idle decoder thread is kept, from the heap its last answer left. */
export function idleExitMs(heapBytes: number, warmHeapLimitBytes: number): number {
  return heapBytes < warmHeapLimitBytes ? 10 * 60_000 : 1000;
}

/**
 * Why the answers of a decoder thread that failed cannot be read. An engine error's message may quote
 * the answer: the detail names the error only, its message goes to upstreamText (the operator's views).
 */
export function threadFailure(err: NodeJS.ErrnoException, memoryLimitBytes: number): DecodeResult {
  if (err.code === "ERR_WORKER_OUT_OF_MEMORY")
    return {
      ok: false,
      reason: "too_large",
      message: `decoding the answer needed more than --decoder.memory-limit=${mib(memoryLimitBytes)}`,
    };
  return {
    ok: false,
    reason: "invalid_payload",
    message: `decoder failed (${err.name})`,
    ...(err.message ? { upstreamText: excerpt(err.message) } : {}),
  };
}
