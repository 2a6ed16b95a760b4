// The bytes of JSON as the targets reader meets them: the characters it tells apart, giving up, keys
// matched as bytes, and a string's or a number's raw bytes made into their value as JSON.parse would.

/**
 * Thrown to give up; caught at the top. Not an Error: one is thrown wherever a chunk ends inside a value
 * (over a thousand times for a 100k-target answer), and capturing a stack trace each time cost ~100 ms
 * of a poll.
 */
const GIVE_UP = Object.freeze({ reason: "the targets reader gave up" });
export const giveUp = (): never => {
  throw GIVE_UP;
};

export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
export const COMMA = 0x2c;
export const COLON = 0x3a;
export const OPEN_OBJECT = 0x7b;
export const CLOSE_OBJECT = 0x7d;
export const OPEN_ARRAY = 0x5b;
export const CLOSE_ARRAY = 0x5d;

export const isWhitespace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
export const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
export const isHex = (c: number) => isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
/** What may follow a backslash in a JSON string (u is checked with its four hex digits). */
export const SIMPLE_ESCAPES = new Set([QUOTE, BACKSLASH, 0x2f, 0x62, 0x66, 0x6e, 0x72, 0x74]);

/**
 * Keys are matched as bytes, so the answer's keys never become strings. Bytes equal text only for ASCII
 * names: JSON.parse reads the decoded text, where invalid UTF-8 is already U+FFFD (0xFF names "a\uFFFD"),
 * and U+FFFD's own bytes are what a lone surrogate in a name encodes to.
 */
export class KeySet {
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

/** Node's own slicers behind Buffer#toString, without its per-call dispatch (a million calls per poll). */
export type Bytes = Buffer & {
  latin1Slice(start: number, end: number): string;
  utf8Slice(start: number, end: number): string;
};

/** How a string's raw bytes become its text: escapes through JSON.parse, bytes above ASCII as UTF-8. */
export const ESCAPED = 1;
export const WIDE = 2;
/** Powers of ten a double holds exactly. */
export const EXACT_POWERS_OF_TEN = Array.from({ length: 23 }, (_, k) => 10 ** k);

/**
 * The value of a JSON number already checked, `-?digits(.digits)?`, without making a string of it
 * (a scrape duration per target): its digits as an integer below 2^53 over an exact power of ten,
 * one correctly rounded division, so the double JSON.parse gives (Clinger's fast path). Undefined for
 * an exponent or more digits than that; Number() of the text then decides.
 */
export function decimalValue(b: Uint8Array, start: number, end: number): number | undefined {
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
export function decodeSpan(b: Bytes, start: number, end: number, flags: number): string {
  if (flags & ESCAPED) return JSON.parse(b.utf8Slice(start - 1, end + 1)) as string;
  return flags & WIDE ? b.utf8Slice(start, end) : b.latin1Slice(start, end);
}

/**
 * Zero bytes after the bytes the scanner reads: every read past a value's end meets a 0, which ends every
 * loop and check (a control byte, never valid outside a string nor unescaped in one), so no read is ever
 * out of bounds. V8 compiles a typed-array read that once went out of bounds to a slower form for good
 * (the scanner was twice as slow on chunks as on one whole buffer).
 */
export const GUARD = 8;
