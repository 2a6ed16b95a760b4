import type { Worker } from "node:worker_threads";
import type { AgainPiece, LinesWrittenAgain } from "../exposition/unpack.js";
import type { DecoderReply, DecoderRequest } from "./decoder-messages.js";
import { AGAIN_SLOTS, type AgainState } from "./lines-again.js";

// The main thread's side of writing a plain scrape's per-target families again in the decoder thread
// (lines-again.ts). A writing has AGAIN_SLOTS slots of the thread's line writer memory, which is
// shared: the thread fills one, the response writes it from where it is, and it goes back to the thread
// once the response took it, so no bytes are copied or allocated per piece (moving ArrayBuffers back and
// forth instead set off garbage collections in both threads), and a slow client holds no more than the
// slots. The thread keeps a writing's slots its own until told it ended, which is said only once the
// response holds none and none is being filled. A thread that does not answer within AGAIN_WAIT_MS
// (busy finishing a poll) leaves the rest to the members, as does a thread that ends. A table has slots
// for AGAIN_WRITINGS writings; with all of them under way, a writing waits for one to end and asks again,
// within AGAIN_WAIT_MS: eight scrapers, each going on to its next family while the last pieces of the one
// before are still in its socket, briefly hold more writings than that, and inflating a family costs
// far more than that wait.

/** How long a writing waits for the thread's next lines before it leaves the rest to the members. */
export const AGAIN_WAIT_MS = 200;

type Reply = Extract<DecoderReply, { kind: "again" }>;

interface Writing {
  worker: Worker;
  /** The thread's memory the slots are in: with the answer to the first request. */
  memory: SharedArrayBuffer | undefined;
  /** Replies come in order: those not yet taken by next(). */
  replies: Reply[];
  /** The next() waiting for a reply. */
  waiting: ((reply: Reply | undefined) => void) | undefined;
  /** Once not "more", every next() says so. */
  state: AgainState;
  closed: boolean;
  /** The thread ended: nothing is said to it any more. */
  lost: boolean;
  /**
   * Slots handed out by next() and not handed back yet (a socket may still read them), and slots asked
   * to be filled and not answered yet (the thread may still write them; none once it ended): the
   * thread is told the writing ended, so its slots may be another's, only once both are none.
   */
  out: number;
  asked: number;
  /** Once closed, ends the writing when out and asked are none. */
  settle(): void;
  /** The time limit of a next() waiting for the thread to fill a slot asked for. */
  timer: NodeJS.Timeout | undefined;
  armTimer(): void;
  /** Ends a wait for another writing to end (the writing was closed). */
  wake: (() => void) | undefined;
}

/** The writings in flight with one pool's streaming thread. */
export class LinesAgainClient {
  private readonly writings = new Map<number, Writing>();
  private nextId = 1;
  /** Called when a writing with a thread ended, or the thread did. */
  private readonly onEnd = new Map<Worker, Set<() => void>>();
  /** Writings with a thread that ended (slots freed there), counted. */
  private readonly ends = new WeakMap<Worker, number>();

  /** Begins writing the family packed as `hash` again in `worker`. */
  begin(worker: Worker, hash: string): LinesWrittenAgain {
    // A new id when asked again after "full": replies to the attempt before are not this one's.
    let id = this.nextId++;
    const writing: Writing = {
      worker,
      memory: undefined,
      replies: [],
      waiting: undefined,
      state: "more",
      closed: false,
      lost: false,
      out: 0,
      asked: 0,
      timer: undefined,
      wake: undefined,
      armTimer: () => {
        if (!writing.waiting || writing.asked === 0 || writing.timer) return;
        writing.timer = setTimeout(() => writing.waiting?.(undefined), AGAIN_WAIT_MS);
      },
      settle: () => {
        if (!writing.closed || writing.out > 0 || writing.asked > 0 || this.writings.get(id) !== writing) return;
        this.writings.delete(id);
        if (!writing.lost) worker.postMessage({ kind: "again-end", id } satisfies DecoderRequest);
        // Only a writing the thread began frees slots there (one told "full" or stopped held none).
        if (writing.memory) this.ended(worker);
      },
    };
    const fill = (slot: number, first = false) => {
      const request: DecoderRequest = { kind: "again", id, hash, slot, ...(first ? { first } : {}) };
      writing.asked++;
      worker.postMessage(request);
      writing.armTimer();
    };
    /** Writings with the thread ended when the last attempt was sent: one ending before its "full" came counts. */
    let endsWhenAsked = 0;
    const start = () => {
      endsWhenAsked = this.ends.get(worker) ?? 0;
      this.writings.set(id, writing);
      for (let slot = 0; slot < AGAIN_SLOTS; slot++) fill(slot, slot === 0);
    };
    start();
    const askedBy = performance.now() + AGAIN_WAIT_MS;
    /** After "full": waits for another writing with the thread to end, then asks again; false if it may not. */
    const askAgain = async (): Promise<boolean> => {
      const left = askedBy - performance.now();
      if (left <= 0 || writing.closed) return false;
      const endedMeanwhile = (this.ends.get(worker) ?? 0) !== endsWhenAsked;
      const ended =
        endedMeanwhile ||
        (await new Promise<boolean>((resolve) => {
          const listeners = this.onEnd.get(worker) ?? new Set();
          this.onEnd.set(worker, listeners);
          const done = (another: boolean) => {
            clearTimeout(timer);
            listeners.delete(listener);
            if (listeners.size === 0 && this.onEnd.get(worker) === listeners) this.onEnd.delete(worker);
            writing.wake = undefined;
            resolve(another);
          };
          const listener = () => done(true);
          const timer = setTimeout(() => done(false), left);
          listeners.add(listener);
          writing.wake = () => done(false);
        }));
      if (!ended || writing.closed || writing.lost) return false;
      this.writings.delete(id);
      id = this.nextId++;
      writing.asked = 0;
      writing.replies = [];
      start();
      return true;
    };
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
        let reply = writing.replies.shift() ?? (await this.nextReply(writing));
        while (reply?.state === "full") {
          if (!(await askAgain())) return stop("stopped");
          reply = writing.replies.shift() ?? (await this.nextReply(writing));
        }
        if (!reply || !writing.memory) return stop("stopped");
        if (reply.length === 0) return stop(reply.state);
        if (reply.state !== "more") writing.state = reply.state;
        writing.out++;
        const bytes = new Uint8Array(writing.memory, reply.at, reply.length);
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
        writing.wake?.();
        writing.settle();
      },
    };
  }

  /**
   * A writing with `worker` ended: the writing that has waited longest for one asks again (one ended
   * frees one writing's slots: waking every waiting one, each asking the thread again, would be a
   * message storm under a flood of scrapes). The thread ended: every waiting writing gives up.
   */
  private ended(worker: Worker, all = false): void {
    this.ends.set(worker, (this.ends.get(worker) ?? 0) + 1);
    const listeners = [...(this.onEnd.get(worker) ?? [])];
    for (const listener of all ? listeners : listeners.slice(0, 1)) listener();
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
    if (reply.memory) writing.memory = reply.memory;
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
      writing.lost = true;
      writing.state = "stopped";
      writing.asked = 0; // no answer comes now
      writing.waiting?.(undefined);
      writing.settle(); // forgotten once the response took what it holds
    }
    this.ended(worker, true);
  }
}
