import { RECORD } from "../wasm/wasm-target-reader.js";
import {
  BACKSLASH,
  type Bytes,
  CLOSE_ARRAY,
  CLOSE_OBJECT,
  COLON,
  COMMA,
  decimalValue,
  decodeSpan,
  ESCAPED,
  GUARD,
  giveUp,
  isDigit,
  isHex,
  isWhitespace,
  KeySet,
  OPEN_ARRAY,
  OPEN_OBJECT,
  QUOTE,
  SIMPLE_ESCAPES,
  WIDE,
} from "./json-bytes.js";
import type { TargetRead } from "./target-read.js";

// The scanner: one whole JSON value of a targets answer at a time (a key, a target, a dropped target, the
// counts), checked as JSON and read into the fields the conversion needs; the answer reader
// (answer-reader.ts) finds where each value ends in the stream and hands it over, and asks the
// WebAssembly module (upstream/wasm/) first for an active target in the common shape.

// `warnings`: Thanos Query's, beside data (pkg/api/api.go Respond at v0.42.4).
export const TOP = new KeySet(["status", "data", "warnings"]);
export const DATA = new KeySet(["activeTargets", "droppedTargets", "droppedTargetCounts"]);
export const TARGET_FIELDS = [
  "labels",
  "scrapePool",
  "health",
  "lastError",
  "lastScrape",
  "lastScrapeDuration",
  "scrapeInterval",
  "scrapeTimeout",
] as const;
export const TARGET = new KeySet(TARGET_FIELDS);
/** The string fields (their index in TARGET_FIELDS) the WebAssembly module records, and their record slots. */
export const RECORDED_STRINGS = Int32Array.of(1, 2, 3, 4, 6, 7);
export const RECORD_SLOTS = Int32Array.of(
  RECORD.pool,
  RECORD.health,
  RECORD.error,
  RECORD.scrape,
  RECORD.interval,
  RECORD.timeout,
);
/** Label keys remembered by place from one target to the next, and the longest remembered (bytes). */
export const MAX_LABELS_AHEAD = 32;
export const MAX_KEY_AHEAD_BYTES = 128;

/**
 * The keys of a target in the order Prometheus writes them (web/api/v1/api.go, the Target struct's
 * fields, 2.42 to 3.x), each as `"name":` with its index in TARGET_FIELDS (-1: not read). A key found
 * where it is expected is known from one comparison, without reading it as a string first and then
 * looking it up; any other key, spacing or spelling is read the general way.
 */
export const TARGET_ORDER = [
  "discoveredLabels",
  "labels",
  "scrapePool",
  "scrapeUrl",
  "globalUrl",
  "lastError",
  "lastScrape",
  "lastScrapeDuration",
  "health",
  "scrapeInterval",
  "scrapeTimeout",
].map((name) => ({ quoted: Buffer.from(`"${name}":`), k: TARGET.names.indexOf(name) }));
export const DROPPED = new KeySet(["scrapePool", "discoveredLabels"]);
export const JOB = new KeySet(["job"]);
export const SUCCESS = Buffer.from("success");

/**
 * The last string read from the same field, reused when the next one has the same bytes (pools,
 * intervals). Its bytes are a copy: the chunk it was read from is gone by the next target.
 */
export interface Remembered {
  bytes: Buffer;
  text: string;
}
export const remembered = (): Remembered => ({ bytes: Buffer.alloc(0), text: "" });

export const HEALTHS = ["up", "down", "unknown"].map((h) => ({ bytes: Buffer.from(h), text: h }));

/**
 * Reads JSON values from a buffer, one value per call: the positions are absolute in the buffer it is
 * given, so the streaming reader below can point it at a chunk or at its carry.
 */
export class Scanner {
  /** The bytes read: [0, n) are the value's, and at least GUARD zero bytes follow them in `b`. */
  b: Bytes = Buffer.alloc(GUARD) as Bytes;
  n = 0;
  p = 0;
  /** Where the last key's or string's bytes start and end (the quotes excluded). */
  private start = 0;
  private end = 0;
  /** Whether the last string had escapes, or bytes above ASCII. */
  private escaped = false;
  private wide = false;
  private readonly pool = remembered();
  private readonly interval = remembered();
  private readonly timeout = remembered();
  /** The label keys of the last target read, by place (rememberLabelKey). */
  private readonly labelsAhead: { quoted: Buffer; k: number }[] = [];

  constructor(private readonly labelKeys: KeySet) {}

  /** An element of activeTargets read into `read`: false for an element that is not an object. */
  activeTarget(read: TargetRead): boolean {
    if (this.peek() !== OPEN_OBJECT) {
      this.skipValue();
      return false;
    }
    this.target(read);
    return true;
  }

  /** The index of the key in `keys` (-1 for another key), its colon left to the caller. */
  keyOnly(keys: KeySet): number {
    if (this.peek() !== QUOTE) giveUp();
    this.skipString();
    return this.keyIndex(keys);
  }

  /** The index of the last string in `keys`, compared as JSON.parse's text would be. */
  private keyIndex(keys: KeySet): number {
    const decode = this.escaped || (this.wide && keys.decodeWide);
    return decode ? keys.names.indexOf(this.decodeLast()) : keys.find(this.b, this.start, this.end);
  }

  /** Whether the value is the string "success", as written by Prometheus (no escapes). */
  isSuccess(): boolean {
    return this.stringIs(SUCCESS);
  }

  private target(read: TargetRead): void {
    read.reset(this.b);
    let seen = 0;
    let expected = 0;
    if (this.enterObject())
      do {
        // The key expected next, or one of the two after it (a field left out, as VictoriaMetrics leaves
        // out globalUrl); a mismatch costs a byte or two of comparison.
        let k = -2;
        for (let j = expected; j < expected + 3 && j < TARGET_ORDER.length; j++) {
          const ahead = TARGET_ORDER[j] as { quoted: Buffer; k: number };
          if (this.quotedKeyIs(ahead.quoted)) {
            k = ahead.k;
            expected = j + 1;
            break;
          }
        }
        if (k === -2) k = this.key(TARGET);
        if (k < 0) {
          this.skipValue();
          continue;
        }
        if (seen & (1 << k)) giveUp();
        seen |= 1 << k;
        // A field of another type takes the reference's neutral value (payloads.ts, normaliseActiveTarget).
        if (k === 5) {
          const n = this.numberOrSkip();
          if (n !== undefined && Number.isFinite(n)) read.lastScrapeDuration = n;
        } else if (k === 0) {
          if (this.peek() === OPEN_OBJECT) this.labels(read);
          else this.skipValue();
        } else if (this.peek() !== QUOTE) this.skipValue();
        else {
          this.skipString();
          this.takeString(read, k);
        }
      } while (this.nextMember());
  }

  /**
   * Sets string field k (TARGET_FIELDS) of `read` from the last string read: the one rule for both
   * readers, this scanner's target() and a target the WebAssembly module read (recordedTarget).
   */
  private takeString(read: TargetRead, k: number): void {
    if (k === 1) {
      read.scrapePool = this.lastString(this.pool);
      read.poolStart = this.start;
      read.poolEnd = this.end;
      read.poolFlags = this.lastFlags();
    } else if (k === 2) read.health = this.lastHealth();
    else if (k === 3) read.lastError = this.lastString();
    else if (k === 4) {
      read.lastScrapeStart = this.start;
      read.lastScrapeEnd = this.end;
      read.lastScrapeFlags = this.lastFlags();
    } else if (k === 6) read.scrapeInterval = this.lastString(this.interval);
    else read.scrapeTimeout = this.lastString(this.timeout);
  }

  /**
   * A target the WebAssembly reader read, its spans in `record`, set on `read` as target() sets it from
   * the same bytes; the scanner moves on to `end`. That reader takes only a target with each field once,
   * of the type read, and ASCII keys without escapes: what is left here is the strings' texts.
   */
  recordedTarget(read: TargetRead, record: Int32Array, end: number): void {
    read.reset(this.b);
    for (let i = 0; i < RECORDED_STRINGS.length; i++)
      if (this.recordedSpan(record, RECORD_SLOTS[i] as number)) this.takeString(read, RECORDED_STRINGS[i] as number);
    const durationStart = record[RECORD.duration] as number;
    if (durationStart >= 0) {
      const n = this.numberAt(durationStart, record[RECORD.duration + 1] as number);
      if (Number.isFinite(n)) read.lastScrapeDuration = n;
    }
    for (let k = 0, at = RECORD.labels; k < read.labelNames.length; k++, at += 3) {
      const start = record[at] as number;
      if (start < 0) continue;
      read.labelStart[k] = start;
      read.labelEnd[k] = record[at + 1] as number;
      read.labelFlags[k] = record[at + 2] as number;
    }
    read.identityHash = record[RECORD.identity] as number;
    read.identityHashed = true;
    this.p = end;
  }

  /** Takes the span at `at` in the record as the last string read; false when it is absent. */
  private recordedSpan(record: Int32Array, at: number): boolean {
    const start = record[at] as number;
    if (start < 0) return false;
    this.start = start;
    this.end = record[at + 1] as number;
    const flags = record[at + 2] as number;
    this.escaped = (flags & ESCAPED) !== 0;
    this.wide = (flags & WIDE) !== 0;
    return true;
  }

  /**
   * Only the labels the conversion reads, as spans. A value that is not a string gives up: the
   * reference then drops every label, unless a later duplicate key replaces that value (as a later
   * span replaces an earlier one here).
   */
  private labels(read: TargetRead): void {
    let i = 0;
    if (this.enterObject())
      do {
        // A fleet's targets mostly have the same label names in the same order (Prometheus sorts them):
        // each key is first compared with the one at its place in the target before.
        const ahead = this.labelsAhead[i];
        let k: number;
        if (ahead !== undefined && this.quotedKeyIs(ahead.quoted)) k = ahead.k;
        else {
          k = this.key(this.labelKeys);
          this.rememberLabelKey(i, k);
        }
        i++;
        if (this.peek() !== QUOTE) giveUp();
        this.skipString();
        if (k < 0) continue;
        read.labelStart[k] = this.start;
        read.labelEnd[k] = this.end;
        read.labelFlags[k] = this.lastFlags();
      } while (this.nextMember());
  }

  private lastHealth(): string {
    for (const h of HEALTHS) if (this.lastIs(h.bytes)) return h.text;
    return this.decodeLast();
  }

  /** A dropped target's pool, as convert/targets.ts (droppedTargetPool) reads it from a whole element. */
  droppedTarget(): { scrapePool: string } {
    let pool: string | undefined;
    let job: string | undefined;
    let seen = 0;
    if (this.peek() !== OPEN_OBJECT) {
      this.skipValue();
      return { scrapePool: "" };
    }
    if (this.enterObject())
      do {
        const k = this.key(DROPPED);
        if (k < 0) {
          this.skipValue();
          continue;
        }
        if (seen & (1 << k)) giveUp();
        seen |= 1 << k;
        if (k === 0) pool = this.stringOrSkip(this.pool);
        else if (this.peek() !== OPEN_OBJECT) this.skipValue();
        else if (this.enterObject()) {
          let jobs = 0;
          do {
            if (this.key(JOB) < 0) this.skipValue();
            else if (jobs++) giveUp();
            else job = this.stringOrSkip();
          } while (this.nextMember());
        }
      } while (this.nextMember());
    return { scrapePool: pool ?? job ?? "" };
  }

  /** The strings of a `warnings` value, each to `onWarning`; anything else in it (or not a list) is passed. */
  warnings(onWarning: (text: string) => void): void {
    if (this.peek() !== OPEN_ARRAY) {
      this.skipValue();
      return;
    }
    if (this.enterArray())
      do {
        if (this.peek() === QUOTE) onWarning(this.string());
        else this.skipValue();
      } while (this.nextElement());
  }

  /** The dropped targets' counts by pool; `onPool` is told of each pool as it is read (it may throw to stop). */
  counts(onPool: (pool: string) => void = () => {}): Record<string, number> {
    const counts: Record<string, number> = {};
    if (this.enterObject())
      do {
        this.key(undefined);
        const pool = this.decodeLast();
        onPool(pool);
        // JSON.parse makes "__proto__" an own key; the schema's copy does not keep it.
        if (pool === "__proto__") giveUp();
        const n = this.number();
        if (!Number.isFinite(n)) giveUp();
        counts[pool] = n;
      } while (this.nextMember());
    return counts;
  }

  // --- JSON structure ---

  private peek(): number {
    this.skipWhitespace();
    return this.p < this.n ? (this.b[this.p] as number) : -1;
  }

  private skipWhitespace(): void {
    const b = this.b;
    let p = this.p;
    const n = this.n;
    while (p < n && isWhitespace(b[p] as number)) p++;
    this.p = p;
  }

  /** Moves past `{`; whether a member follows (false: the object was empty and is passed too). */
  private enterObject(): boolean {
    if (this.peek() !== OPEN_OBJECT) giveUp();
    this.p++;
    if (this.peek() !== CLOSE_OBJECT) return true;
    this.p++;
    return false;
  }

  /** After a member's value: true at a comma (another member follows), false at the closing brace. */
  private nextMember(): boolean {
    const c = this.peek();
    this.p++;
    if (c === COMMA) return true;
    if (c !== CLOSE_OBJECT) giveUp();
    return false;
  }

  private enterArray(): boolean {
    if (this.peek() !== OPEN_ARRAY) giveUp();
    this.p++;
    if (this.peek() !== CLOSE_ARRAY) return true;
    this.p++;
    return false;
  }

  private nextElement(): boolean {
    const c = this.peek();
    this.p++;
    if (c === COMMA) return true;
    if (c !== CLOSE_ARRAY) giveUp();
    return false;
  }

  /**
   * The label key just read, kept as the one expected at place i of the next target's labels (its
   * index is a function of its bytes): only a key written right before its colon, at one of the first
   * MAX_LABELS_AHEAD places, and no longer than a label name is in practice (what is kept is copied,
   * and a hostile answer's keys may each be megabytes).
   */
  private rememberLabelKey(i: number, k: number): void {
    if (i >= MAX_LABELS_AHEAD || this.end - this.start > MAX_KEY_AHEAD_BYTES || this.b[this.end + 1] !== COLON) return;
    const quoted = Buffer.from(this.b.subarray(this.start - 1, this.end + 2));
    this.labelsAhead[i] = { quoted, k };
  }

  /** Whether the next bytes are `quoted` (a key, its quotes and colon): then they are passed. */
  private quotedKeyIs(quoted: Buffer): boolean {
    this.skipWhitespace();
    const b = this.b;
    const p = this.p;
    // The guard's zeros past the end differ from every byte of a key.
    for (let i = 0; i < quoted.length; i++) if (b[p + i] !== quoted[i]) return false;
    this.p = p + quoted.length;
    return true;
  }

  /** Reads a key and its colon; the index of the key in `keys`, or -1. */
  private key(keys: KeySet | undefined): number {
    if (this.peek() !== QUOTE) giveUp();
    this.skipString();
    const k = keys === undefined ? -1 : this.keyIndex(keys);
    if (this.peek() !== COLON) giveUp();
    this.p++;
    return k;
  }

  null(): boolean {
    if (this.peek() !== 0x6e) return false;
    this.literal("null");
    return true;
  }

  private string(same?: Remembered): string {
    if (this.peek() !== QUOTE) giveUp();
    this.skipString();
    return this.lastString(same);
  }

  /** The last string's text, reused from `same` when its bytes are the same. */
  private lastString(same?: Remembered): string {
    if (this.start === this.end) return "";
    if (same === undefined) return this.decodeLast();
    if (!this.escaped && this.sameBytes(same)) return same.text;
    same.bytes = Buffer.from(this.b.subarray(this.start, this.end));
    same.text = this.decodeLast();
    return same.text;
  }

  /** A string, or undefined (and the value passed) if it is something else. */
  private stringOrSkip(same?: Remembered): string | undefined {
    if (this.peek() === QUOTE) return this.string(same);
    this.skipValue();
    return undefined;
  }

  private sameBytes(same: Remembered): boolean {
    const length = this.end - this.start;
    const kept = same.bytes;
    if (kept.length !== length || same.text === "") return false;
    const b = this.b;
    const start = this.start;
    for (let i = 0; i < length; i++) if (kept[i] !== b[start + i]) return false;
    return true;
  }

  private lastIs(expected: Buffer): boolean {
    if (this.escaped || this.end - this.start !== expected.length) return false;
    for (let i = 0; i < expected.length; i++) if (this.b[this.start + i] !== expected[i]) return false;
    return true;
  }

  private stringIs(expected: Buffer): boolean {
    if (this.peek() !== QUOTE) return false;
    this.skipString();
    return this.lastIs(expected);
  }

  /** The last string or key as JSON.parse gives it (invalid UTF-8 replaced as Buffer#toString does). */
  private decodeLast(): string {
    return decodeSpan(this.b, this.start, this.end, this.lastFlags());
  }

  /** How the last string's bytes become its text (ESCAPED, WIDE). */
  private lastFlags(): number {
    return (this.escaped ? ESCAPED : 0) | (this.wide ? WIDE : 0);
  }

  /** Moves past a string (at its opening quote), checking it; notes where its bytes are. */
  private skipString(): void {
    const b = this.b;
    let p = this.p + 1;
    this.start = p;
    let escaped = false;
    let high = 0;
    for (;;) {
      const c = b[p] as number; // the guard's 0 past the end fails every test below, and gives up
      if (c > BACKSLASH) {
        high |= c; // letters, and the bytes of non-ASCII characters
        p++;
        continue;
      }
      if (c === QUOTE) break;
      if (c === BACKSLASH) {
        escaped = true;
        const e = b[p + 1] as number;
        if (e === 0x75) {
          for (let i = 2; i < 6; i++) if (!isHex(b[p + i] as number)) giveUp();
          p += 6;
        } else if (SIMPLE_ESCAPES.has(e)) p += 2;
        else giveUp();
        continue;
      }
      if (!(c >= 0x20)) giveUp(); // control characters must be escaped
      p++;
    }
    this.end = p;
    this.p = p + 1;
    this.escaped = escaped;
    this.wide = high >= 0x80;
  }

  private number(): number {
    this.skipWhitespace();
    const start = this.p;
    this.skipNumber();
    return this.numberAt(start, this.p);
  }

  /** The value of the number checked at [start, end). */
  private numberAt(start: number, end: number): number {
    return decimalValue(this.b, start, end) ?? Number(this.b.latin1Slice(start, end));
  }

  /** A number, or undefined (and the value passed) if it is something else. */
  private numberOrSkip(): number | undefined {
    const c = this.peek();
    if (c === 0x2d || isDigit(c)) return this.number();
    this.skipValue();
    return undefined;
  }

  /** -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
  private skipNumber(): void {
    const b = this.b;
    let p = this.p;
    if (b[p] === 0x2d) p++;
    if (b[p] === 0x30) p++;
    else if (isDigit(b[p] as number)) while (isDigit(b[p] as number)) p++;
    else giveUp();
    if (b[p] === 0x2e) {
      p++;
      if (!isDigit(b[p] as number)) giveUp();
      while (isDigit(b[p] as number)) p++;
    }
    if (b[p] === 0x65 || b[p] === 0x45) {
      p++;
      if (b[p] === 0x2b || b[p] === 0x2d) p++;
      if (!isDigit(b[p] as number)) giveUp();
      while (isDigit(b[p] as number)) p++;
    }
    this.p = p;
  }

  private literal(word: "true" | "false" | "null"): void {
    for (let i = 0; i < word.length; i++) if (this.b[this.p + i] !== word.charCodeAt(i)) giveUp();
    this.p += word.length;
  }

  /**
   * Moves past an object at b[p] if it is written the plain way an object of strings is, `{"k":"v",…}`
   * with no whitespace, escape or byte below ASCII space (discoveredLabels, tens of bytes of every target);
   * false (and nothing moved) for anything else, which the general path then checks.
   */
  private skipPlainObject(): boolean {
    const b = this.b;
    let p = this.p + 1;
    if (b[p] === CLOSE_OBJECT) {
      this.p = p + 1;
      return true;
    }
    for (;;) {
      if (b[p] !== QUOTE) return false;
      // The key, then `":"`, then the value: each string up to its closing quote.
      for (let strings = 0; strings < 2; strings++) {
        p++;
        for (;;) {
          const c = b[p] as number; // the guard's 0 past the end fails the test below
          if (c > BACKSLASH) p++;
          else if (c === QUOTE) break;
          else if (c >= 0x20 && c !== BACKSLASH) p++;
          else return false;
        }
        p++;
        if (strings === 0) {
          if (b[p] !== COLON || b[p + 1] !== QUOTE) return false;
          p++;
        }
      }
      const c = b[p];
      if (c === COMMA) p++;
      else if (c === CLOSE_OBJECT) {
        this.p = p + 1;
        return true;
      } else return false;
    }
  }

  /** Checks and moves past any value. */
  skipValue(): void {
    const c = this.peek();
    if (c === QUOTE) this.skipString();
    else if (c === OPEN_OBJECT) {
      if (this.skipPlainObject()) return;
      if (this.enterObject())
        do {
          this.key(undefined);
          this.skipValue();
        } while (this.nextMember());
    } else if (c === OPEN_ARRAY) {
      if (this.enterArray())
        do this.skipValue();
        while (this.nextElement());
    } else if (c === 0x74) this.literal("true");
    else if (c === 0x66) this.literal("false");
    else if (c === 0x6e) this.literal("null");
    else this.skipNumber();
  }
}

/** The label names a targets answer's conversion reads (job, instance and the configured extra ones). */
export function labelNamesRead(extra: readonly { from: string }[]): string[] {
  // "__proto__" is never read from a parsed object's own keys: left to the reference path's rules.
  return [...new Set(["job", "instance", ...extra.map((l) => l.from)])].filter((n) => n !== "__proto__");
}
