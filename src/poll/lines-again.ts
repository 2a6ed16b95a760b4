import { TargetTable } from "../convert/target-table.js";
import { writeValue } from "../exposition/value-bytes.js";
import { type KeptTexts, type LinesArena, type LinesBatch, OUT_SLOT_BYTES, OUT_SLOTS } from "../lib/lines-arena.js";

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
//
// The lines go into slots of the table's own line writer memory, shared with the main thread, which
// sends them from there (lines-arena.ts): a writing has AGAIN_SLOTS of them, its own until the main
// thread ends it, which it does only once it reads none of them and asked for none to be filled.
//
// A family whose values vary from series to series (timestamps, durations) has their text kept in the
// table's memory by its first writing after a poll, and taken from there by the next ones: making the
// text was most of the cost of writing such a family (lines-arena.ts, KeptTexts).

/**
 * How a writing goes on: more lines to write, all written, or stopped (the rest comes from the members);
 * or, to a writing's first request only, full: its table's writings are all under way, and once one of
 * them ended it may be asked again.
 */
export type AgainState = "more" | "done" | "stopped" | "full";

interface Writing {
  table: TargetTable;
  arena: LinesArena;
  /** Its slots of the arena's memory: AGAIN_SLOTS from this one on. */
  firstSlot: number;
  /** The family's index in the table, and where its values' text is kept, if it is. */
  family: number;
  texts: KeptTexts | undefined;
  textsOf: TableTexts | undefined;
  order: Uint32Array;
  batch: LinesBatch;
  start: Uint8Array;
  /** The table's polls when the writing began. */
  polls: number;
  next: number;
  state: AgainState;
}

/** Slots a writing has: one read by the response while the others are filled. */
export const AGAIN_SLOTS = 3;
/** A large slot's bytes (a writing's slots are all large or all half that, lines-arena.ts): lines longer than its slots are not written again (the members have them). */
export const AGAIN_SLOT_BYTES = OUT_SLOT_BYTES;
/** Writings of one table's lines at once: beyond, a scrape's family is inflated. */
export const AGAIN_WRITINGS = Math.floor(OUT_SLOTS / AGAIN_SLOTS);

/** What a request to fill a slot wrote: `length` bytes at `at` in the memory (given with a writing's first answer). */
export interface Filled {
  length: number;
  state: AgainState;
  at: number;
  memory?: SharedArrayBuffer;
}

const STOPPED: Filled = { length: 0, state: "stopped", at: 0 };
const FULL: Filled = { length: 0, state: "full", at: 0 };

/** A table's families whose values' text is kept ("kept"), being kept by a writing, or not to be kept, for one poll of it. */
interface TableTexts {
  polls: number;
  families: Map<number, "kept" | "keeping" | "not">;
}

/**
 * Whether family v's values vary from series to series, in the order its lines are written: one value
 * for all (an interval) has its text made once a writing anyway (assembly/family-lines.ts keeps the last).
 */
function variedValues(table: TargetTable, order: Uint32Array, v: number): boolean {
  const { values, valueStride } = table.seriesArrays();
  let changes = 0;
  let last = Number.NaN;
  for (let k = 0; k < order.length; k++) {
    const value = values[(order[k] as number) * valueStride + v] as number;
    if (Number.isNaN(value) || value === last) continue;
    changes++;
    last = value;
  }
  return changes * 4 > order.length;
}

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
  /** Writings under way: each holds its slots until ended. */
  private readonly writings = new Map<number, Writing>();
  /** Per memory, which writings' slots are taken (a bit each). */
  private readonly taken = new WeakMap<LinesArena, number>();
  private readonly texts = new WeakMap<TargetTable, TableTexts>();

  constructor(private readonly tables: () => Iterable<unknown>) {}

  /**
   * Writes the next lines of writing `id` (of the family packed as `hash`) into its slot `slot`. Only
   * its `first` request begins a writing, and that answer gives the memory its slots are in.
   */
  fill(id: number, hash: string, slot: number, first = false): Filled {
    if (first && !this.writings.has(id)) {
      const writing = this.begin(hash);
      if (writing === "full") return FULL;
      if (!writing) return STOPPED; // nothing of it kept here: the members have it
      this.writings.set(id, writing);
      return { ...this.write(writing, slot), memory: writing.arena.shared };
    }
    const writing = this.writings.get(id);
    return writing ? this.write(writing, slot) : STOPPED;
  }

  private write(writing: Writing, slot: number): Filled {
    if (writing.state !== "more") return { ...STOPPED, state: writing.state };
    if (!(Number.isInteger(slot) && slot >= 0 && slot < AGAIN_SLOTS) || writing.table.polls !== writing.polls) {
      writing.state = "stopped";
      return STOPPED;
    }
    const count = writing.order.length;
    const { batch, start, texts } = writing;
    const arenaSlot = writing.firstSlot + slot;
    const written = writing.arena.fillSlot(start, count, batch, writing.next, arenaSlot, writeValue, { texts });
    writing.next = written.next;
    if (written.next >= count) writing.state = "done";
    else if (written.length === 0) writing.state = "stopped"; // a line longer than a slot
    if (writing.state === "done" && texts?.keep) writing.textsOf?.families.set(writing.family, "kept");
    return { length: written.length, state: writing.state, at: written.at };
  }

  /**
   * Stops writing `id` where it is: a poll is being read, which comes first (the scrape inflates the
   * rest in the thread pool).
   */
  stop(id: number): Filled {
    const writing = this.writings.get(id);
    if (writing) writing.state = "stopped";
    return STOPPED;
  }

  /** Ends writing `id`: nothing reads its slots any more, and none is being filled. */
  end(id: number): void {
    const writing = this.writings.get(id);
    if (!writing) return;
    this.writings.delete(id);
    // Texts kept only in part: a later writing keeps them again.
    const { textsOf, family } = writing;
    if (writing.texts?.keep && textsOf?.families.get(family) === "keeping") textsOf.families.delete(family);
    const group = writing.firstSlot / AGAIN_SLOTS;
    this.taken.set(writing.arena, (this.taken.get(writing.arena) ?? 0) & ~(1 << group));
  }

  /**
   * The writing of the family packed as `hash`, if a table kept now (so in no poll) last packed it and
   * its memory has slots free ("full" if it has none).
   */
  private begin(hash: string): Writing | "full" | undefined {
    for (const table of this.tables()) {
      if (!(table instanceof TargetTable)) continue;
      const v = table.packedAs.findIndex((packed) => packed?.hash === hash);
      const arena = table.linesArena;
      if (v < 0 || !arena) continue;
      const taken = this.taken.get(arena) ?? 0;
      let group = 0;
      while (group < AGAIN_WRITINGS && taken & (1 << group)) group++;
      if (group >= AGAIN_WRITINGS) return "full";
      this.taken.set(arena, taken | (1 << group));
      const order = table.order;
      const start = (table.packedAs[v] as { start: Uint8Array }).start;
      const batch = batchOf(table, order, v);
      const firstSlot = group * AGAIN_SLOTS;
      const textsOf = this.textsOf(table);
      const texts = this.keptTexts(textsOf, table, arena, v, start);
      const polls = table.polls;
      return { table, arena, firstSlot, family: v, texts, textsOf, order, batch, start, polls, next: 0, state: "more" };
    }
    return undefined;
  }

  /** What is kept of the texts of `table`'s families, for its poll now. */
  private textsOf(table: TargetTable): TableTexts {
    const known = this.texts.get(table);
    if (known?.polls === table.polls) return known;
    const fresh: TableTexts = { polls: table.polls, families: new Map() };
    this.texts.set(table, fresh);
    return fresh;
  }

  /** Where a writing of family v takes its values' text from, or keeps it; undefined: neither. */
  private keptTexts(
    textsOf: TableTexts,
    table: TargetTable,
    arena: LinesArena,
    v: number,
    start: Uint8Array,
  ): KeptTexts | undefined {
    const known = textsOf.families.get(v);
    if (known === "keeping" || known === "not") return undefined; // another writing keeps them now
    const at = arena.textsPlace(v, table.order.length, start);
    if (at !== undefined && known === "kept") return { at, keep: false };
    if (at === undefined || !variedValues(table, table.order, v)) {
      textsOf.families.set(v, "not");
      return undefined;
    }
    textsOf.families.set(v, "keeping");
    return { at, keep: true };
  }
}
