import type { Worker } from "node:worker_threads";
import type { AgainPiece, LinesWrittenAgain } from "../exposition/unpack.js";
import type { DecoderReply, DecoderRequest } from "./decoder-messages.js";
import { AGAIN_SLOT_BYTES, type AgainState } from "./lines-again.js";

// The main thread's side of writing a plain scrape's per-target families again in the decoder thread
// (lines-again.ts). A writing has AGAIN_SLOTS slots of shared memory: the thread fills one, the
// response writes it, and it goes back to the thread once the response took it, so no bytes are
// copied or allocated per piece (moving ArrayBuffers back and forth instead set off garbage
// collections in both threads), and a slow client holds no more than the slots. A thread that does not
// answer within AGAIN_WAIT_MS (busy finishing a poll) leaves the rest to the members, as does a
// thread that ends.

/** Slots a writing has: one written to the response while the others are filled. */
export const AGAIN_SLOTS = 3;
/** How long a writing waits for the thread's next lines before it leaves the rest to the members. */
export const AGAIN_WAIT_MS = 200;
/**
 * Writings at once, each with its own memory of AGAIN_SLOTS slots: the memories are made once and
 * reused (made afresh for each writing, shared memory that V8 does not count towards a collection
 * piled up: GBs of RSS under thirty plain scrapers at once). A scrape whose family finds none free
 * inflates it, as do scrapes beyond it; a scrape usually holds two (the next family begins while the
 * socket still sends the last pieces of the one before).
 */
export const AGAIN_WRITINGS = 4;
/** Free memories not taken again within this long are let go (3 MiB each, resident until the next plain scrape otherwise). */
export const SPARE_KEPT_MS = 1000;

/** The writings' memories: at most AGAIN_WRITINGS, reused, the free ones let go once idle. */
class SlotMemories {
  private readonly free: SharedArrayBuffer[] = [];
  private taken = 0;
  private idleTimer: NodeJS.Timeout | undefined;

  take(): SharedArrayBuffer | undefined {
    const memory = this.free.pop();
    if (memory) {
      this.taken++;
      return memory;
    }
    if (this.taken >= AGAIN_WRITINGS) return undefined;
    this.taken++;
    return new SharedArrayBuffer(AGAIN_SLOTS * AGAIN_SLOT_BYTES);
  }

  /** A memory back: nothing reads or writes it any more. */
  give(memory: SharedArrayBuffer): void {
    this.taken--;
    this.free.push(memory);
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      this.free.length = 0;
    }, SPARE_KEPT_MS).unref();
  }
}

type Reply = Extract<DecoderReply, { kind: "again" }>;

interface Writing {
  worker: Worker;
  memory: SharedArrayBuffer;
  /** Replies come in order: those not yet taken by next(). */
  replies: Reply[];
  /** The next() waiting for a reply. */
  waiting: ((reply: Reply | undefined) => void) | undefined;
  /** Once not "more", every next() says so. */
  state: AgainState;
  closed: boolean;
  /**
   * Slots handed out by next() and not handed back yet (a socket may still read them), and slots asked
   * to be filled and not answered yet (the thread may still write them; none once it ended): the memory
   * is reused for another writing only once both are none.
   */
  out: number;
  asked: number;
  /** Once closed, forgets the writing when out and asked are none (and keeps its memory for the next). */
  settle(): void;
  /** The time limit of a next() waiting for the thread to fill a slot asked for. */
  timer: NodeJS.Timeout | undefined;
  armTimer(): void;
}

/** The writings in flight with one pool's streaming thread. */
export class LinesAgainClient {
  private readonly writings = new Map<number, Writing>();
  private nextId = 1;
  private readonly memories = new SlotMemories();

  /** Begins writing the family packed as `hash` again in `worker`; undefined when AGAIN_WRITINGS are under way. */
  begin(worker: Worker, hash: string): LinesWrittenAgain | undefined {
    const memory = this.memories.take();
    if (!memory) return undefined;
    const id = this.nextId++;
    const writing: Writing = {
      worker,
      memory,
      replies: [],
      waiting: undefined,
      state: "more",
      closed: false,
      out: 0,
      asked: 0,
      timer: undefined,
      armTimer: () => {
        if (!writing.waiting || writing.asked === 0 || writing.timer) return;
        writing.timer = setTimeout(() => writing.waiting?.(undefined), AGAIN_WAIT_MS);
      },
      settle: () => {
        if (!writing.closed || writing.out > 0 || writing.asked > 0 || this.writings.get(id) !== writing) return;
        this.writings.delete(id);
        this.memories.give(memory);
      },
    };
    this.writings.set(id, writing);
    const fill = (slot: number) => {
      const request: DecoderRequest = { kind: "again", id, hash, slot, ...(slot === 0 ? { memory } : {}) };
      writing.asked++;
      worker.postMessage(request);
      writing.armTimer();
    };
    for (let slot = 0; slot < AGAIN_SLOTS; slot++) fill(slot);
    const written = (slot: number) => {
      writing.out--;
      if (!writing.closed && writing.state === "more") fill(slot);
      writing.settle();
    };
    const stop = (state: AgainState) => {
      writing.state = state;
      return state === "done" ? null : undefined;
    };
    return {
      next: async (): Promise<AgainPiece | null | undefined> => {
        if (writing.state !== "more" || writing.closed) return writing.state === "done" ? null : undefined;
        const reply = writing.replies.shift() ?? (await this.nextReply(writing));
        if (!reply) return stop("stopped");
        if (reply.length === 0) return stop(reply.state);
        if (reply.state !== "more") writing.state = reply.state;
        writing.out++;
        const bytes = new Uint8Array(memory, reply.slot * AGAIN_SLOT_BYTES, reply.length);
        let handedBack = false;
        return {
          bytes,
          written: () => {
            if (handedBack) return;
            handedBack = true;
            written(reply.slot);
          },
        };
      },
      close: () => {
        if (writing.closed) return;
        writing.closed = true;
        writing.waiting?.(undefined);
        worker.postMessage({ kind: "again-end", id } satisfies DecoderRequest);
        writing.settle();
      },
    };
  }

  /**
   * The writing's next reply; undefined if the thread, asked to fill a slot, does not answer within
   * AGAIN_WAIT_MS, or the writing was closed. While the response holds every slot (a slow client), the
   * wait is the response's, not the thread's: no time limit until a slot went back to be filled.
   */
  private nextReply(writing: Writing): Promise<Reply | undefined> {
    return new Promise((resolve) => {
      writing.waiting = (reply) => {
        clearTimeout(writing.timer);
        writing.timer = undefined;
        writing.waiting = undefined;
        resolve(reply);
      };
      writing.armTimer();
    });
  }

  /** A reply of the thread. */
  receive(reply: Reply): void {
    const writing = this.writings.get(reply.id);
    if (!writing) return;
    writing.asked--;
    if (writing.closed) writing.settle();
    else if (writing.waiting) writing.waiting(reply);
    else writing.replies.push(reply);
  }

  /** The thread ended: its writings stop where they are. */
  lost(worker: Worker): void {
    for (const writing of this.writings.values()) {
      if (writing.worker !== worker) continue;
      writing.closed = true;
      writing.state = "stopped";
      writing.asked = 0; // no answer comes now
      writing.waiting?.(undefined);
      writing.settle(); // its memory back once the response took what it holds
    }
  }
}
