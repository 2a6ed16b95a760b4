import { availableParallelism } from "node:os";
import type { Worker } from "node:worker_threads";
import { gunzipSync } from "node:zlib";
import { DEFAULT_DECODER_MEMORY_LIMIT } from "../config/defaults.js";
import type { Endpoint } from "../config/types.js";
import type { WriteAgain } from "../exposition/unpack.js";
import { ByteBudget } from "./byte-budget.js";
import { decodeAnswer } from "./decode.js";
import type { DecodeJob, DecodeOptions, DecodeResult, ParseBudget } from "./decode-types.js";
import type { DecoderReply, DecoderRequest, PackedResult } from "./decoder-messages.js";
import { type DecodeStream, StreamDecoder } from "./stream-decoder.js";
import { ownMemory, transferList } from "./transferable.js";
import { idleExitMs, mib, startDecoderThread, threadFailure, WARM_HEAP_LIMIT } from "./worker-thread.js";

// Tiny answers are decoded inline: a worker round trip costs more. The limit is low because a gzipped
// body may be 20x larger decompressed (a 100 KB tsdb answer is 1.7 MB).
const INLINE_LIMIT = 32 * 1024;
// Only where decoding is linear in the answer's size. An Alertmanager status carries its config as YAML,
// whose parse is not: 32 KB of `[[[…` took ~0.5 s of the event loop, so that answer always goes to a
// worker, where the poll's time budget can end it. A Prometheus config answer is YAML too (its hash
// parses it).
const NEVER_INLINE: ReadonlySet<Endpoint> = new Set(["status", "config"]);

/** Whether an endpoint's answers are always decoded by a worker, however small (so one is started early). */
export const decodedByWorker = (endpoint: Endpoint): boolean => NEVER_INLINE.has(endpoint);

// A whole answer is read up to a quarter of the limit as JSON (80 MiB of 320: a 100k-target answer is
// 76 MB). JSON.parse cannot be interrupted, so a heap exhausted inside it aborts the whole process, and
// what it takes depends on the answer's shape (0.9 times the text for a realistic answer, 13 times for
// `[[],[],…]`): what it would take, the text included, is estimated before parsing (parse-cost.ts) and
// must fit in the limit less the decoder's own heap. Validation and conversion that follow are
// JavaScript, where an exhausted heap ends the worker alone (ERR_WORKER_OUT_OF_MEMORY).
const LIMIT_PER_JSON_BYTE = 4;
/** A decoder thread's own heap (its modules and schemas: 10-12 MiB measured), not for a parse. */
const DECODER_HEAP = 16 * 2 ** 20;

// A streamed target's series is kept for the next poll (convert/target-table.ts): 230-290 bytes with
// room to grow, outside the heap but counted against the same limit, and some heap while its lines are
// written. A 320 MiB decoder thus keeps ~840k targets; an answer with more is refused, not left to
// grow the thread's memory without end.
const MEMORY_PER_TARGET = 400;

/**
 * The job as it can be decoded on the main thread, or undefined if it must go to a worker. Decided by
 * the decompressed size: an 8 KB gzip answer may inflate to 8 MB, whose parse would stall the loop.
 * Inflating at most INLINE_LIMIT bytes to find out costs microseconds.
 */
function smallEnoughInline(job: DecodeJob): DecodeJob | undefined {
  if (job.body.byteLength > INLINE_LIMIT || NEVER_INLINE.has(job.endpoint)) return undefined;
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

interface Task {
  job: DecodeJob;
  resolve(result: PackedResult): void;
}

const tookTooLong = (timeoutMs: number): DecodeResult => ({
  ok: false,
  reason: "timeout",
  message: `decoding the answer took longer than the time left of the timeout (${timeoutMs} ms)`,
});

interface Slot {
  worker: Worker;
  /**
   * Whether the worker has started and loaded the decoder. A job is given only to a ready worker, so
   * the start (~0.2 s) is never part of a job's time: a probe's budget of a few hundred ms ran out
   * there, its timeout ended the starting worker, and the next probe started one again.
   */
  ready: boolean;
  /** One job at a time, so a worker that runs out of memory fails exactly the answer that did it. */
  task: Task | undefined;
  idleTimer: NodeJS.Timeout | undefined;
}

export interface DecodePoolOptions {
  /** Worker threads at most; more jobs wait their turn. */
  size?: number;
  /** Old-generation heap of each worker (resourceLimits), bounding what one answer can take. */
  memoryLimitBytes?: number;
  /** A worker whose heap is smaller than this after a job is kept warm for the next one. */
  warmHeapLimitBytes?: number;
}

/**
 * Decodes large answers in worker threads, so parsing never blocks the event loop that serves
 * scrapes. A worker that crashes or runs out of memory fails its job and is replaced.
 */
export class DecodePool {
  private readonly slots: Slot[] = [];
  private readonly queue: Task[] = [];
  private readonly size: number;
  /** Applies to workers started from now on (idle workers end within a second). */
  memoryLimitBytes: number;
  /** Jobs handed to a worker so far (the rest were decoded inline). */
  offloaded = 0;
  /** Workers started so far. */
  started = 0;
  /** Answers streamed to this pool's streaming thread so far. */
  streamed = 0;
  private readonly warmHeapLimitBytes: number;
  private readonly streams: StreamDecoder;
  /** Bytes of answers read whole that may wait in memory for a decoder at once: the decoders' heap. */
  readonly waitingBytes = new ByteBudget(() => this.memoryLimitBytes);

  constructor({ size, memoryLimitBytes, warmHeapLimitBytes }: DecodePoolOptions = {}) {
    this.size = size ?? Math.max(1, Math.min(2, availableParallelism()));
    this.memoryLimitBytes = memoryLimitBytes ?? DEFAULT_DECODER_MEMORY_LIMIT;
    this.warmHeapLimitBytes = warmHeapLimitBytes ?? WARM_HEAP_LIMIT;
    this.streams = new StreamDecoder(() => this.memoryLimitBytes, this.warmHeapLimitBytes);
  }

  /**
   * Decodes a whole answer within `timeoutMs`: a job still waiting then is dropped, a job being decoded
   * ends its worker (JSON.parse cannot be interrupted any other way) and fails with reason timeout.
   */
  decode(given: DecodeJob, timeoutMs = Number.POSITIVE_INFINITY): Promise<PackedResult> {
    // The targets budget holds whichever path reads the answer (the reference one too).
    const job = { ...given, options: { ...given.options, maxTargets: this.maxTargets } };
    const inline = smallEnoughInline(job);
    if (inline) return Promise.resolve(decodeAnswer(inline));
    this.offloaded++;
    const budget = this.parseBudget();
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const task: Task = {
        job: { ...job, budget },
        resolve: (result) => {
          clearTimeout(timer);
          resolve(result);
        },
      };
      if (Number.isFinite(timeoutMs)) timer = setTimeout(() => this.abandon(task, timeoutMs), Math.max(0, timeoutMs));
      this.queue.push(task);
      this.dispatch();
    });
  }

  /** The most JSON a whole answer may have here (no more of one is read), and the most heap its parse may take. */
  parseBudget(): ParseBudget {
    return {
      bytes: Math.floor(this.memoryLimitBytes / LIMIT_PER_JSON_BYTE),
      heapBytes: Math.max(0, this.memoryLimitBytes - DECODER_HEAP),
      because: `the most a decoder can parse with --decoder.memory-limit=${mib(this.memoryLimitBytes)}`,
    };
  }

  /**
   * Starts the streaming thread now, so the first poll of a targets answer does not wait for it: a
   * poll's timeout covers its decode, and a thread's start is a few hundred ms of it (over 1.5 s on a
   * busy machine). A worker for whole answers too with `wholeAnswers` (the sources poll an endpoint
   * decodedByWorker): else they start when one comes, as most are decoded inline and each thread holds
   * ~27 MB of RSS idle.
   */
  warm(wholeAnswers = false): void {
    this.streams.warm();
    if (wholeAnswers && this.slots.length === 0) this.spawn();
  }

  /** Answers in a stream, decoded by this pool's streaming thread. */
  openStream(endpoint: Endpoint, options: DecodeOptions): DecodeStream {
    this.streamed++;
    return this.streams.openStream(endpoint, { ...options, maxTargets: this.maxTargets });
  }

  /** A per-target family's plain lines written again by the streaming thread that packed them, if it runs. */
  readonly writeAgain: WriteAgain = (family) => this.streams.writeAgain(family);

  /** Targets an answer may list, with its pools weighed (targets-budget.ts), for this pool's memory. */
  private get maxTargets(): number {
    return Math.floor(this.memoryLimitBytes / MEMORY_PER_TARGET);
  }

  private abandon(task: Task, timeoutMs: number): void {
    const queued = this.queue.indexOf(task);
    if (queued >= 0) this.queue.splice(queued, 1);
    const slot = this.slots.find((s) => s.task === task);
    if (slot) {
      slot.task = undefined;
      this.remove(slot);
      void slot.worker.terminate();
    }
    task.resolve(tookTooLong(timeoutMs));
    this.dispatch();
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      const slot = this.slots.find((s) => s.ready && s.task === undefined);
      if (!slot) {
        if (this.slots.length < this.size && this.slots.every((s) => s.ready)) this.spawn();
        return; // the job waits for a worker to be ready or free
      }
      const task = this.queue.shift() as Task;
      const body = ownMemory(task.job.body);
      clearTimeout(slot.idleTimer);
      slot.task = task;
      slot.worker.ref();
      const request: DecoderRequest = { kind: "job", job: { ...task.job, body } };
      slot.worker.postMessage(request, transferList([body]));
    }
  }

  /** An idle worker ends after a while: soon if its heap grew large, else after minutes. */
  private idleAfter(slot: Slot, heapBytes: number): void {
    const idleExit = idleExitMs(heapBytes, this.warmHeapLimitBytes);
    clearTimeout(slot.idleTimer);
    slot.idleTimer = setTimeout(() => {
      if (slot.task) return;
      this.remove(slot);
      void slot.worker.terminate();
    }, idleExit).unref();
  }

  private remove(slot: Slot): void {
    const i = this.slots.indexOf(slot);
    if (i >= 0) this.slots.splice(i, 1);
  }

  private spawn(): Slot {
    const worker = startDecoderThread(this.memoryLimitBytes);
    this.started++;
    const slot: Slot = { worker, ready: false, task: undefined, idleTimer: undefined };
    worker.unref();
    worker.postMessage({ kind: "warm" } satisfies DecoderRequest);
    worker.on("message", (reply: DecoderReply) => {
      if (reply.kind === "ready") {
        slot.ready = true;
        this.dispatch();
        // Started ahead of any answer (warm) and none came: it ends after a while like any idle worker.
        if (slot.task === undefined) this.idleAfter(slot, 0);
        return;
      }
      if (reply.kind !== "result") return;
      const { result, heapBytes } = reply;
      slot.task?.resolve(result);
      slot.task = undefined;
      worker.unref(); // idle workers must not keep the process alive
      this.idleAfter(slot, heapBytes);
      this.dispatch();
    });
    const fail = (result: DecodeResult) => {
      slot.task?.resolve(result);
      slot.task = undefined;
      this.remove(slot);
      this.dispatch(); // waiting jobs get a fresh worker
    };
    worker.on("error", (err: NodeJS.ErrnoException) => fail(threadFailure(err, this.memoryLimitBytes)));
    worker.on("exit", (code) =>
      fail({ ok: false, reason: "invalid_payload", message: `decoder exited with code ${code}` }),
    );
    this.slots.push(slot);
    return slot;
  }
}

/** The decoders of scheduled sources. */
export const decodePool = new DecodePool();
/** The decoders of /probe: their own threads, so probes never hold up a scheduled source's poll. */
export const probeDecodePool = new DecodePool({ size: 1 });
