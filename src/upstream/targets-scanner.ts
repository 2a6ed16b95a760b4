import type { ActiveTarget, TargetsResponse } from "./payloads.js";

// A single pass over the bytes of a `/api/v1/targets` answer that keeps only what is converted. Most of
// an answer (discoveredLabels, scrapeUrl, globalUrl, the labels nobody reads) is checked as JSON and
// dropped without becoming strings or objects: JSON.parse of a 100k-target answer builds ~200 MB of
// objects that the garbage collector then spends more time on than the parse itself.
//
// It is a fast path, not a second parser to trust: whenever the answer is not in the plain shape it
// handles (not valid JSON, a field of an unexpected type, a duplicate field) it gives up, and the reference path (JSON.parse and the schema) decides, with its own result
// or error. When it does not give up, its result converts to exactly what the reference's does
// (test/upstream/targets-scanner.test.ts, on recorded answers and random ones).

/** Thrown to give up; caught at the top. */
class GiveUp extends Error {}
const giveUp = (): never => {
  throw new GiveUp();
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

/** Keys are matched as bytes, so the answer's keys never become strings. */
class KeySet {
  private readonly keys: Buffer[];
  constructor(readonly names: readonly string[]) {
    this.keys = names.map((n) => Buffer.from(n, "utf8"));
  }
  /** Index of the key the bytes [start, end) spell, or -1. */
  find(bytes: Uint8Array, start: number, end: number): number {
    const length = end - start;
    outer: for (let k = 0; k < this.keys.length; k++) {
      const key = this.keys[k] as Buffer;
      if (key.length !== length) continue;
      for (let i = 0; i < length; i++) if (key[i] !== bytes[start + i]) continue outer;
      return k;
    }
    return -1;
  }
}

const TOP = new KeySet(["status", "data"]);
const DATA = new KeySet(["activeTargets", "droppedTargets", "droppedTargetCounts"]);
const TARGET_FIELDS = [
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
const DROPPED = new KeySet(["scrapePool", "discoveredLabels"]);
const JOB = new KeySet(["job"]);
const SUCCESS = Buffer.from("success");

/** Node's own slicers behind Buffer#toString, without its per-call dispatch (a million calls per poll). */
type Bytes = Buffer & {
  latin1Slice(start: number, end: number): string;
  utf8Slice(start: number, end: number): string;
};

/** The last string read from the same field, reused when the next one has the same bytes (pools, intervals). */
interface Remembered {
  start: number;
  end: number;
  text: string;
}
const remembered = (): Remembered => ({ start: 0, end: 0, text: "" });

const HEALTHS = ["up", "down", "unknown"].map((h) => ({ bytes: Buffer.from(h), text: h }));

class Scanner {
  private p = 0;
  /** Where the last key's or string's bytes start and end (the quotes excluded). */
  private start = 0;
  private end = 0;
  /** Whether the last string had escapes, or bytes above ASCII. */
  private escaped = false;
  private wide = false;
  private readonly pool = remembered();
  private readonly interval = remembered();
  private readonly timeout = remembered();

  constructor(
    private readonly b: Bytes,
    private readonly labelKeys: KeySet,
    private readonly labelNames: readonly string[],
    /** Takes each active target as it is read; they are then not kept in the result. */
    private readonly onTarget: ((target: ActiveTarget) => void) | undefined,
  ) {}

  answer(): TargetsResponse {
    let status = false;
    let data: TargetsResponse["data"] | undefined;
    if (this.enterObject())
      do {
        const k = this.key(TOP);
        if (k === 0) {
          if (status || !this.stringIs(SUCCESS)) giveUp();
          status = true;
        } else if (k === 1) {
          if (data !== undefined) giveUp();
          data = this.data();
        } else this.skipValue();
      } while (this.nextMember());
    this.skipWhitespace();
    if (this.p !== this.b.length || !status || data === undefined) giveUp();
    return { status: "success", data: data as TargetsResponse["data"] };
  }

  private data(): TargetsResponse["data"] {
    let active: ActiveTarget[] | undefined;
    let dropped: { scrapePool: string }[] | undefined;
    let counts: Record<string, number> | null | undefined;
    let seen = 0;
    if (this.enterObject())
      do {
        const k = this.key(DATA);
        if (k < 0) {
          this.skipValue();
          continue;
        }
        if (seen & (1 << k)) giveUp();
        seen |= 1 << k;
        if (this.null()) {
          if (k === 2) counts = null;
        } else if (k === 0) {
          active = [];
          if (this.enterArray())
            do {
              // What is not an object is no target (the reference drops it too).
              if (this.peek() !== OPEN_OBJECT) this.skipValue();
              else if (this.onTarget) this.onTarget(this.target());
              else active.push(this.target());
            } while (this.nextElement());
        } else if (k === 1) {
          dropped = [];
          if (this.enterArray())
            do dropped.push(this.droppedTarget());
            while (this.nextElement());
        } else counts = this.counts();
      } while (this.nextMember());
    return {
      activeTargets: active ?? [],
      // Only read when the server does not count them itself.
      droppedTargets: counts ? [] : (dropped ?? []),
      ...(counts !== undefined ? { droppedTargetCounts: counts } : {}),
    };
  }

  private target(): ActiveTarget {
    const target: ActiveTarget = { labels: {}, scrapePool: "", health: "unknown", lastError: "" };
    let seen = 0;
    if (this.enterObject())
      do {
        const k = this.key(TARGET);
        if (k < 0) {
          this.skipValue();
          continue;
        }
        if (seen & (1 << k)) giveUp();
        seen |= 1 << k;
        // A field of another type takes the reference's neutral value (payloads.ts, normaliseActiveTarget).
        if (k === 5) {
          const n = this.numberOrSkip();
          if (n !== undefined && Number.isFinite(n)) target.lastScrapeDuration = n;
        } else if (k === 0) {
          if (this.peek() === OPEN_OBJECT) target.labels = this.labels();
          else this.skipValue();
        } else if (this.peek() !== QUOTE) this.skipValue();
        else if (k === 1) target.scrapePool = this.string(this.pool);
        else if (k === 2) target.health = this.health();
        else if (k === 3) target.lastError = this.string();
        else if (k === 4) target.lastScrape = this.string();
        else if (k === 6) target.scrapeInterval = this.string(this.interval);
        else target.scrapeTimeout = this.string(this.timeout);
      } while (this.nextMember());
    return target;
  }

  /**
   * Only the labels the conversion reads. A value that is not a string gives up: the reference then
   * drops every label, unless a later duplicate key replaces that value.
   */
  private labels(): Record<string, string> {
    const labels: Record<string, string> = {};
    if (this.enterObject())
      do {
        const k = this.key(this.labelKeys);
        if (this.peek() !== QUOTE) giveUp();
        if (k < 0) this.skipString();
        else labels[this.labelNames[k] as string] = this.string();
      } while (this.nextMember());
    return labels;
  }

  private health(): string {
    this.skipString();
    for (const h of HEALTHS) if (this.lastIs(h.bytes)) return h.text;
    return this.decodeLast();
  }

  /** A dropped target's pool, as convert/targets.ts (droppedTargetPool) reads it from a whole element. */
  private droppedTarget(): { scrapePool: string } {
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

  private counts(): Record<string, number> {
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
    return this.p < this.b.length ? (this.b[this.p] as number) : -1;
  }

  private skipWhitespace(): void {
    const b = this.b;
    let p = this.p;
    while (p < b.length && isWhitespace(b[p] as number)) p++;
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

  /** Reads a key and its colon; the index of the key in `keys`, or -1. */
  private key(keys: KeySet | undefined): number {
    if (this.peek() !== QUOTE) giveUp();
    this.skipString();
    let k = -1;
    if (keys !== undefined)
      k = this.escaped ? keys.names.indexOf(this.decodeLast()) : keys.find(this.b, this.start, this.end);
    if (this.peek() !== COLON) giveUp();
    this.p++;
    return k;
  }

  private null(): boolean {
    if (this.peek() !== 0x6e) return false;
    this.literal("null");
    return true;
  }

  private string(same?: Remembered): string {
    if (this.peek() !== QUOTE) giveUp();
    this.skipString();
    if (this.start === this.end) return "";
    if (same === undefined) return this.decodeLast();
    if (!this.escaped && this.sameBytes(same)) return same.text;
    same.start = this.start;
    same.end = this.end;
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
    if (same.end - same.start !== length || same.text === "") return false;
    const b = this.b;
    for (let i = 0; i < length; i++) if (b[same.start + i] !== b[this.start + i]) return false;
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
    if (this.escaped) return JSON.parse(this.b.utf8Slice(this.start - 1, this.end + 1)) as string;
    return this.wide ? this.b.utf8Slice(this.start, this.end) : this.b.latin1Slice(this.start, this.end);
  }

  /** Moves past a string (at its opening quote), checking it; notes where its bytes are. */
  private skipString(): void {
    const b = this.b;
    let p = this.p + 1;
    this.start = p;
    let escaped = false;
    let high = 0;
    for (;;) {
      const c = b[p] as number; // undefined past the end: fails every test below, and gives up
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
    return Number(this.b.latin1Slice(start, this.p));
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

  /** Checks and moves past any value. */
  private skipValue(): void {
    const c = this.peek();
    if (c === QUOTE) this.skipString();
    else if (c === OPEN_OBJECT) {
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

/**
 * A targets answer as the schema would give it, for the parts the conversion reads; undefined when the
 * answer is not in the plain shape the scanner handles (the reference path then decides). With
 * `onTarget`, each active target goes there as it is read and `activeTargets` comes back empty: a
 * caller that gets undefined must discard what it was handed.
 */
export function scanTargetsAnswer(
  bytes: Uint8Array,
  labelNames: readonly string[],
  onTarget?: (target: ActiveTarget) => void,
): TargetsResponse | undefined {
  const buffer = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  try {
    return new Scanner(buffer as Bytes, new KeySet(labelNames), labelNames, onTarget).answer();
  } catch {
    // GiveUp, or anything else (a stack overflow on absurd nesting): the reference path decides.
    return undefined;
  }
}
