import { FAMILY_LINES_MODULE } from "./family-lines-module.js";
import { compiledOnce, instantiate, sharedMemory, type WasmMemory } from "./wasm-module.js";

// Bytes appended one block after another (a target table's rendered labels), and, where WebAssembly
// runs, kept in the memory of the line writer (assembly/family-lines.ts), which writes a family's lines
// from them at memory-copy speed: `start`, a block, `} `, a value and a newline per line, about four
// times as fast as the same loop in JavaScript. Without WebAssembly (node --jitless) the blocks are in a
// Buffer and the caller writes its lines itself.
//
// The memory is shared: lines written into one of its slots are read by another thread where they
// are (a plain scrape's lines written again, poll/lines-again.ts), not copied out first (a 100k-target
// plain scrape's 62 MB copied took ~5 ms of the thread's ~20). Below BASE, its layout is the module's
// (the numbers below are those of assembly/family-lines.ts); then the slots, then the blocks.

/** Where the caller's memory starts: below is the module's own. */
const BASE = 1024;
/**
 * Slots of the memory lines are written into for another thread to read (fillSlot). They lie below the
 * blocks, so nothing the arena does (a poll's blocks, the writing of a poll's lines after them) writes
 * over a slot another thread may still read. A slot's pages are the memory's once written (then for good:
 * a memory gives no pages back); one never written costs address space only.
 */
export const OUT_SLOTS = 24;
/** The first LARGE_SLOTS slots have OUT_SLOT_BYTES, the others half that. */
export const OUT_SLOT_BYTES = 2 ** 20;
const LARGE_SLOTS = 6;

/**
 * Where slot `slot` is in the memory, and its bytes. Lines go over in fewer pieces through a large
 * slot (one scraper's writings take the first ones), and many scrapers at once fit in less memory
 * through small ones: eight families written at once in 15 MiB.
 */
export function slotPlace(slot: number): { at: number; bytes: number } {
  const large = Math.min(slot, LARGE_SLOTS);
  const at = BASE + large * OUT_SLOT_BYTES + (slot - large) * (OUT_SLOT_BYTES / 2);
  return { at, bytes: slot < LARGE_SLOTS ? OUT_SLOT_BYTES : OUT_SLOT_BYTES / 2 };
}
/** Where the blocks start: `bytes` is the memory from here on. */
const BLOCKS = slotPlace(OUT_SLOTS).at;
const NEXT = 0;
const STOPPED = 4;
const ROOM = 1;
const VALUE = 2;
const PAGE = 65536;
/** Bytes the module may write past the room it is given. */
const OVERRUN = 16;
/** Lines handed to the module at a time. */
const BATCH = 4096;
/** A family's start (its name and the source's labels) longer than this keeps no texts (textsPlace). */
const START_ROOM = 65536;
/** Kept texts: 16 bytes a series; the module's modes (assembly/family-lines.ts). */
const TEXT_BYTES = 16;
const KEEP_TEXTS = 1;
const READ_TEXTS = 2;
/** A 32-bit WebAssembly memory's most: 65536 pages. */
const MAX_MEMORY = 65536 * PAGE;

interface Exports {
  lines(
    start: number,
    startLength: number,
    blocks: number,
    offsets: number,
    lengths: number,
    values: number,
    from: number,
    to: number,
    out: number,
    room: number,
    texts: number,
    textsMode: number,
  ): number;
}

/** The module, compiled once per thread; null where WebAssembly is not available. */
const familyLinesModule = compiledOnce(FAMILY_LINES_MODULE);

/** Writes a value's text at `at` (room for the longest there); where the next byte goes. */
export type ValueWriter = (out: Uint8Array, at: number, value: number) => number;

/** The lines of one family: series k's block at `offsets[k]` (`lengths[k]` bytes), its value `values[k]`, NaN for none. */
export interface FamilyBlocks {
  start: Uint8Array;
  offsets: Int32Array;
  lengths: Int32Array;
  values: Float64Array;
}

/** Puts lines [first, first + n)'s block offsets, lengths and values at 0, 1, … of the arrays given. */
export type LinesBatch = (
  first: number,
  n: number,
  offsets: Int32Array,
  lengths: Int32Array,
  values: Float64Array,
) => void;

/**
 * Where a family's values' text is kept from one writing of its lines to the next (textsPlace), and
 * whether this writing keeps it there (else takes it from there).
 */
export interface KeptTexts {
  at: number;
  keep: boolean;
}

/** Bytes appended one block after another; `bytes` holds them from 0 to `used`. */
export interface ByteArena {
  readonly bytes: Buffer;
  readonly used: number;
  /** Room for `n` more bytes; the offset they go at. */
  reserve(n: number): number;
  /** Forgets every block (the memory stays, to be written over). */
  clear(): void;
  /** Bytes of memory it holds (what was ever written of it). */
  readonly held: number;
}

/** An arena in a Buffer of its own, grown by copying into one twice the size. */
export class BufferArena implements ByteArena {
  bytes: Buffer;
  used = 0;

  constructor(size = 4096) {
    this.bytes = Buffer.allocUnsafe(Math.max(size, 4096));
  }

  reserve(n: number): number {
    if (this.used + n > this.bytes.length) {
      const grown = Buffer.allocUnsafe(Math.max(this.bytes.length * 2, this.used + n));
      this.bytes.copy(grown, 0, 0, this.used);
      this.bytes = grown;
    }
    const at = this.used;
    this.used += n;
    return at;
  }

  clear(): void {
    this.used = 0;
  }

  get held(): number {
    return this.bytes.length;
  }
}

/**
 * An arena in the line writer's memory, grown in place (a grown WebAssembly memory keeps its bytes;
 * only the views of it are made again). One instance, so one memory, per arena: it is never given back
 * smaller, which is the arena's own rule too.
 */
export class LinesArena implements ByteArena {
  used = 0;
  /** The most of the blocks' part ever written (blocks, and what writing lines needs after them). */
  private blocksHeld = 0;
  /** Slots ever written (a bit each). */
  private slotsWritten = 0;
  /** Bytes a line, in the last batch written: how many lines to gather for the room left (linesFor). */
  private lineBytes = 64;
  /**
   * The caller's part of the memory. Made again whenever ensure() grows the memory (which detaches the
   * views of it): nothing else grows it, the module allocating nothing of its own. A plain field, as the
   * table reads it for every target (asking the memory for its buffer each time cost ~6 ms per 100k).
   */
  bytes: Buffer;

  private constructor(
    private readonly memory: WasmMemory,
    private readonly exports: Exports,
  ) {
    this.bytes = this.makeView();
  }

  /** An arena in the line writer's memory, or undefined where WebAssembly does not run (or has no memory left). */
  static create(): LinesArena | undefined {
    const module = familyLinesModule();
    if (!module) return undefined;
    try {
      // A shared memory's most is set when it is made (its address space is taken then, not its pages).
      const memory = sharedMemory(Math.ceil((BLOCKS + 4096) / PAGE), MAX_MEMORY / PAGE);
      return new LinesArena(memory, instantiate<Exports>(module, { env: { memory } }));
    } catch {
      return undefined;
    }
  }

  /** The memory, to be read by other threads: its bytes never move, however it grows. */
  get shared(): SharedArrayBuffer {
    return this.memory.buffer as SharedArrayBuffer;
  }

  /** Bytes of memory it holds: what was ever written of the blocks' part and of the slots. */
  get held(): number {
    let slots = 0;
    for (let slot = 0; slot < OUT_SLOTS; slot++) if (this.slotsWritten & (1 << slot)) slots += slotPlace(slot).bytes;
    return this.blocksHeld + slots;
  }

  private makeView(): Buffer {
    const memory = this.memory.buffer;
    return Buffer.from(memory, BLOCKS, memory.byteLength - BLOCKS);
  }

  /** Grows the memory so that the blocks' part holds at least `bytes`. */
  private ensure(bytes: number): void {
    const have = this.bytes.length;
    if (bytes <= have) return;
    if (bytes > MAX_MEMORY - BLOCKS) throw new RangeError("more than the line writer's memory can hold (4 GiB)");
    // Doubled, but never past what a 32-bit memory can hold: past 2 GiB, doubling alone would fail a
    // grow that fits.
    const want = Math.min(Math.max(bytes, have * 2), MAX_MEMORY - BLOCKS);
    this.memory.grow(Math.ceil((want - have) / PAGE));
    this.bytes = this.makeView();
  }

  reserve(n: number): number {
    this.ensure(this.used + n);
    const at = this.used;
    this.used += n;
    this.blocksHeld = Math.max(this.blocksHeld, this.used);
    return at;
  }

  clear(): void {
    this.used = 0;
  }

  /**
   * Where writing lines puts its start, a batch's offsets, lengths and values, and its output of `room`
   * bytes: at `out` (a slot) if given, else after the rest.
   */
  private scratch(start: Uint8Array, room: number, out?: number) {
    // After the blocks: the start, then a batch's offsets and lengths (i32) and values (f64), and the
    // output. Lines go over in batches, so what writing them leaves touched (a memory never gives pages
    // back) is the same few KiB whatever the family's size, not 16 bytes per series (8 MB at 500k).
    const startAt = BLOCKS + align(this.used, 8);
    const offsetsAt = startAt + align(start.length, 8);
    const lengthsAt = offsetsAt + 4 * BATCH;
    const valuesAt = lengthsAt + 4 * BATCH;
    const outAt = out ?? valuesAt + 8 * BATCH;
    // The line writer may write up to 16 bytes past its room, and read as far past a block or the start
    // (assembly/family-lines.ts, copy): what follows the blocks is this scratch, then the room and those 16.
    const end = (out === undefined ? outAt + room : valuesAt + 8 * BATCH) + OVERRUN;
    this.ensure(end - BLOCKS);
    this.blocksHeld = Math.max(this.blocksHeld, end - BLOCKS);
    const memory = this.memory.buffer;
    const bytes = new Uint8Array(memory);
    bytes.set(start, startAt);
    return {
      memory,
      bytes,
      outAt,
      offsets: new Int32Array(memory, offsetsAt, BATCH),
      lengths: new Int32Array(memory, lengthsAt, BATCH),
      values: new Float64Array(memory, valuesAt, BATCH),
      results: new Int32Array(memory, 0, 2),
      /**
       * Writes lines [j, count) of the batch at `out`, at most `room` bytes, the batch's kept texts (if
       * any) at `texts`; the bytes written.
       */
      lines: (j: number, count: number, out: number, room: number, texts = 0, mode = 0) =>
        this.exports.lines(
          startAt,
          start.length,
          BLOCKS,
          offsetsAt,
          lengthsAt,
          valuesAt,
          j,
          count,
          out,
          room,
          texts,
          mode,
        ),
    };
  }

  /**
   * A family's lines in pieces of whole lines, at most `pieceBytes` each unless one line is longer (then
   * a piece of its own). Each piece is a view of the arena's memory, written over by the next: it is the
   * consumer's only until it asks for the next one. Lines whose value needs JavaScript's formatting, and
   * lines longer than a piece, are written by `writeValue` and JavaScript.
   */
  *pieces(family: FamilyBlocks, pieceBytes: number, writeValue: ValueWriter): Generator<Uint8Array> {
    const { start, offsets, lengths, values } = family;
    const n = values.length;
    const batch: LinesBatch = (first, count, batchOffsets, batchLengths, batchValues) => {
      batchOffsets.set(offsets.subarray(first, first + count));
      batchLengths.set(lengths.subarray(first, first + count));
      batchValues.set(values.subarray(first, first + count));
    };
    for (let k = 0; k < n; ) {
      const written = this.writeLines(start, n, batch, k, pieceBytes, writeValue);
      k = written.next;
      if (written.length > 0) {
        yield Buffer.from(written.memory, written.at, written.length);
        continue;
      }
      if (k >= n) break; // the lines left have no value
      // Line k is longer than a piece: a piece of its own, written in JavaScript.
      yield this.line(start, offsets[k] as number, lengths[k] as number, values[k] as number, writeValue);
      k++;
    }
  }

  /**
   * Writes a family's lines from line `from` on into slot `slot` of the memory (at most `room` bytes,
   * and never more than a slot less the line writer's overrun; the values' text kept or taken as
   * `texts` says), as many whole lines as fit, and says
   * which line comes next (`count` when none is left), where the bytes are in `shared` and how many.
   * `batch` puts lines [first, first + n)'s block offsets, lengths and values into the arrays it is
   * given. Nothing is kept between calls, so writings of several families may take turns, and with the
   * lines a poll writes; nothing but this call writes a slot. A line longer than the room is never
   * written: the call then writes nothing and says it comes next.
   */
  fillSlot(
    start: Uint8Array,
    count: number,
    batch: LinesBatch,
    from: number,
    slot: number,
    writeValue: ValueWriter,
    { room = OUT_SLOT_BYTES, texts }: { room?: number; texts?: KeptTexts | undefined } = {},
  ): { next: number; at: number; length: number } {
    if (!(Number.isInteger(slot) && slot >= 0 && slot < OUT_SLOTS)) throw new RangeError(`no slot ${slot}`);
    const { at, bytes } = slotPlace(slot);
    // Its 16 bytes of overrun inside the slot: the next slot may be another thread's to read.
    const fits = Math.min(room, bytes - OVERRUN);
    this.slotsWritten |= 1 << slot;
    if (texts) {
      // The module reads and writes 16 bytes at a time: the last text's too.
      const end = texts.at + count * TEXT_BYTES + OVERRUN;
      this.ensure(end - BLOCKS);
      if (texts.keep) this.blocksHeld = Math.max(this.blocksHeld, end - BLOCKS);
    }
    const { next, length } = this.writeLines(start, count, batch, from, fits, writeValue, at, texts);
    return { next, at, length };
  }

  /**
   * Where family `family`'s values' text may be kept (`count` series a family, 16 bytes each): after the
   * blocks and what writing lines needs after them, so only a poll writes over it (the blocks moving, or
   * its own writing of lines); undefined for a start longer than its room there.
   */
  textsPlace(family: number, count: number, start: Uint8Array): number | undefined {
    if (start.length > START_ROOM) return undefined;
    const scratchEnd = BLOCKS + align(this.used, 8) + START_ROOM + 16 * BATCH + OVERRUN;
    return align(scratchEnd, TEXT_BYTES) + family * count * TEXT_BYTES;
  }

  /**
   * Writes lines `from`, `from + 1`, … into the memory after the blocks, as many whole lines as fit in
   * `room`: where they are (`at` in `memory`), how many bytes, and the line to write next. A line whose
   * value needs JavaScript's formatting is written by `writeValue`; one longer than `room` is not written.
   */
  private writeLines(
    start: Uint8Array,
    count: number,
    batch: LinesBatch,
    from: number,
    room: number,
    writeValue: ValueWriter,
    out?: number,
    texts?: KeptTexts,
  ) {
    const { memory, bytes, outAt, results, lines, offsets, lengths, values } = this.scratch(start, room, out);
    const mode = texts ? (texts.keep ? KEEP_TEXTS : READ_TEXTS) : 0;
    let length = 0;
    let k = from;
    let full = false;
    while (k < count && !full) {
      const n = Math.min(BATCH, count - k, this.linesFor(room - length));
      batch(k, n, offsets, lengths, values); // offsets from BLOCKS, as the blocks are reserved: the module adds it
      const before = length;
      let j = 0; // within the batch, which is gathered once however many lines JavaScript writes
      while (j < n) {
        length += lines(j, n, outAt + length, room - length, texts ? texts.at + k * TEXT_BYTES : 0, mode);
        j = results[NEXT / 4] as number;
        const stopped = results[STOPPED / 4] as number;
        full = stopped === ROOM;
        if (stopped !== VALUE) break; // the batch is written, or the room is full
        const line = this.line(start, offsets[j] as number, lengths[j] as number, values[j] as number, writeValue);
        full = length + line.length > room;
        if (full) break;
        bytes.set(line, outAt + length);
        length += line.length;
        j++;
      }
      if (j > 0) this.lineBytes = Math.max(1, (length - before) / j);
      k += j;
    }
    return { next: k, length, memory, at: outAt };
  }

  /**
   * Lines to gather for `room` bytes: about as many as fill it, going by the last batch's lines, and a
   * few more. Lines gathered past a full room are gathered again by the next call: a whole batch
   * (4096) for a slot of ~4000 lines had half of every writing's gathering done twice.
   */
  private linesFor(room: number): number {
    return Math.ceil(room / this.lineBytes) + 16;
  }

  /** A line written in JavaScript into memory of its own: `start`, the block, `} `, the value, a newline. */
  private line(start: Uint8Array, block: number, length: number, value: number, writeValue: ValueWriter): Buffer {
    const out = Buffer.allocUnsafe(start.length + length + 3 + MAX_TEXT_BYTES);
    out.set(start, 0);
    let at = start.length + this.bytes.copy(out, start.length, block, block + length);
    out[at++] = 0x7d; // }
    out[at++] = 0x20; // space
    at = writeValue(out, at, value);
    out[at++] = 0x0a;
    return out.subarray(0, at);
  }
}

/** Room left for a value's text in a line written in JavaScript (more than the longest, value-bytes.ts). */
const MAX_TEXT_BYTES = 32;

const align = (n: number, to: number) => Math.ceil(n / to) * to;

/** An arena in the line writer's memory where WebAssembly runs, else in a Buffer. */
export const newArena = (): ByteArena => LinesArena.create() ?? new BufferArena();
