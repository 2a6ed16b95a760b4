// An active target of a Prometheus targets answer read in WebAssembly (AssemblyScript, SIMD): the
// common shape only. It finds where the fields the conversion reads are, as spans of the window, and
// checks the rest as JSON; anything else (an escaped or non-ASCII key, a field of another type, a
// duplicate field, the window's end) it leaves to the JavaScript reader, which then reads the target
// itself (src/upstream/targets/scanner.ts). Built by scripts/build-wasm.mjs.
//
// Memory, laid out by the caller (src/upstream/wasm/wasm-target-reader.ts keeps the same numbers):
//   [0, 1024)     the record: i32 slots, below
//   [1024, 2048)  two key tables (keyIndex)
//   [2048, 8192)  the keys' bytes
//   [8192, ...)   the window the JavaScript reader copies each piece of a chunk into; a zero byte
//                 follows the piece, and at least 16 bytes of memory after it exist.

const TARGET_KEYS: usize = 1024;
const LABEL_KEYS: usize = 1536;
const WINDOW: usize = 8192;

// Record slots: the identity hash, then start, end (relative to the window; start -1: absent) and flags
// of each span.
const IDENTITY: usize = 0;
const POOL: usize = 1;
const HEALTH: usize = 4;
const ERROR: usize = 7;
const SCRAPE: usize = 10;
const DURATION: usize = 13; // start, end of a number (no flags)
const INTERVAL: usize = 15;
const TIMEOUT: usize = 18;
const LABELS: usize = 21; // three slots per label key
/** The record slot of target key k (labels and lastScrapeDuration are read apart). */
function fieldSlot(k: i32): usize {
  return k === 1 ? POOL : k === 2 ? HEALTH : k === 3 ? ERROR : k === 4 ? SCRAPE : k === 6 ? INTERVAL : TIMEOUT;
}

const ESCAPED: i32 = 1;
const WIDE: i32 = 2;
/** Containers nested deeper than this in a value nobody reads are left to the JavaScript reader. */
const MAX_DEPTH = 64;

let pos: usize = 0;
let spanStart: usize = 0;
let spanEnd: usize = 0;
let spanFlags: i32 = 0;

function slot(i: usize, value: i32): void {
  store<i32>(i << 2, value);
}

function isWhitespace(c: u32): bool {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

function isDigit(c: u32): bool {
  return c - 0x30 < 10;
}

function isHex(c: u32): bool {
  return c - 0x30 < 10 || (c | 0x20) - 0x61 < 6;
}

/** Skips whitespace; the byte after it. */
function peek(): u32 {
  let c = <u32>load<u8>(pos);
  while (isWhitespace(c)) c = <u32>load<u8>(++pos);
  return c;
}

/**
 * A string at its opening quote, checked as JSON: its bytes' span, whether it has escapes and bytes
 * above ASCII. Sixteen bytes at a time up to a quote, a backslash or a control byte (the zero after
 * the window's piece is one).
 */
function string(): bool {
  const quote = i8x16.splat(0x22);
  const backslash = i8x16.splat(0x5c);
  const space = i8x16.splat(0x20);
  let q = pos + 1;
  const start = q;
  let flags: i32 = 0;
  while (true) {
    const v = v128.load(q);
    const stops = i8x16.bitmask(v128.or(v128.or(i8x16.eq(v, quote), i8x16.eq(v, backslash)), i8x16.lt_u(v, space)));
    const high = i8x16.bitmask(v);
    if (stops === 0) {
      if (high !== 0) flags |= WIDE;
      q += 16;
      continue;
    }
    const at = ctz(stops);
    if ((high & ((1 << at) - 1)) !== 0) flags |= WIDE;
    q += <usize>at;
    const c = <u32>load<u8>(q);
    if (c === 0x22) break;
    if (c !== 0x5c) return false; // a control byte
    flags |= ESCAPED;
    const e = <u32>load<u8>(q + 1);
    if (e === 0x75) {
      if (!isHex(load<u8>(q + 2)) || !isHex(load<u8>(q + 3)) || !isHex(load<u8>(q + 4)) || !isHex(load<u8>(q + 5)))
        return false;
      q += 6;
    } else if (
      e === 0x22 ||
      e === 0x5c ||
      e === 0x2f ||
      e === 0x62 ||
      e === 0x66 ||
      e === 0x6e ||
      e === 0x72 ||
      e === 0x74
    )
      q += 2;
    else return false;
  }
  spanStart = start;
  spanEnd = q;
  spanFlags = flags;
  pos = q + 1;
  return true;
}

/** -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
function number(): bool {
  let p = pos;
  if (load<u8>(p) === 0x2d) p++;
  if (load<u8>(p) === 0x30) p++;
  else if (isDigit(load<u8>(p))) while (isDigit(load<u8>(p))) p++;
  else return false;
  if (load<u8>(p) === 0x2e) {
    p++;
    if (!isDigit(load<u8>(p))) return false;
    while (isDigit(load<u8>(p))) p++;
  }
  const e = <u32>load<u8>(p);
  if (e === 0x65 || e === 0x45) {
    p++;
    const sign = <u32>load<u8>(p);
    if (sign === 0x2b || sign === 0x2d) p++;
    if (!isDigit(load<u8>(p))) return false;
    while (isDigit(load<u8>(p))) p++;
  }
  pos = p;
  return true;
}

function word(w: u64, length: usize): bool {
  for (let i: usize = 0; i < length; i++) if (<u64>load<u8>(pos + i) !== ((w >> (i << 3)) & 0xff)) return false;
  pos += length;
  return true;
}

/** After a member or element: true at a comma, false at `close` (passed too); -1 for anything else. */
function next(close: u32): i32 {
  const c = peek();
  pos++;
  if (c === 0x2c) return 1;
  return c === close ? 0 : -1;
}

/** Checks and passes any value. */
function skipValue(depth: i32): bool {
  const c = peek();
  if (c === 0x22) return string();
  if (c === 0x7b) {
    if (depth >= MAX_DEPTH) return false;
    pos++;
    if (peek() === 0x7d) {
      pos++;
      return true;
    }
    while (true) {
      if (peek() !== 0x22 || !string()) return false;
      if (peek() !== 0x3a) return false;
      pos++;
      if (!skipValue(depth + 1)) return false;
      const more = next(0x7d);
      if (more <= 0) return more === 0;
    }
  }
  if (c === 0x5b) {
    if (depth >= MAX_DEPTH) return false;
    pos++;
    if (peek() === 0x5d) {
      pos++;
      return true;
    }
    while (true) {
      if (!skipValue(depth + 1)) return false;
      const more = next(0x5d);
      if (more <= 0) return more === 0;
    }
  }
  if (c === 0x74) return word(0x65757274, 4); // true
  if (c === 0x66) return word(0x65736c6166, 5); // false
  if (c === 0x6e) return word(0x6c6c756e, 4); // null
  return number();
}

/**
 * The index of the key spelled by memory [start, end) in a key table, or -1. A table: the count (i32),
 * then (offset, length) per key (i32 each), at +400 the first key of each length below 64 (i8, -1:
 * none) and at +464 the next key of the same length after each (i8).
 */
function keyIndex(table: usize, start: usize, end: usize): i32 {
  const length = <i32>(end - start);
  if (length >= 64) return -1;
  for (let k = <i32>load<i8>(table + 400 + <usize>length); k >= 0; k = <i32>load<i8>(table + 464 + <usize>k))
    if (sameBytes(<usize>load<i32>(table + 4 + ((<usize>k) << 3)), start, length)) return k;
  return -1;
}

function sameBytes(a: usize, b: usize, length: i32): bool {
  for (let i = 0; i < length; i++) if (load<u8>(a + <usize>i) !== load<u8>(b + <usize>i)) return false;
  return true;
}

function setSpan(at: usize): void {
  slot(at, <i32>(spanStart - WINDOW));
  slot(at + 1, <i32>(spanEnd - WINDOW));
  slot(at + 2, spanFlags);
}

/** A target's labels object (at its brace): the spans of the label keys in the table. */
function labels(): bool {
  pos++;
  if (peek() === 0x7d) {
    pos++;
    return true;
  }
  while (true) {
    if (peek() !== 0x22 || !string() || spanFlags !== 0) return false;
    const k = keyIndex(LABEL_KEYS, spanStart, spanEnd);
    if (peek() !== 0x3a) return false;
    pos++;
    if (peek() !== 0x22 || !string()) return false;
    if (k >= 0) setSpan(LABELS + 3 * <usize>k);
    const more = next(0x7d);
    if (more <= 0) return more === 0;
  }
}

// The identity hash (src/convert/identity-hash.ts, which the JavaScript reader's targets get theirs
// from; the two are the same function, tested): the pool's span, then each label key's in the table's
// order (an absent one empty), four bytes a step, each span ended by a step with its tail and length.
const K: u32 = 0x9e3779b1;
const IDENTITY_SEED: u32 = 0x2545f491;

function step(h: u32, word: u32): u32 {
  return (rotl<u32>(h, 5) ^ word) * K;
}

function hashSpan(h: u32, start: usize, end: usize): u32 {
  let p = start;
  while (p + 4 <= end) {
    h = step(h, load<u32>(p));
    p += 4;
  }
  const tail = <u32>(end - p);
  // The bytes past the tail are masked off (memory exists past any span: the zero and 16 bytes).
  const bytes = tail === 0 ? 0 : load<u32>(p) & (((<u32>1) << (tail << 3)) - 1);
  return step(h, bytes | ((0x80 | tail) << 24));
}

function spanHash(h: u32, at: usize): u32 {
  const start = load<i32>(at << 2);
  if (start < 0) return hashSpan(h, 0, 0);
  return hashSpan(h, WINDOW + <usize>start, WINDOW + <usize>load<i32>((at + 1) << 2));
}

function identityHash(labelCount: usize): i32 {
  let h = spanHash(IDENTITY_SEED, POOL);
  for (let k: usize = 0; k < labelCount; k++) h = spanHash(h, LABELS + 3 * k);
  h ^= h >> 16;
  h *= 0x85ebca6b;
  h ^= h >> 13;
  h *= 0xc2b2ae35;
  return <i32>(h ^ (h >> 16));
}

/**
 * Reads the target at window[p] (the piece ends at n): where it ends, or -1 to leave it to the
 * JavaScript reader. The record holds the spans read.
 */
export function target(p: i32, n: i32): i32 {
  pos = WINDOW + <usize>p;
  const labelCount = <usize>load<i32>(LABEL_KEYS);
  for (let i: usize = 0; i < LABELS + 3 * labelCount; i += 1) slot(i, -1);
  if (peek() !== 0x7b) return -1;
  pos++;
  let seen: i32 = 0;
  if (peek() === 0x7d) pos++;
  else
    while (true) {
      if (peek() !== 0x22 || !string() || (spanFlags & ESCAPED) !== 0) return -1;
      // A key with bytes above ASCII names no field (the fields' names are ASCII).
      const k = spanFlags !== 0 ? -1 : keyIndex(TARGET_KEYS, spanStart, spanEnd);
      if (peek() !== 0x3a) return -1;
      pos++;
      if (k < 0) {
        if (!skipValue(0)) return -1;
      } else {
        if ((seen & (1 << k)) !== 0) return -1;
        seen |= 1 << k;
        const c = peek();
        if (k === 0) {
          if (c !== 0x7b || !labels()) return -1;
        } else if (k === 5) {
          const start = pos;
          if (!(c === 0x2d || isDigit(c)) || !number()) return -1;
          slot(DURATION, <i32>(start - WINDOW));
          slot(DURATION + 1, <i32>(pos - WINDOW));
        } else {
          if (c !== 0x22 || !string()) return -1;
          setSpan(fieldSlot(k));
        }
      }
      const more = next(0x7d);
      if (more < 0) return -1;
      if (more === 0) break;
    }
  // Every loop stops at the zero byte at n; a target read past it would be a fault here, left to the caller.
  if (pos > WINDOW + <usize>n) return -1;
  slot(IDENTITY, identityHash(labelCount));
  return <i32>(pos - WINDOW);
}
