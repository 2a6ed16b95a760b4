import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { gunzipSync } from "node:zlib";
import { type DecodeJob, type DecodeResult, decodeAnswer } from "./decode.js";
import { ownMemory, transferList } from "./transferable.js";

// Tiny answers (an Alertmanager status) are decoded inline: a worker round trip costs more. The limit
// is low because a gzipped body may be 20x larger decompressed (a 100 KB tsdb answer is 1.7 MB).
const INLINE_LIMIT = 32 * 1024;

// The build runs plain JS. Under the tests and scripts the sources are TypeScript: the worker then
// registers tsx's loader before importing its entry.
const RUNNING_TS = import.meta.url.endsWith(".ts");
const WORKER_URL = new URL(`./decode-worker.${RUNNING_TS ? "ts" : "js"}`, import.meta.url);

// A worker's heap grows to hold a large answer while it is parsed and is not given back to the OS
// afterwards; an idle worker is therefore ended, which frees its whole heap. Polls are seconds apart,
// so the restart (tens of ms of CPU) is cheap next to keeping hundreds of MB.
const IDLE_EXIT_MS = 1000;

/**
 * The job as it can be decoded on the main thread, or undefined if it must go to a worker. Decided by
 * the decompressed size: an 8 KB gzip answer may inflate to 8 MB, whose parse would stall the loop.
 * Inflating at most INLINE_LIMIT bytes to find out costs microseconds.
 */
function smallEnoughInline(job: DecodeJob): DecodeJob | undefined {
  if (job.body.byteLength > INLINE_LIMIT) return undefined;
  if (!job.encoding || job.encoding === "identity") return job;
  if (job.encoding !== "gzip" && job.encoding !== "x-gzip") return job; // refused by the decoder
  try {
    const body = gunzipSync(job.body, { maxOutputLength: INLINE_LIMIT });
    return { ...job, body, encoding: undefined };
  } catch (error) {
    // Larger than the inline limit: a worker inflates it. Broken gzip: the decoder says so.
    return (error as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE" ? undefined : job;
  }
}

function startWorker(): Worker {
  if (!RUNNING_TS) return new Worker(WORKER_URL);
  const api = JSON.stringify(import.meta.resolve("tsx/esm/api"));
  const entry = JSON.stringify(WORKER_URL.href);
  return new Worker(`import(${api}).then((tsx) => { tsx.register(); return import(${entry}); });`, { eval: true });
}

interface Pending {
  resolve(result: DecodeResult): void;
}

interface Slot {
  worker: Worker;
  pending: Map<number, Pending>;
  idleTimer: NodeJS.Timeout | undefined;
}

/**
 * Decodes large answers in worker threads, so parsing never blocks the event loop that serves
 * scrapes. Jobs go to the least busy worker; a crashed worker fails its jobs and is replaced.
 */
export class DecodePool {
  private readonly slots: Slot[] = [];
  private nextId = 0;
  /** Jobs handed to a worker so far (the rest were decoded inline). */
  offloaded = 0;

  constructor(private readonly size = Math.max(1, Math.min(2, availableParallelism()))) {}

  decode(job: DecodeJob): Promise<DecodeResult> {
    const inline = smallEnoughInline(job);
    if (inline) return Promise.resolve(decodeAnswer(inline));
    const slot = this.pick();
    const id = this.nextId++;
    this.offloaded++;
    const sent = ownMemory(job.body);
    return new Promise((resolve) => {
      clearTimeout(slot.idleTimer);
      slot.pending.set(id, { resolve });
      slot.worker.ref();
      slot.worker.postMessage({ id, job: { ...job, body: sent } }, transferList([sent]));
    });
  }

  private retire(slot: Slot): void {
    if (slot.pending.size > 0) return;
    const i = this.slots.indexOf(slot);
    if (i >= 0) this.slots.splice(i, 1);
    void slot.worker.terminate();
  }

  private pick(): Slot {
    if (this.slots.length < this.size) {
      const idle = this.slots.find((s) => s.pending.size === 0);
      return idle ?? this.spawn();
    }
    return this.slots.reduce((a, b) => (b.pending.size < a.pending.size ? b : a));
  }

  private spawn(): Slot {
    const worker = startWorker();
    const slot: Slot = { worker, pending: new Map(), idleTimer: undefined };
    worker.unref();
    worker.on("message", ({ id, result }: { id: number; result: DecodeResult }) => {
      slot.pending.get(id)?.resolve(result);
      slot.pending.delete(id);
      if (slot.pending.size > 0) return;
      worker.unref(); // idle workers must not keep the process alive
      slot.idleTimer = setTimeout(() => this.retire(slot), IDLE_EXIT_MS).unref();
    });
    const fail = (why: string) => {
      for (const p of slot.pending.values()) p.resolve({ ok: false, reason: "invalid_payload", message: why });
      slot.pending.clear();
      const i = this.slots.indexOf(slot);
      if (i >= 0) this.slots.splice(i, 1);
    };
    worker.on("error", (err) => fail(`decoder failed: ${err.name}: ${err.message || "(no message)"}`));
    worker.on("exit", (code) => fail(`decoder exited with code ${code}`));
    this.slots.push(slot);
    return slot;
  }
}

export const decodePool = new DecodePool();
