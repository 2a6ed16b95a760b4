import type { Worker } from "node:worker_threads";
import type { Endpoint } from "../config/types.js";
import type { PackedLines } from "../exposition/pack.js";
import type { LinesWrittenAgain } from "../exposition/unpack.js";
import { release } from "../lib/release-memory.js";
import type { InputEncoding } from "./answer-input.js";
import type { DecodeOptions, DecodeResult } from "./decode-types.js";
import type { DecoderReply, DecoderRequest, PackedResult } from "./decoder-messages.js";
import { LinesAgainClient } from "./lines-again-client.js";
import { ownMemory, transferList } from "./transferable.js";
import { idleExitMs, startDecoderThread, threadFailure, WARM_HEAP_LIMIT } from "./worker-thread.js";

/** How a streamed answer ended: decoded (with its last bytes, `tail`), or left to the reference path. */
export type StreamEnd = { gaveUp: false; result: PackedResult; tail: string } | { gaveUp: true };

/** One answer being streamed to the decoder thread. */
export interface DecodeStream {
  /**
   * Says how the chunks come (plain unless said; gzip ones are gunzipped by the thread): before the first
   * chunk. `stop` is called once the thread wants no more of the answer (the fetch may end then).
   */
  begin(encoding: InputEncoding, stop?: () => void): void;
  /**
   * Hands a chunk over (moved, or copied when small or sharing memory; either way the caller's view of
   * it may be emptied, its memory detached): true while the thread has room
   * for more, else a promise of that; false (or a promise of it) if the reader gave up on the answer
   * (the rest need not be fetched).
   */
  write(chunk: Uint8Array): boolean | Promise<boolean>;
  /** The result, once the last chunk was handed over; the timeout result if it is not there within `timeoutMs`. */
  end(timeoutMs: number): Promise<StreamEnd>;
  /** Forgets the answer (its fetch failed). */
  abort(): void;
}

// Chunks handed over but not yet read: beyond this the fetch waits, so a thread that reads slower than
// the network does not make the main thread queue the answer in memory.
const HIGH_WATER_BYTES = 4 * 2 ** 20;
// Chunks go over in groups, one message each: what arrived within GROUP_WAIT_MS, and at most about
// GROUP_BYTES. A message per socket read cost the two threads ~10-20 µs each end, and a real Prometheus
// writes a gzip answer 4 KiB at a time as its gzip writer makes them (100k targets: ~1500 writes over
// ~0.75 s). Sent at the end of each event-loop turn, a group was a read: the main thread took 117 ms a
// poll of such an answer, against 50 for the same answer in one burst (57 with these groups and the
// socket's rests, reading-agent.ts). A reader's verdict on a slow answer waits at most GROUP_WAIT_MS.
// Well below the high-water mark.
const GROUP_BYTES = 2 ** 19;
const GROUP_WAIT_MS = 50;
// Pieces smaller than this are copied side by side into buffers of JOIN_BYTES, which go over as one
// piece each: moved one by one, each was a buffer to transfer and a write for the decoder thread.
const JOIN_BELOW = 16 * 1024;
const JOIN_BYTES = 64 * 1024;
// A streaming thread keeps only what one poll's answers need (the summary, not the answer), so it is
// kept warm between polls, unless reading them grew its heap large (worker-thread.ts, idleExitMs).

interface Open {
  /** Bytes handed over (sent, or in the group not yet sent) and not yet acknowledged. */
  pending: number;
  /** Chunks handed over and not yet sent, and their bytes (the joined ones' too). */
  group: Uint8Array[];
  groupBytes: number;
  /** Small pieces joined so far, and how many of its bytes they fill (not yet in the group). */
  joining: Uint8Array | undefined;
  joined: number;
  /** The group's send, GROUP_WAIT_MS after its first chunk. */
  sendLater: NodeJS.Timeout | undefined;
  gaveUp: boolean;
  /** Why the answer cannot be read, when its thread was lost. */
  failure: DecodeResult | undefined;
  /** Waiting for room (write) or for the result (end). */
  onAck: (() => void) | undefined;
  /** Called once the thread wants no more of the answer. */
  stop: (() => void) | undefined;
  onEnd: ((end: StreamEnd) => void) | undefined;
}

/** Takes the chunks not yet sent out of an answer's state (the joined ones too), and its send to come. */
function dropGroup(state: Open): Uint8Array[] {
  clearTimeout(state.sendLater);
  state.sendLater = undefined;
  closeJoin(state);
  const group = state.group;
  state.group = [];
  state.groupBytes = 0;
  return group;
}

/**
 * Puts the small pieces joined so far into the group, as one: in memory of their size, so that the
 * bytes counted are the memory sent (a byte joined alone would otherwise hold 64 KiB), and the thread
 * can give it back once read.
 */
function closeJoin(state: Open): void {
  const { joining, joined } = state;
  if (joining && joined > 0) state.group.push(joined === joining.byteLength ? joining : joining.slice(0, joined));
  state.joining = undefined;
  state.joined = 0;
}

/** Copies a small piece after the others joined so far; its own memory is given back at once. */
function join(state: Open, piece: Uint8Array): void {
  if (state.joining && state.joined + piece.byteLength > state.joining.byteLength) closeJoin(state);
  state.joining ??= new Uint8Array(JOIN_BYTES);
  state.joining.set(piece, state.joined);
  state.joined += piece.byteLength;
  release(piece);
}

const timedOut = (timeoutMs: number): StreamEnd => ({
  gaveUp: false,
  tail: "",
  result: {
    ok: false,
    reason: "timeout",
    message: `the answer was not decoded within the time left of the timeout (${timeoutMs} ms)`,
  },
});

/**
 * The decoder thread of streamed answers: several answers at once, each chunk read as it arrives.
 * A chunk's work is bounded (a reader carries at most one value), so no answer holds the thread for
 * long; a thread that runs out of memory fails the answers it was reading and is replaced.
 */
export class StreamDecoder {
  private worker: Worker | undefined;
  private readonly open = new Map<number, Open>();
  private nextId = 1;
  private idleTimer: NodeJS.Timeout | undefined;
  /** Threads started so far. */
  started = 0;
  /** The thread's heap after its last answer, and what it keeps of its sources for their next answers. */
  private heapBytes = 0;
  private keptBytes = 0;
  private readonly again = new LinesAgainClient();

  constructor(
    private readonly memoryLimit: () => number,
    private readonly warmHeapLimitBytes = WARM_HEAP_LIMIT,
  ) {}

  /** Whether a thread is running now. */
  get running(): boolean {
    return this.worker !== undefined;
  }

  openStream(endpoint: Endpoint, options: DecodeOptions): DecodeStream {
    const worker = this.thread();
    const id = this.nextId++;
    const state: Open = {
      pending: 0,
      group: [],
      groupBytes: 0,
      joining: undefined,
      joined: 0,
      sendLater: undefined,
      gaveUp: false,
      failure: undefined,
      onAck: undefined,
      stop: undefined,
      onEnd: undefined,
    };
    this.open.set(id, state);
    clearTimeout(this.idleTimer);
    worker.ref();
    this.send(worker, { kind: "open", id, endpoint, options });
    const forget = () => {
      dropGroup(state);
      state.onAck?.(); // a write waiting for room ends (and says the answer is gone)
      if (!this.open.delete(id)) return;
      this.send(worker, { kind: "drop", id });
      this.idle();
    };
    const hasRoom = async () => {
      while (state.pending > HIGH_WATER_BYTES && !state.gaveUp && this.open.has(id)) {
        await new Promise<void>((resolve) => {
          state.onAck = resolve;
        });
      }
      return !state.gaveUp && this.open.has(id);
    };
    return {
      begin: (encoding, stop) => {
        state.stop = stop;
        if (this.open.has(id)) this.send(worker, { kind: "input", id, encoding });
      },
      write: (chunk) => {
        if (state.gaveUp || !this.open.has(id)) return false;
        const length = chunk.byteLength;
        if (length < JOIN_BELOW) join(state, chunk);
        else {
          closeJoin(state);
          state.group.push(ownMemory(chunk));
        }
        state.pending += length;
        state.groupBytes += length;
        if (state.groupBytes >= GROUP_BYTES) this.sendGroup(worker, id, state);
        else state.sendLater ??= setTimeout(() => this.sendGroup(worker, id, state), GROUP_WAIT_MS);
        // Most chunks find room: no promise for them (a 100k-target answer comes in ~1200 pieces).
        return state.pending > HIGH_WATER_BYTES ? hasRoom() : true;
      },
      end: (timeoutMs) => {
        if (!this.open.has(id)) {
          if (state.failure) return Promise.resolve({ gaveUp: false, result: state.failure, tail: "" });
          return Promise.resolve(state.gaveUp ? { gaveUp: true } : timedOut(timeoutMs));
        }
        return new Promise<StreamEnd>((resolve) => {
          const timer = setTimeout(() => {
            forget();
            resolve(timedOut(timeoutMs));
          }, timeoutMs);
          state.onEnd = (end) => {
            clearTimeout(timer);
            resolve(end);
          };
          this.sendGroup(worker, id, state);
          this.send(worker, { kind: "end", id });
        });
      },
      abort: forget,
    };
  }

  private sendGroup(worker: Worker, id: number, state: Open): void {
    const bytes = dropGroup(state);
    // Not sent once the reader gave up on the answer, or the answer is gone: nothing would read it.
    if (bytes.length === 0 || state.gaveUp || !this.open.has(id)) return;
    this.send(worker, { kind: "chunks", id, bytes }, transferList(bytes));
  }

  private send(worker: Worker, message: DecoderRequest, transfer: ArrayBuffer[] = []): void {
    worker.postMessage(message, transfer);
  }

  /** Starts the thread now, so the first answer does not wait for it (an isolate and the modules). */
  warm(): void {
    this.thread();
    this.idle();
  }

  private thread(): Worker {
    if (this.worker) return this.worker;
    const worker = startDecoderThread(this.memoryLimit());
    this.worker = worker;
    this.started++;
    this.heapBytes = 0;
    this.keptBytes = 0;
    worker.unref();
    worker.on("message", (reply: DecoderReply) => this.receive(reply));
    const fail = (result: DecodeResult) => {
      this.again.lost(worker);
      // A thread ended for being idle had no answers open, and its exit may come after a new thread
      // took answers: those are not its to fail.
      if (this.worker !== worker) return;
      this.worker = undefined;
      for (const [id, state] of this.open) {
        this.open.delete(id);
        dropGroup(state);
        state.failure = result;
        state.onAck?.();
        state.onEnd?.({ gaveUp: false, result, tail: "" });
      }
    };
    worker.on("error", (err: NodeJS.ErrnoException) => fail(threadFailure(err, this.memoryLimit())));
    worker.on("exit", (code) =>
      fail({ ok: false, reason: "invalid_payload", message: `decoder exited with code ${code}` }),
    );
    return worker;
  }

  /** The plain lines of a per-target family this thread packed, written again by it (lines-again.ts); undefined with no thread. */
  writeAgain(family: PackedLines): LinesWrittenAgain | undefined {
    return this.worker && this.again.begin(this.worker, family.hash);
  }

  private receive(reply: DecoderReply): void {
    if (reply.kind === "result" || reply.kind === "ready") return;
    if (reply.kind === "again") {
      this.again.receive(reply);
      return;
    }
    const state = this.open.get(reply.id);
    if (!state) return;
    if (reply.kind === "ack") {
      state.pending -= reply.bytes;
      if (reply.gaveUp && !state.gaveUp) {
        state.gaveUp = true;
        dropGroup(state); // never sent now: its memory goes
        state.stop?.();
      }
      const wake = state.onAck;
      state.onAck = undefined;
      wake?.();
      return;
    }
    this.open.delete(reply.id);
    this.heapBytes = reply.heapBytes;
    this.keptBytes = reply.keptBytes ?? 0;
    state.onEnd?.(
      reply.kind === "gave-up" ? { gaveUp: true } : { gaveUp: false, result: reply.result, tail: reply.tail },
    );
    this.idle();
  }

  /** With no answer open, the thread no longer keeps the process alive, and ends after a while: soon if its heap grew large. */
  private idle(): void {
    if (this.open.size > 0 || !this.worker) return;
    const worker = this.worker;
    // A thread that keeps sources' series for their next answers stays, whatever its heap: ending it
    // would lose them, and the next answer, read from scratch, grows its heap as far again (500k
    // targets: ~75 MB after an answer of new targets, ~40 MB after a known one; V8 gives an idle
    // thread's unused heap back by itself). What it keeps is bounded (DECODER_MEMORY_BYTES).
    const exitMs = idleExitMs(this.keptBytes > 0 ? 0 : this.heapBytes, this.warmHeapLimitBytes);
    worker.unref();
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      if (this.open.size > 0 || this.worker !== worker) return;
      this.worker = undefined;
      void worker.terminate();
    }, exitMs).unref();
  }
}
