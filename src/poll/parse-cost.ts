import { isAscii } from "node:buffer";
import { randomInt } from "node:crypto";

// What JSON.parse of an answer may take on the heap, estimated from its bytes before it is parsed.
//
// JSON.parse cannot be interrupted: a decoder thread whose heap runs out inside it makes V8 abort the
// whole process, not the thread. How much heap a text takes depends on its shape more than its size:
// a realistic targets answer takes 0.9 times its text, `[[],[],…]` 13 times, `[{},{},…]` 21 times,
// `[{"34":0},…]` 40 times. So the answer is measured the way V8 builds it: one pass over the bytes
// counts containers, values, numbers, strings and their characters (short strings met before are
// shared, as V8 shares them), and follows objects' keys as V8's hidden classes (maps) do, so that a
// sequence of keys met before costs its fields only and a new one costs a map; objects that V8 keeps
// as hash tables (128 members or more, too many sibling maps) and index keys ("0", "34": elements) are
// charged as such. The text itself is counted too: Node.js 20 holds it on the heap (Node.js 24 keeps a
// large one outside it).
//
// The costs are V8's object sizes on 64-bit Node.js (8-byte pointers, no pointer compression), measured
// on Node.js 20 and 24 with v8.getHeapStatistics() around JSON.parse, per shape (scripts/parse-cost.ts
// prints the table; scripts/json-shapes.ts has the shapes). What is parsed is then charged MARGIN
// (1.25) times: for every shape measured the estimate is at least the text plus 1.25 times what the
// parse took (test/poll/parse-cost.test.ts checks it on the runtime under test), and 1.3 to 1.9 times
// the whole for realistic answers. Key and string hashes are seeded per process, so that no answer can
// be built to make distinct maps or strings look alike; a chance collision costs one map (~400 bytes).
//
// Speed (scripts/parse-cost.ts --speed, on a loaded 2-core machine): 0.3 to 0.6 times the Buffer#toString
// and JSON.parse it guards on a 78 MB targets answer, 0.4 to 0.7 on a tsdb answer; it stops as soon as
// the budget is exceeded (a hostile answer is refused after a few MB). It runs only before a whole
// parse, which the validation and conversion after it multiply several times.

const SLOT = 8; // a value's place in its array's elements or its object's fields
const ARRAY = 48; // JSArray (32) and its elements' header (16)
const OBJECT = 72; // JSObject with 4 preallocated fields (56) and a property array's header (16)
const NUMBER = 16; // a HeapNumber; small integers take none, but every number is charged
const STRING = 24; // a string's header (16) and its characters' rounding to 8 bytes
/** A key sequence not met before: a map, its descriptor, its parent's transition entry (twice: a field
 * whose values change from integers to fractions makes V8 replace the maps after it once). */
const MAP = 2 * 160;
/** Per member before the new key: a branching map copies its parent's descriptors (24 bytes each). */
const DESCRIPTOR = 2 * 24;
/** An object held as a hash table: its table's header and minimum capacity. */
const DICTIONARY = 200;
/** A member of a hash-table object: key, value and details (24 bytes) at a load factor down to 1/3. */
const DICTIONARY_ENTRY = 72;
/** An object with index keys: its elements, up to 35 slots, or a number dictionary. */
const INDEXED = 400;
/** An index member: up to 16 slots of holey elements each, or a number dictionary's entry. */
const INDEX_ENTRY = 192;
/** String values of up to this many characters V8 keeps once (10 on Node.js 20, 9 on 24). */
const SHARED_LENGTH = 9;
/** Short strings remembered at most, to know them met again. */
const SHARED_STRINGS = 2 ** 16;
/** Members from which V8 makes an object a hash table (128 on Node.js 20 and 24). */
const FAST_MEMBERS = 128;
/** Maps branching from one map beyond which V8 makes new objects hash tables (1536 in V8; fewer here). */
const FAN_OUT = 1024;
/** What is parsed is charged this many times what the costs above add up to. */
export const MARGIN = 1.25;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const ZERO = 0x30;
const NINE = 0x39;

// A string's scan: the index of its closing quote × 4, plus these.
const WIDE = 1; // V8 stores it as two bytes a character (a character above U+00FF, or invalid UTF-8)
const WIDE_TEXT = 2; // so does it the whole text (as written, not only through a `\u` escape)

// A value's kind is part of its map's identity: V8 gives a field a representation (small integer,
// double, tagged) and replaces maps when a value needs a wider one.
const KIND_STRING = 1;
const KIND_INTEGER = 2;
const KIND_NUMBER = 3;
const KIND_LITERAL = 4;
const KIND_ARRAY = 5;
const KIND_OBJECT = 6;

// A container on the stack: [flags, map, members]
const IS_OBJECT = 1;
const IS_DICTIONARY = 2;
const HAS_INDEX = 4;

/** Key hashes are seeded per process: no answer can be built to make distinct maps collide. */
const SEED = randomInt(2 ** 30);
const KEY_BASIS = 0x811c9dc5 ^ SEED;
const mapHash = (parent: number, key: number, kind: number): number => {
  let h = Math.imul(parent ^ Math.imul(key, 0x85ebca6b), 0xc2b2ae35) + kind;
  h ^= h >>> 15;
  h = Math.imul(h, 0x27d4eb2f);
  return ((h ^ (h >>> 13)) & 0x3fffffff) | 0x40000000; // never 0, the table's empty slot
};
const ROOT_MAP = mapHash(SEED, 0, 0);

/** Maps met so far by hash, each with how many maps branch from it: open addressing, outside the heap. */
class MapTable {
  private slots = new Int32Array(2 * 4096); // [hash, branches] pairs
  private mask = 4095;
  private size = 0;

  constructor() {
    this.add(ROOT_MAP);
  }

  /** The pair index where `hash` is, or the empty one where it would go. */
  find(hash: number): number {
    let at = hash & this.mask;
    for (;;) {
      const h = this.slots[2 * at] as number;
      if (h === hash || h === 0) return at;
      at = (at + 1) & this.mask;
    }
  }

  has(hash: number): boolean {
    return this.slots[2 * this.find(hash)] === hash;
  }

  /** How many maps branch from `parent` so far, counting one more. */
  branch(parent: number): number {
    const at = this.find(parent);
    if (this.slots[2 * at] !== parent) return 0; // not a map of ours: cannot happen for a parent
    const branches = (this.slots[2 * at + 1] as number) + 1;
    this.slots[2 * at + 1] = branches;
    return branches;
  }

  add(hash: number): void {
    const at = this.find(hash);
    if (this.slots[2 * at] === hash) return;
    this.slots[2 * at] = hash;
    if (++this.size * 2 > this.mask) this.grow();
  }

  private grow(): void {
    const old = this.slots;
    this.mask = this.mask * 2 + 1;
    this.slots = new Int32Array(2 * (this.mask + 1));
    for (let k = 0; k < old.length; k += 2) {
      const hash = old[k] as number;
      if (hash === 0) continue;
      const at = this.find(hash);
      this.slots[2 * at] = hash;
      this.slots[2 * at + 1] = old[k + 1] as number;
    }
  }
}

/**
 * Short strings met so far, by hash: V8 keeps one copy of each string value of up to SHARED_LENGTH
 * characters. At most SHARED_STRINGS are remembered (512 KiB); any other is charged each time.
 */
class StringTable {
  private readonly slots = new Int32Array(2 * SHARED_STRINGS);
  private size = 0;

  /** Whether the string at [start, end) was met before (an empty or one-character one always was). */
  shared(bytes: Uint8Array, start: number, end: number): boolean {
    if (end - start <= 1) return end === start || (bytes[start] as number) < 0x80;
    let h = KEY_BASIS;
    for (let j = start; j < end; j++) {
      const k = bytes[j] as number;
      if (k >= 0x80 || k === BACKSLASH) return false; // as written is not what V8 compares
      h = Math.imul(h ^ k, 0x01000193);
    }
    h = (h & 0x7fffffff) | 1; // never 0, the empty slot
    const mask = 2 * SHARED_STRINGS - 1;
    for (let at = h & mask; ; at = (at + 1) & mask) {
      const slot = this.slots[at] as number;
      if (slot === h) return true;
      if (slot === 0) {
        if (this.size < SHARED_STRINGS) {
          this.slots[at] = h;
          this.size++;
        }
        return false;
      }
    }
  }
}

/** Whether a `\u` escape names a character above U+00FF (its string takes 2 bytes a character). */
function hasWideEscape(bytes: Uint8Array): boolean {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let at = buffer.indexOf("\\u"); at >= 0; at = buffer.indexOf("\\u", at + 2)) {
    if (bytes[at + 2] !== ZERO || bytes[at + 3] !== ZERO) return true;
  }
  return false;
}

/**
 * A string's bytes from i (after its opening quote): its closing quote's index × 4, plus WIDE and
 * WIDE_TEXT. Only called when the text holds bytes above 0x7f or `\u` escapes above U+00FF.
 */
function scanWideString(bytes: Uint8Array, i: number, n: number): number {
  let flags = 0;
  let j = i;
  while (j < n) {
    const c = bytes[j] as number;
    if (c === QUOTE) break;
    if (c === BACKSLASH) {
      if (bytes[j + 1] === 0x75 && (bytes[j + 2] !== ZERO || bytes[j + 3] !== ZERO)) flags |= WIDE;
      j += 2;
    } else if (c < 0x80) {
      j++;
    } else {
      // C2 and C3 followed by a continuation byte are U+0080-U+00FF; anything else is wider, or
      // invalid (decoded as U+FFFD).
      const next = bytes[j + 1] as number;
      if ((c === 0xc2 || c === 0xc3) && next >= 0x80 && next < 0xc0) j += 2;
      else {
        flags |= WIDE | WIDE_TEXT;
        j++;
      }
    }
  }
  return j * 4 + flags;
}

/** Whether bytes [i, end) are an array index ("0" to "4294967294"): V8 keeps such a key in elements. */
function isIndex(bytes: Uint8Array, i: number, end: number): boolean {
  if (end <= i || end - i > 10 || (bytes[i] === ZERO && end - i > 1)) return false;
  let value = 0;
  for (let j = i; j < end; j++) {
    const k = bytes[j] as number;
    if (k < ZERO || k > NINE) return false;
    value = value * 10 + (k - ZERO);
  }
  return value <= 4294967294;
}

/**
 * The heap JSON.parse of `bytes` may take, the text as a string included, in bytes: at least what
 * Node.js 20 and 24 take. Stops counting once over `limit` (the result is then over it, and less than
 * the whole). Invalid JSON is estimated as far as it goes, which is further than JSON.parse goes.
 */
export function parseHeapCost(bytes: Uint8Array, limit = Number.POSITIVE_INFINITY): number {
  const n = bytes.length;
  const ascii = isAscii(bytes);
  const wideStrings = !ascii || hasWideEscape(bytes);
  let wideText = false;
  // Counted without the margin; what the text takes is added at the end (once more if it is wide).
  const text = STRING + n;
  const stop = (limit - text) / MARGIN;
  let cost = 0;

  const maps = new MapTable();
  const strings = new StringTable();
  let stack = new Int32Array(3 * 64);
  let top = -3; // index of the innermost container's flags
  let keyNext = false; // the next string is an object's key
  // The last key read, waiting for its value's kind.
  let keyHash = 0;
  let keyCost = 0;
  let keyIsIndex = false;

  let i = 0;
  while (i < n) {
    const c = bytes[i] as number;
    let kind: number;
    switch (c) {
      case 0x20:
      case 0x0a:
      case 0x0d:
      case 0x09:
      case 0x3a: // ':' (the value after it is read by its first byte)
        i++;
        continue;
      case 0x2c: // ','
        keyNext = top >= 0 && ((stack[top] as number) & IS_OBJECT) !== 0;
        i++;
        continue;
      case 0x5d: // ']'
      case 0x7d: // '}'
        if (top >= 0) top -= 3;
        keyNext = false;
        i++;
        continue;
      case QUOTE: {
        let j = i + 1;
        let wide = 0;
        if (keyNext) {
          // A key: hashed (FNV-1a) to follow maps; the value's kind completes its map.
          let h = KEY_BASIS;
          while (j < n) {
            const k = bytes[j] as number;
            if (k === QUOTE) break;
            h = Math.imul(h ^ k, 0x01000193);
            if (k === BACKSLASH) {
              h = Math.imul(h ^ (bytes[j + 1] as number), 0x01000193);
              j += 2;
            } else j++;
          }
          if (wideStrings) {
            const flags = scanWideString(bytes, i + 1, n);
            wide = flags & WIDE;
            if (flags & WIDE_TEXT) wideText = true;
          }
          keyHash = h;
          keyIsIndex = (bytes[i + 1] as number) <= NINE && isIndex(bytes, i + 1, j);
          keyCost = STRING + (j - i - 1) * (wide + 1);
          keyNext = false;
          i = j + 1;
          continue;
        }
        // A string value: one or two bytes a character (escapes counted as written: no fewer).
        if (wideStrings) {
          const scanned = scanWideString(bytes, j, n);
          j = scanned >>> 2;
          wide = scanned & WIDE;
          if (scanned & WIDE_TEXT) wideText = true;
        } else {
          while (j < n) {
            const k = bytes[j] as number;
            if (k === QUOTE) break;
            j += k === BACKSLASH ? 2 : 1;
          }
        }
        kind = KIND_STRING;
        const length = j - i - 1;
        if (length > SHARED_LENGTH || !strings.shared(bytes, i + 1, j)) cost += STRING + length * (wide + 1);
        i = j + 1;
        break;
      }
      case 0x5b: // '['
        kind = KIND_ARRAY;
        cost += ARRAY;
        i++;
        break;
      case 0x7b: // '{'
        kind = KIND_OBJECT;
        cost += OBJECT;
        i++;
        break;
      case 0x2d: // '-'
      case 0x30:
      case 0x31:
      case 0x32:
      case 0x33:
      case 0x34:
      case 0x35:
      case 0x36:
      case 0x37:
      case 0x38:
      case 0x39: {
        // Up to 9 digits without a fraction or exponent is a small integer to V8 (but not -0).
        let j = i + 1;
        let integer = !(c === 0x2d && bytes[j] === ZERO);
        while (j < n) {
          const k = bytes[j] as number;
          if (k >= ZERO && k <= NINE) j++;
          else if (k === 0x2e || k === 0x65 || k === 0x45 || k === 0x2b || k === 0x2d) {
            integer = false;
            j++;
          } else break;
        }
        kind = integer && j - i <= (c === 0x2d ? 10 : 9) ? KIND_INTEGER : KIND_NUMBER;
        cost += NUMBER;
        i = j;
        break;
      }
      default: {
        // true, false, null, or a byte that ends the JSON (the parse stops there).
        if (c >= 0x80) wideText = true;
        let j = i + 1;
        while (j < n && (bytes[j] as number) >= 0x61 && (bytes[j] as number) <= 0x7a) j++;
        kind = KIND_LITERAL;
        i = j;
        break;
      }
    }

    // A value: its place in its container; an object's member goes to a map or a table.
    if (top >= 0) {
      cost += SLOT;
      let flags = stack[top] as number;
      if (flags & IS_OBJECT) {
        const members = stack[top + 2] as number;
        stack[top + 2] = members + 1;
        if (keyIsIndex) {
          cost += INDEX_ENTRY;
          if (!(flags & HAS_INDEX)) {
            cost += INDEXED;
            stack[top] = flags | HAS_INDEX;
          }
          keyIsIndex = false;
        } else if (flags & IS_DICTIONARY) {
          cost += DICTIONARY_ENTRY + keyCost;
        } else {
          const parent = stack[top + 1] as number;
          const map = mapHash(parent, keyHash, kind);
          if (!maps.has(map)) {
            if (maps.branch(parent) > FAN_OUT) flags |= IS_DICTIONARY;
            else {
              maps.add(map);
              cost += MAP + DESCRIPTOR * members + keyCost;
            }
          }
          stack[top + 1] = map;
          if (members + 1 >= FAST_MEMBERS) flags |= IS_DICTIONARY;
          if (flags & IS_DICTIONARY) {
            // From here on a hash table, holding the members so far.
            cost += DICTIONARY + DICTIONARY_ENTRY * (members + 1) + keyCost;
            stack[top] = flags;
          }
        }
      }
    }
    if (cost > stop) break;

    if (kind === KIND_ARRAY || kind === KIND_OBJECT) {
      top += 3;
      if (top + 3 > stack.length) {
        const grown = new Int32Array(stack.length * 2);
        grown.set(stack);
        stack = grown;
      }
      stack[top] = kind === KIND_OBJECT ? IS_OBJECT : 0;
      stack[top + 1] = ROOT_MAP;
      stack[top + 2] = 0;
      keyNext = kind === KIND_OBJECT;
    }
  }
  return text + (wideText ? n : 0) + cost * MARGIN;
}
