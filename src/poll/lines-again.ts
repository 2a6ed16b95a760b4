import { TargetTable } from "../convert/target-table.js";
import { writeValue } from "../exposition/value-bytes.js";
import type { LinesArena, LinesBatch } from "../lib/lines-arena.js";

// A plain scrape's per-target families written again by the decoder thread that wrote them, from the
// table it keeps (its labels in the line writer's memory, its values), rather than inflated from their
// gzip members: the line writer writes a 100k-target family (12 MB) in a few ms, where inflating it
// takes ~30 ms of the thread pool (and four times that for a whole plain scrape). The main thread asks
// for the lines a buffer at a time (lines-again-client.ts).
//
// The bytes are the packed family's as long as its table has not begun another poll: the values and
// the labels' places change only in a poll (target-table.ts), and a family is found by the name its
// lines were packed under, which is never given to other bytes. From the moment a poll begins, writing
// stops where it is, and the scrape inflates the rest from the members.

/** How a writing goes on: more lines to write, all written, or stopped (the rest comes from the members). */
export type AgainState = "more" | "done" | "stopped";

interface Writing {
  table: TargetTable;
  arena: LinesArena;
  order: Uint32Array;
  batch: LinesBatch;
  start: Uint8Array;
  /** The table's polls when the writing began. */
  polls: number;
  next: number;
  state: AgainState;
  /** Where its lines go: slots of AGAIN_SLOT_BYTES, shared with the main thread. */
  memory: SharedArrayBuffer;
}

/** A slot of a writing's memory: lines longer than this are not written again (the members have them). */
export const AGAIN_SLOT_BYTES = 2 ** 20;

/** Writings at once; beyond, the oldest is forgotten (its scrape inflates the rest). */
export const MAX_WRITINGS = 64;

/** Lines [first, first + n) of family v, in `order`, as the line writer takes them. */
function batchOf(table: TargetTable, order: Uint32Array, v: number): LinesBatch {
  // The table's arrays themselves (a method call per line and value cost more than writing the lines):
  // valid while no poll began, which fill() checks before each batch. Taken at each batch, not once: a
  // poll that lays the series out anew replaces them, and a writing left unended must not keep old ones.
  return (first, n, offsets, lengths, values) => {
    const { places, placeStride, values: kept, valueStride } = table.seriesArrays();
    for (let j = 0; j < n; j++) {
      const s = order[first + j] as number;
      offsets[j] = places[s * placeStride] as number;
      lengths[j] = places[s * placeStride + 1] as number;
      values[j] = kept[s * valueStride + v] as number;
    }
  };
}

/** The writings of a decoder thread, from the tables it keeps now (`tables`: whatever its memory holds). */
export class LinesAgain {
  private readonly writings = new Map<number, Writing | undefined>();

  constructor(private readonly tables: () => Iterable<unknown>) {}

  /**
   * Writes the next lines of writing `id` (of the family packed as `hash`) into slot `slot` of its
   * memory (given with its first request).
   */
  fill(id: number, hash: string, slot: number, memory?: SharedArrayBuffer): { length: number; state: AgainState } {
    if (!this.writings.has(id)) {
      // Only a writing's first request begins it: a later one for a writing forgotten here stops.
      if (!memory) return { length: 0, state: "stopped" };
      this.writings.set(id, this.begin(hash, memory));
      if (this.writings.size > MAX_WRITINGS) this.writings.delete(this.writings.keys().next().value as number);
    }
    const writing = this.writings.get(id);
    if (writing?.state !== "more") return { length: 0, state: writing?.state ?? "stopped" };
    if (!(Number.isInteger(slot) && slot >= 0 && slot < Math.floor(writing.memory.byteLength / AGAIN_SLOT_BYTES))) {
      writing.state = "stopped";
      return { length: 0, state: "stopped" };
    }
    const out = new Uint8Array(writing.memory, slot * AGAIN_SLOT_BYTES, AGAIN_SLOT_BYTES);
    if (writing.table.polls !== writing.polls) {
      writing.state = "stopped";
      return { length: 0, state: "stopped" };
    }
    const count = writing.order.length;
    const { next, length } = writing.arena.fill(writing.start, count, writing.batch, writing.next, out, writeValue);
    writing.next = next;
    if (next >= count) writing.state = "done";
    else if (length === 0) writing.state = "stopped"; // a line longer than `out`
    return { length, state: writing.state };
  }

  /**
   * Stops writing `id` where it is: a poll is being read, which comes first (the scrape inflates the
   * rest in the thread pool).
   */
  stop(id: number): { length: number; state: AgainState } {
    const writing = this.writings.get(id);
    if (writing) writing.state = "stopped";
    return { length: 0, state: "stopped" };
  }

  /** Forgets writing `id`. */
  end(id: number): void {
    this.writings.delete(id);
  }

  /** The writing of the family packed as `hash`, if a table kept now (so in no poll) last packed it. */
  private begin(hash: string, memory: SharedArrayBuffer): Writing | undefined {
    for (const table of this.tables()) {
      if (!(table instanceof TargetTable)) continue;
      const v = table.packedAs.findIndex((packed) => packed?.hash === hash);
      const arena = table.linesArena;
      if (v < 0 || !arena) continue;
      const order = table.order;
      const start = (table.packedAs[v] as { start: Uint8Array }).start;
      const batch = batchOf(table, order, v);
      return { table, arena, order, batch, start, polls: table.polls, next: 0, state: "more", memory };
    }
    return undefined;
  }
}
