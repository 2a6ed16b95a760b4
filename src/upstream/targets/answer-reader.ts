import type { ActiveTarget, TargetsResponse } from "../payloads.js";
import { WasmTargetReader } from "../wasm/wasm-target-reader.js";
import {
  BACKSLASH,
  type Bytes,
  CLOSE_ARRAY,
  CLOSE_OBJECT,
  COLON,
  COMMA,
  GUARD,
  giveUp,
  isDigit,
  isWhitespace,
  KeySet,
  OPEN_ARRAY,
  OPEN_OBJECT,
  QUOTE,
} from "./json-bytes.js";
import { DATA, Scanner, TARGET_FIELDS, TOP } from "./scanner.js";
import { TargetRead } from "./target-read.js";

// A single pass over the bytes of a `/api/v1/targets` answer that keeps only what is converted. Most of
// an answer (discoveredLabels, scrapeUrl, globalUrl, the labels nobody reads) is checked as JSON and
// dropped without becoming strings or objects: JSON.parse of a 100k-target answer builds ~200 MB of
// objects that the garbage collector then spends more time on than the parse itself.
//
// It is a fast path, not a second parser to trust: whenever the answer is not in the plain shape it
// handles (not valid JSON, a field of an unexpected type, a duplicate field) it gives up, and the reference path (JSON.parse and the schema) decides, with its own result
// or error. When it does not give up, its result converts to exactly what the reference's does
// (test/upstream/targets-scanner.test.ts, on recorded answers and random ones).
//
// Its parts, in this folder: json-bytes.ts (bytes, keys, values), target-read.ts (a target as read, its
// strings as spans), scanner.ts (a whole value at a time), and here the reader of the stream.

// --- The answer's skeleton, read as it streams ---
//
// An answer is `{"status":…,"data":{"activeTargets":[…],"droppedTargets":[…],"droppedTargetCounts":…}}`
// in any key order. The reader walks that skeleton byte by byte and hands each whole value in it (a key,
// a target, a dropped target, the counts, anything unknown) to the scanner. A value cut by the end of a
// chunk is carried over: only its bytes are copied, never the answer's, and a value larger than
// MAX_VALUE_BYTES gives up (the reference path, with its own budget, then decides).

/** A value larger than this (a single target, or a member nobody reads) is not streamed. */
export const MAX_VALUE_BYTES = 16 * 2 ** 20;

/** Where the reader is in the skeleton. */
enum Level {
  BeforeTop,
  Top,
  Data,
  Active,
  Dropped,
  AfterTop,
}

/** What the reader expects next at its level. */
enum Expect {
  KeyOrClose,
  Key,
  Colon,
  Value,
  CommaOrClose,
  ElementOrClose,
  Element,
}

/** Where a value ends, found without checking it: the scanner checks a value once it is whole. */
class ValueEnd {
  private depth = 0;
  private inString = false;
  private escaped = false;
  private scalar = false;

  /** Starts at a value's first byte. */
  reset(first: number): void {
    this.depth = 0;
    this.inString = false;
    this.escaped = false;
    this.scalar = first !== QUOTE && first !== OPEN_OBJECT && first !== OPEN_ARRAY;
  }

  /** The index just past the value's end in b[from, to), or -1 if it goes on; resumable. */
  find(b: Uint8Array, from: number, to: number): number {
    if (this.scalar) {
      for (let p = from; p < to; p++) {
        const c = b[p] as number;
        if (c === COMMA || c === CLOSE_OBJECT || c === CLOSE_ARRAY || isWhitespace(c)) return p;
      }
      return -1;
    }
    let { depth, inString, escaped } = this;
    for (let p = from; p < to; p++) {
      const c = b[p] as number;
      if (inString) {
        if (escaped) escaped = false;
        else if (c === BACKSLASH) escaped = true;
        else if (c === QUOTE) {
          inString = false;
          if (depth === 0) return p + 1;
        }
      } else if (c === QUOTE) inString = true;
      else if (c === OPEN_OBJECT || c === OPEN_ARRAY) depth++;
      else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
        if (--depth === 0) return p + 1;
      }
    }
    this.depth = depth;
    this.inString = inString;
    this.escaped = escaped;
    return -1;
  }
}

/** What a whole value in the skeleton is read as. */
enum Read {
  TopKey,
  DataKey,
  Status,
  Skip,
  Null,
  Counts,
  Target,
  DroppedTarget,
  Warnings,
}

const isNumberStart = (c: number) => c === 0x2d || isDigit(c);

/**
 * A targets answer read chunk by chunk, as the schema would give it for the parts the conversion
 * reads; it gives up (result undefined) on anything not in the plain shape it handles, and the
 * reference path then decides. Active targets go to `onTarget` as they are read and are not kept.
 */
export class TargetsAnswerReader {
  private readonly scanner: Scanner;
  private level = Level.BeforeTop;
  private expect = Expect.Value;
  /** The key whose value comes next, at the top or in data (-1: a key nobody reads). */
  private key = -1;
  private topSeen = 0;
  private dataSeen = 0;
  private status = false;
  /**
   * Dropped targets counted by pool as they are read, not kept: a server lists every target it dropped
   * (often many more than it scrapes), and only the count per pool is published.
   */
  private readonly dropped = new Map<string, number>();
  /** Called for each pool first met among the dropped targets, and for each named in droppedTargetCounts. */
  onDroppedPool: () => void = () => {};
  /** Called for each string in the answer's top-level `warnings` (Thanos Query), in order. */
  onWarning: (text: string) => void = () => {};
  private counts: Record<string, number> | null | undefined;
  /** The bytes of a value cut by a chunk's end, and how the value is to be read once whole. */
  private carry = Buffer.alloc(GUARD) as Bytes;
  /** Each chunk's bytes are read here, a piece at a time, with the guard after them: the module's window, or the reader's own. */
  private window: Bytes;
  /** The module's instance for the reader's label names, shared with other readers of them (undefined: none). */
  private readonly wasm: WasmTargetReader | undefined;
  /** The instance while this write() uses it; undefined when the scanner reads every target of it. */
  private wasmNow: WasmTargetReader | undefined;
  private ownWindow: Bytes | undefined;
  /** Active targets the WebAssembly reader read. */
  wasmTargets = 0;
  private carried = 0;
  private carriedRead = Read.Skip;
  private readonly valueEnd = new ValueEnd();
  private failed = false;

  /**
   * Called whenever the bytes the targets handed over so far point into are about to be written again:
   * a consumer that keeps copies of them (TargetRead.copyFrom) is done with them by then. Its errors
   * stop the reader as onTarget's do.
   */
  onBytesLeft: (() => void) | undefined;

  /** The target being read: one object for all of them, handed to `onTarget` when whole. */
  private readonly target: TargetRead;

  constructor(
    labelNames: readonly string[],
    private readonly onTarget: (target: TargetRead) => void,
    private readonly maxValueBytes = MAX_VALUE_BYTES,
    useWasm = true,
  ) {
    this.scanner = new Scanner(new KeySet(labelNames));
    this.target = new TargetRead(labelNames);
    this.wasm = useWasm ? wasmReaderFor(labelNames) : undefined;
    this.window = this.wasm ? (this.wasm.window as Bytes) : this.privateWindow();
  }

  private privateWindow(): Bytes {
    this.ownWindow ??= Buffer.alloc(WINDOW_BYTES + GUARD) as Bytes;
    return this.ownWindow;
  }

  /** Whether the reader has given up (further chunks are ignored). */
  get gaveUp(): boolean {
    return this.failed;
  }

  /** Reads the next chunk; false once the reader has given up. */
  write(chunk: Uint8Array): boolean {
    if (this.failed) return false;
    // The shared window, unless a reader of it is inside its own write() (this one called from its
    // onTarget): its window is then left alone, and the scanner reads this chunk in a window of its own.
    const wasm = this.wasm !== undefined && !this.wasm.busy ? this.wasm : undefined;
    this.wasmNow = wasm;
    this.window = wasm ? (wasm.window as Bytes) : this.privateWindow();
    if (wasm) wasm.busy = true;
    try {
      // Read through the window, a piece at a time: the scanner never reads past what it holds.
      for (let from = 0; from < chunk.length && !this.failed; from += WINDOW_BYTES) {
        const n = Math.min(WINDOW_BYTES, chunk.length - from);
        const b = this.window;
        b.set(chunk.subarray(from, from + n));
        b.fill(0, n, n + GUARD);
        let p = 0;
        if (this.carried > 0) p = this.continueCarried(b, n);
        if (p >= 0) this.walk(b, n, p);
        this.onBytesLeft?.(); // the window is filled again next
      }
    } catch {
      // GIVE_UP, or anything else (a stack overflow on absurd nesting): the reference path decides.
      this.failed = true;
    } finally {
      if (wasm) wasm.busy = false;
      this.wasmNow = undefined;
    }
    return !this.failed;
  }

  /** The answer once the last chunk was read, or undefined if the reader gave up. */
  end(): TargetsResponse | undefined {
    // An answer that ends inside a value is cut short (not even a number can end a valid answer).
    if (this.failed || this.carried > 0 || this.level !== Level.AfterTop || !this.status || !(this.topSeen & 2)) {
      this.failed = true;
      return undefined;
    }
    // The server's own counts when it sent them, else those of the list, as convert/targets.ts reads either.
    const counts = this.counts || fromEntries(this.dropped);
    return { status: "success", data: { activeTargets: [], droppedTargets: [], droppedTargetCounts: counts } };
  }

  /** The skeleton from b[p]: punctuation here, whole values to the scanner. */
  private walk(b: Bytes, n: number, from: number): void {
    let p = from;
    for (;;) {
      while (p < n && isWhitespace(b[p] as number)) p++;
      if (p >= n) return;
      if (this.level === Level.AfterTop) giveUp(); // nothing but whitespace after the answer
      const c = b[p] as number;
      const inArray = this.level === Level.Active || this.level === Level.Dropped;
      switch (this.expect) {
        case Expect.Value:
          p = this.value(b, n, p, c);
          break;
        case Expect.KeyOrClose:
          if (c === CLOSE_OBJECT) {
            p++;
            this.close();
            break;
          }
          p = this.whole(b, n, p, this.level === Level.Top ? Read.TopKey : Read.DataKey);
          break;
        case Expect.Key:
          p = this.whole(b, n, p, this.level === Level.Top ? Read.TopKey : Read.DataKey);
          break;
        case Expect.Colon:
          if (c !== COLON) giveUp();
          p++;
          this.expect = Expect.Value;
          break;
        case Expect.CommaOrClose:
          p++;
          if (c === COMMA) this.expect = inArray ? Expect.Element : Expect.Key;
          else if (c === (inArray ? CLOSE_ARRAY : CLOSE_OBJECT)) this.close();
          else giveUp();
          break;
        case Expect.ElementOrClose:
          if (c === CLOSE_ARRAY) {
            p++;
            this.close();
            break;
          }
          p = this.whole(b, n, p, this.level === Level.Active ? Read.Target : Read.DroppedTarget);
          break;
        case Expect.Element:
          p = this.whole(b, n, p, this.level === Level.Active ? Read.Target : Read.DroppedTarget);
          break;
      }
      if (p < 0) return; // the rest of the chunk is carried
    }
  }

  /** A member's value (or the answer itself): a container the skeleton enters, or a whole value. */
  private value(b: Bytes, n: number, p: number, c: number): number {
    const k = this.key;
    if (this.level === Level.BeforeTop) return this.enter(c, OPEN_OBJECT, Level.Top, p);
    if (this.level === Level.Top) {
      if (k === 0) return this.whole(b, n, p, Read.Status);
      if (k === 1) return this.enter(c, OPEN_OBJECT, Level.Data, p);
      if (k === 2) return this.whole(b, n, p, Read.Warnings);
      return this.whole(b, n, p, Read.Skip);
    }
    if (k < 0) return this.whole(b, n, p, Read.Skip);
    if (c === 0x6e) return this.whole(b, n, p, Read.Null);
    if (k === 0) return this.enter(c, OPEN_ARRAY, Level.Active, p);
    if (k === 1) return this.enter(c, OPEN_ARRAY, Level.Dropped, p);
    return this.whole(b, n, p, Read.Counts);
  }

  private enter(c: number, open: number, level: Level, p: number): number {
    if (c !== open) giveUp();
    this.level = level;
    this.expect = open === OPEN_OBJECT ? Expect.KeyOrClose : Expect.ElementOrClose;
    return p + 1;
  }

  private close(): void {
    if (this.level === Level.Active || this.level === Level.Dropped) this.level = Level.Data;
    else this.level = this.level === Level.Data ? Level.Top : Level.AfterTop;
    this.expect = Expect.CommaOrClose;
  }

  /**
   * Reads the whole value at b[p] and moves past it; -1 when the chunk ends inside it (its bytes are
   * carried). A number that reaches the chunk's end may go on in the next one, so it is carried too.
   */
  private whole(b: Bytes, n: number, p: number, read: Read): number {
    const s = this.scanner;
    const first = b[p] as number;
    s.b = b;
    s.n = n;
    s.p = p;
    let value: unknown;
    let whole = false;
    try {
      value = this.read(read);
      whole = s.p < n || !isNumberStart(first);
    } catch {
      // Invalid, or cut by the chunk's end: which one, the value's end tells.
    }
    if (whole) {
      this.apply(read, value);
      return s.p;
    }
    this.valueEnd.reset(first);
    if (this.valueEnd.find(b, p, n) >= 0) giveUp();
    this.carried = 0;
    this.append(b, p, n);
    this.carriedRead = read;
    return -1;
  }

  /** Adds the new chunk's bytes to the carried value; where the chunk goes on after it, or -1. */
  private continueCarried(b: Bytes, n: number): number {
    const end = this.valueEnd.find(b, 0, n);
    this.append(b, 0, end < 0 ? n : end);
    if (end < 0) return -1;
    const s = this.scanner;
    s.b = this.carry;
    s.n = this.carried;
    s.p = 0;
    this.apply(this.carriedRead, this.read(this.carriedRead));
    this.onBytesLeft?.(); // the carry is written again by the next value cut
    if (s.p !== this.carried) giveUp();
    this.carried = 0;
    if (this.carry.length > CARRY_KEPT) this.carry = Buffer.alloc(GUARD) as Bytes; // a large carry is not kept between values
    return end;
  }

  private append(b: Uint8Array, from: number, to: number): void {
    const length = to - from;
    if (this.carried + length > this.maxValueBytes) giveUp();
    if (this.carried + length + GUARD > this.carry.length) {
      const size = Math.min(this.maxValueBytes, Math.max(2 * this.carry.length, this.carried + length, 4096)) + GUARD;
      const grown = Buffer.allocUnsafe(size) as Bytes;
      this.carry.copy(grown, 0, 0, this.carried);
      this.carry = grown;
    }
    this.carry.set(b.subarray(from, to), this.carried);
    this.carried += length;
    this.carry.fill(0, this.carried, this.carried + GUARD);
  }

  private read(read: Read): unknown {
    const s = this.scanner;
    switch (read) {
      case Read.TopKey:
        return s.keyOnly(TOP);
      case Read.DataKey:
        return s.keyOnly(DATA);
      case Read.Status:
        return s.isSuccess();
      case Read.Null:
        return s.null();
      case Read.Counts:
        // Each pool named weighs as one met among the dropped targets: a hostile answer naming millions
        // is stopped at the targets budget, not made into a series each.
        return s.counts((pool) => {
          // A pool of the dropped list too (Prometheus 2.47+ sends both) was weighed already.
          if (!this.dropped.has(pool)) this.onDroppedPool();
        });
      case Read.Target: {
        // In the window (not a value carried over from a chunk before), the WebAssembly reader first.
        const wasm = this.wasmNow;
        if (wasm !== undefined && s.b === this.window) {
          const end = wasm.target(s.p, s.n);
          if (end >= 0) {
            s.recordedTarget(this.target, wasm.record, end);
            this.wasmTargets++;
            return true;
          }
        }
        return s.activeTarget(this.target);
      }
      case Read.DroppedTarget:
        return s.droppedTarget();
      case Read.Warnings: {
        // Handed over once the whole list was read: a list cut by a chunk's end is read again whole.
        const texts: string[] = [];
        s.warnings((text) => texts.push(text));
        return texts;
      }
      default:
        s.skipValue();
        return undefined;
    }
  }

  private apply(read: Read, value: unknown): void {
    this.expect = Expect.CommaOrClose;
    switch (read) {
      case Read.TopKey:
      case Read.DataKey: {
        const k = value as number;
        if (k >= 0) {
          const bit = 1 << k;
          const seen = read === Read.TopKey ? this.topSeen : this.dataSeen;
          if (seen & bit) giveUp(); // a duplicate key: JSON.parse keeps the last, left to the reference
          if (read === Read.TopKey) this.topSeen |= bit;
          else this.dataSeen |= bit;
        }
        this.key = k;
        this.expect = Expect.Colon;
        return;
      }
      case Read.Status:
        if (value !== true) giveUp();
        this.status = true;
        return;
      case Read.Null:
        if (this.key === 2) this.counts = null;
        return;
      case Read.Counts:
        this.counts = value as Record<string, number>;
        return;
      case Read.Target:
        // Handed over while the bytes its spans point into are still those read.
        if (value === true) this.onTarget(this.target);
        return;
      case Read.Warnings:
        for (const text of value as string[]) this.onWarning(text);
        return;
      case Read.DroppedTarget: {
        const pool = (value as { scrapePool: string }).scrapePool;
        const n = this.dropped.get(pool);
        if (n === undefined) this.onDroppedPool();
        this.dropped.set(pool, (n ?? 0) + 1);
        return;
      }
    }
  }
}

/** A record of the entries, "__proto__" an own key like any other (as JSON.parse makes it). */
function fromEntries(entries: Map<string, number>): Record<string, number> {
  const record: Record<string, number> = Object.create(null);
  for (const [key, n] of entries) record[key] = n;
  return record;
}

/** Chunks are copied into the reader's window this many bytes at a time (about 1% of the reading's CPU). */
const WINDOW_BYTES = 256 * 1024;

/** A carry that grew past this for one large value is let go rather than kept for the next. */
const CARRY_KEPT = 64 * 1024;

/** The WebAssembly module's instance a reader of these label names uses (shared per thread), if any. */
export function wasmReaderFor(labelNames: readonly string[]): WasmTargetReader | undefined {
  return WasmTargetReader.create(TARGET_FIELDS, labelNames, WINDOW_BYTES + GUARD);
}

/**
 * A whole targets answer, read as one chunk: the same reader as a streamed one. Undefined when the
 * answer is not in the plain shape the reader handles (the reference path then decides). Without
 * `onTarget` the active targets come back in the result.
 */
export function scanTargetsAnswer(
  bytes: Uint8Array,
  labelNames: readonly string[],
  onTarget?: (target: TargetRead) => void,
  useWasm = true,
): TargetsResponse | undefined {
  const active: ActiveTarget[] = [];
  const reader = new TargetsAnswerReader(
    labelNames,
    onTarget ?? ((t) => active.push(t.toActiveTarget())),
    MAX_VALUE_BYTES,
    useWasm,
  );
  reader.write(bytes);
  const answer = reader.end();
  if (answer && !onTarget) answer.data.activeTargets = active;
  return answer;
}
