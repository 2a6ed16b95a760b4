import type { ActiveTarget, TargetsResponse } from "./payloads.js";
import { RECORD, WasmTargetReader } from "./wasm/wasm-target-reader.js";

// A single pass over the bytes of a `/api/v1/targets` answer that keeps only what is converted. Most of
// an answer (discoveredLabels, scrapeUrl, globalUrl, the labels nobody reads) is checked as JSON and
// dropped without becoming strings or objects: JSON.parse of a 100k-target answer builds ~200 MB of
// objects that the garbage collector then spends more time on than the parse itself.
//
// It is a fast path, not a second parser to trust: whenever the answer is not in the plain shape it
// handles (not valid JSON, a field of an unexpected type, a duplicate field) it gives up, and the reference path (JSON.parse and the schema) decides, with its own result
// or error. When it does not give up, its result converts to exactly what the reference's does
// (test/upstream/targets-scanner.test.ts, on recorded answers and random ones).

/**
 * Thrown to give up; caught at the top. Not an Error: one is thrown wherever a chunk ends inside a value
 * (over a thousand times for a 100k-target answer), and capturing a stack trace each time cost ~100 ms
 * of a poll.
 */
const GIVE_UP = Object.freeze({ reason: "the targets reader gave up" });
const giveUp = (): never => {
  throw GIVE_UP;
};

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

const isWhitespace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const isHex = (c: number) => isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
/** What may follow a backslash in a JSON string (u is checked with its four hex digits). */
const SIMPLE_ESCAPES = new Set([QUOTE, BACKSLASH, 0x2f, 0x62, 0x66, 0x6e, 0x72, 0x74]);

/**
 * Keys are matched as bytes, so the answer's keys never become strings. Bytes equal text only for ASCII
 * names: JSON.parse reads the decoded text, where invalid UTF-8 is already U+FFFD (0xFF names "a\uFFFD"),
 * and U+FFFD's own bytes are what a lone surrogate in a name encodes to.
 */
class KeySet {
  private readonly keys: Buffer[];
  /** Whether a key with bytes above ASCII must be decoded to be matched. */
  readonly decodeWide: boolean;
  /** The first key of each length (-1: none), and after each key the next of its length: most lengths name one key. */
  private readonly firstOfLength: Int32Array;
  private readonly nextOfLength: Int32Array;
  constructor(readonly names: readonly string[]) {
    this.keys = names.map((n) => Buffer.from(n, "utf8"));
    this.decodeWide = this.keys.some((k, i) => k.length !== (names[i] as string).length);
    this.firstOfLength = new Int32Array(Math.max(0, ...this.keys.map((k) => k.length)) + 1).fill(-1);
    this.nextOfLength = new Int32Array(this.keys.length).fill(-1);
    for (let k = this.keys.length - 1; k >= 0; k--) {
      const length = (this.keys[k] as Buffer).length;
      this.nextOfLength[k] = this.firstOfLength[length] as number;
      this.firstOfLength[length] = k;
    }
  }
  /** Index of the key the bytes [start, end) spell, or -1 (the first of equal keys, as a list search finds). */
  find(bytes: Uint8Array, start: number, end: number): number {
    const length = end - start;
    if (length >= this.firstOfLength.length) return -1;
    outer: for (let k = this.firstOfLength[length] as number; k >= 0; k = this.nextOfLength[k] as number) {
      const key = this.keys[k] as Buffer;
      for (let i = 0; i < length; i++) if (key[i] !== bytes[start + i]) continue outer;
      return k;
    }
    return -1;
  }
}

// `warnings`: Thanos Query's, beside data (pkg/api/api.go Respond at v0.42.4).
const TOP = new KeySet(["status", "data", "warnings"]);
const DATA = new KeySet(["activeTargets", "droppedTargets", "droppedTargetCounts"]);
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
const TARGET = new KeySet(TARGET_FIELDS);
/** The string fields (their index in TARGET_FIELDS) the WebAssembly module records, and their record slots. */
const RECORDED_STRINGS = Int32Array.of(1, 2, 3, 4, 6, 7);
const RECORD_SLOTS = Int32Array.of(
  RECORD.pool,
  RECORD.health,
  RECORD.error,
  RECORD.scrape,
  RECORD.interval,
  RECORD.timeout,
);
/** Label keys remembered by place from one target to the next, and the longest remembered (bytes). */
const MAX_LABELS_AHEAD = 32;
const MAX_KEY_AHEAD_BYTES = 128;

/**
 * The keys of a target in the order Prometheus writes them (web/api/v1/api.go, the Target struct's
 * fields, 2.42 to 3.x), each as `"name":` with its index in TARGET_FIELDS (-1: not read). A key found
 * where it is expected is known from one comparison, without reading it as a string first and then
 * looking it up; any other key, spacing or spelling is read the general way.
 */
const TARGET_ORDER = [
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
const DROPPED = new KeySet(["scrapePool", "discoveredLabels"]);
const JOB = new KeySet(["job"]);
const SUCCESS = Buffer.from("success");

/** Node's own slicers behind Buffer#toString, without its per-call dispatch (a million calls per poll). */
type Bytes = Buffer & {
  latin1Slice(start: number, end: number): string;
  utf8Slice(start: number, end: number): string;
};

/**
 * The last string read from the same field, reused when the next one has the same bytes (pools,
 * intervals). Its bytes are a copy: the chunk it was read from is gone by the next target.
 */
interface Remembered {
  bytes: Buffer;
  text: string;
}
const remembered = (): Remembered => ({ bytes: Buffer.alloc(0), text: "" });

const HEALTHS = ["up", "down", "unknown"].map((h) => ({ bytes: Buffer.from(h), text: h }));

/** How a string's raw bytes become its text: escapes through JSON.parse, bytes above ASCII as UTF-8. */
const ESCAPED = 1;
const WIDE = 2;

/**
 * One active target as read, the same object for every target of an answer: its strings that a
 * series is keyed by (the pool and the labels read) as spans of the buffer being read, valid only
 * while the target is handed over. A consumer that knows a target's spans from an earlier poll needs
 * no string of them (convert/target-table.ts); `toActiveTarget` gives what the reference path has.
 */
export class TargetRead {
  /** The buffer the spans are in. */
  bytes: Buffer = Buffer.alloc(0);
  scrapePool = "";
  /** The pool's raw bytes (between its quotes; empty when it has none or not a string). */
  poolStart = 0;
  poolEnd = 0;
  /** How the pool's bytes become its text (ESCAPED, WIDE; 0 for plain ASCII). */
  poolFlags = 0;
  health = "unknown";
  lastError = "";
  /** lastScrape's raw bytes [start, end) (start -1: none, or not a string) and how they become its text. */
  lastScrapeStart = -1;
  lastScrapeEnd = 0;
  lastScrapeFlags = 0;
  private lastScrapeText: string | undefined;
  lastScrapeDuration: number | undefined;
  scrapeInterval: string | undefined;
  scrapeTimeout: string | undefined;
  /** Label k (`labelNames[k]`): its raw bytes [start, end), start -1 when the target has none. */
  readonly labelStart: Int32Array;
  readonly labelEnd: Int32Array;
  readonly labelFlags: Uint8Array;
  /**
   * The identity hash of the pool and labels read (convert/identity-hash.ts), when the reader computed
   * it (the WebAssembly module does, as it reads the spans).
   */
  identityHash = 0;
  identityHashed = false;

  constructor(readonly labelNames: readonly string[]) {
    this.labelStart = new Int32Array(labelNames.length);
    this.labelEnd = new Int32Array(labelNames.length);
    this.labelFlags = new Uint8Array(labelNames.length);
  }

  reset(bytes: Buffer): void {
    this.bytes = bytes;
    this.scrapePool = "";
    this.poolStart = 0;
    this.poolEnd = 0;
    this.poolFlags = 0;
    this.health = "unknown";
    this.lastError = "";
    this.lastScrapeStart = -1;
    this.lastScrapeText = undefined;
    this.lastScrapeDuration = undefined;
    this.scrapeInterval = undefined;
    this.scrapeTimeout = undefined;
    this.labelStart.fill(-1);
    this.identityHashed = false;
  }

  /**
   * Whether the pool and every label read are plain ASCII without escapes: then their bytes are their
   * text, and the text format writes them as they are.
   */
  plain(): boolean {
    if (this.poolFlags !== 0) return false;
    for (let k = 0; k < this.labelNames.length; k++)
      if ((this.labelStart[k] as number) >= 0 && this.labelFlags[k] !== 0) return false;
    return true;
  }

  /**
   * The last scrape's text, made when first asked for: most targets' is only read as a time, from its
   * bytes (convert/target-table.ts), and a string of it for each cost a tenth of a poll's scan.
   */
  get lastScrape(): string | undefined {
    if (this.lastScrapeText === undefined && this.lastScrapeStart >= 0)
      this.lastScrapeText = decodeSpan(
        this.bytes as Bytes,
        this.lastScrapeStart,
        this.lastScrapeEnd,
        this.lastScrapeFlags,
      );
    return this.lastScrapeText;
  }

  /** Label k's text as JSON.parse gives it; "" when the target has none. */
  label(k: number): string {
    const start = this.labelStart[k] as number;
    if (start < 0) return "";
    return decodeSpan(this.bytes as Bytes, start, this.labelEnd[k] as number, this.labelFlags[k] as number);
  }

  /** The target as the reference path has it, for the labels read (a copy: it outlives the buffer). */
  toActiveTarget(): ActiveTarget {
    const labels: Record<string, string> = {};
    for (let k = 0; k < this.labelNames.length; k++)
      if ((this.labelStart[k] as number) >= 0) labels[this.labelNames[k] as string] = this.label(k);
    const target: ActiveTarget = {
      labels,
      scrapePool: this.scrapePool,
      health: this.health,
      lastError: this.lastError,
    };
    if (this.lastScrape !== undefined) target.lastScrape = this.lastScrape;
    if (this.lastScrapeDuration !== undefined) target.lastScrapeDuration = this.lastScrapeDuration;
    if (this.scrapeInterval !== undefined) target.scrapeInterval = this.scrapeInterval;
    if (this.scrapeTimeout !== undefined) target.scrapeTimeout = this.scrapeTimeout;
    return target;
  }
}

/** Powers of ten a double holds exactly. */
const EXACT_POWERS_OF_TEN = Array.from({ length: 23 }, (_, k) => 10 ** k);

/**
 * The value of a JSON number already checked, `-?digits(.digits)?`, without making a string of it
 * (a scrape duration per target): its digits as an integer below 2^53 over an exact power of ten,
 * one correctly rounded division, so the double JSON.parse gives (Clinger's fast path). Undefined for
 * an exponent or more digits than that; Number() of the text then decides.
 */
function decimalValue(b: Uint8Array, start: number, end: number): number | undefined {
  let p = start;
  const negative = b[p] === 0x2d;
  if (negative) p++;
  let digits = 0;
  let scale = -1; // digits after the point, once it is met
  for (; p < end; p++) {
    const c = b[p] as number;
    if (c === 0x2e) scale = 0;
    else if (c >= 0x30 && c <= 0x39) {
      digits = digits * 10 + (c - 0x30);
      if (scale >= 0) scale++;
    } else return undefined; // an exponent
  }
  if (digits > Number.MAX_SAFE_INTEGER || scale >= EXACT_POWERS_OF_TEN.length) return undefined;
  const value = scale > 0 ? digits / (EXACT_POWERS_OF_TEN[scale] as number) : digits;
  return negative ? -value : value;
}

/** A string's raw bytes [start, end) as JSON.parse gives its text (invalid UTF-8 replaced as Buffer#toString does). */
function decodeSpan(b: Bytes, start: number, end: number, flags: number): string {
  if (flags & ESCAPED) return JSON.parse(b.utf8Slice(start - 1, end + 1)) as string;
  return flags & WIDE ? b.utf8Slice(start, end) : b.latin1Slice(start, end);
}

/**
 * Reads JSON values from a buffer, one value per call: the positions are absolute in the buffer it is
 * given, so the streaming reader below can point it at a chunk or at its carry.
 */
class Scanner {
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

  counts(): Record<string, number> {
    const counts: Record<string, number> = {};
    if (this.enterObject())
      do {
        this.key(undefined);
        const pool = this.decodeLast();
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
  /** Called for each pool first met among the dropped targets (what the count keeps grows by one). */
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
        return s.counts();
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

/**
 * Zero bytes after the bytes the scanner reads: every read past a value's end meets a 0, which ends every
 * loop and check (a control byte, never valid outside a string nor unescaped in one), so no read is ever
 * out of bounds. V8 compiles a typed-array read that once went out of bounds to a slower form for good
 * (the scanner was twice as slow on chunks as on one whole buffer).
 */
const GUARD = 8;
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
