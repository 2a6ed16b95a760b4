// A per-target family's lines written in WebAssembly (AssemblyScript): for each series in order,
// `start` + its rendered labels + `} ` + its value + a newline, the value written as
// src/exposition/value-bytes.ts writes it (m / 10^s from m's digits) and a series with no value (NaN)
// left out. A value that needs JavaScript's own number formatting (an exponent, more than 15 digits,
// an infinity) stops the loop: the caller writes that line and goes on after it. Built by
// scripts/build-wasm.mjs.
//
// Memory: imported and shared (the caller's other threads read the lines written into it). [0, 128)
// the results, digits and text below, then the powers of ten and the digit pairs (static data, from
// 128); from 1024 on it is the caller's
// (src/lib/lines-arena.ts keeps the same numbers): the series' rendered labels (an arena) from `blocks`
// on, and the start, offsets, lengths, values and output of the lines being written, where it says.

/** i32: the series (index into the offsets) to write next. */
const NEXT: usize = 0;
/** i32: why writing stopped: DONE, ROOM (the next line does not fit) or VALUE (the caller writes it). */
const STOPPED: usize = 4;
const DONE: i32 = 0;
const ROOM: i32 = 1;
const VALUE: i32 = 2;
/** A value's digits, written right to left (ending at DIGITS + 16), and its text (with 16 bytes to spare). */
const DIGITS: usize = 16;
const TEXT: usize = 64;

const POWERS = memory.data<f64>([1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9]);
/** "00", "01", … "99": two digits' text at 2 * n. */
const PAIRS = memory.data<u8>([
  48, 48, 48, 49, 48, 50, 48, 51, 48, 52, 48, 53, 48, 54, 48, 55, 48, 56, 48, 57, 49, 48, 49, 49, 49, 50, 49, 51, 49,
  52, 49, 53, 49, 54, 49, 55, 49, 56, 49, 57, 50, 48, 50, 49, 50, 50, 50, 51, 50, 52, 50, 53, 50, 54, 50, 55, 50, 56,
  50, 57, 51, 48, 51, 49, 51, 50, 51, 51, 51, 52, 51, 53, 51, 54, 51, 55, 51, 56, 51, 57, 52, 48, 52, 49, 52, 50, 52,
  51, 52, 52, 52, 53, 52, 54, 52, 55, 52, 56, 52, 57, 53, 48, 53, 49, 53, 50, 53, 51, 53, 52, 53, 53, 53, 54, 53, 55,
  53, 56, 53, 57, 54, 48, 54, 49, 54, 50, 54, 51, 54, 52, 54, 53, 54, 54, 54, 55, 54, 56, 54, 57, 55, 48, 55, 49, 55,
  50, 55, 51, 55, 52, 55, 53, 55, 54, 55, 55, 55, 56, 55, 57, 56, 48, 56, 49, 56, 50, 56, 51, 56, 52, 56, 53, 56, 54,
  56, 55, 56, 56, 56, 57, 57, 48, 57, 49, 57, 50, 57, 51, 57, 52, 57, 53, 57, 54, 57, 55, 57, 56, 57, 57,
]);
const MAX_DIGITS_VALUE: f64 = 1e15;
const MAX_SCALE: i32 = 9;
const ZERO: u8 = 0x30;
const POINT: u8 = 0x2e;

/** Math.round of ECMAScript for x >= 0: the nearest integer, halves up. */
function roundHalfUp(x: f64): f64 {
  const down = Math.floor(x);
  return x - down >= 0.5 ? down + 1 : down;
}

/** Writes n's two digits (n < 100) just before DIGITS + q; where they start. */
function pairAt(q: usize, n: u32): usize {
  store<u16>(DIGITS + q - 2, load<u16>(PAIRS + ((<usize>n) << 1)));
  return q - 2;
}

/** Writes m / 10^scale in fixed notation (0 < m < 1e15) at TEXT + at, without trailing zeros; its end. */
function writeScaled(at: usize, m: u64, scale: i32): usize {
  // Two digits at a time, in 32-bit halves (m < 1e15: the high half < 1e7): a 64-bit division by ten
  // per digit took ~0.9 of the 4.7 ms a 100k-target family of timestamps was written in (Node 24).
  let q: usize = 16;
  const high = <u32>(m / 100000000);
  let low = <u32>(m - <u64>high * 100000000);
  if (high > 0) {
    for (let i = 0; i < 4; i++) {
      const next = low / 100;
      q = pairAt(q, low - next * 100);
      low = next;
    }
    low = high;
  }
  while (low >= 100) {
    const next = low / 100;
    q = pairAt(q, low - next * 100);
    low = next;
  }
  if (low >= 10) q = pairAt(q, low);
  else store<u8>(DIGITS + --q, <u8>(ZERO + low));
  const first = q;
  let end: usize = 16;
  let s = scale;
  while (s > 0 && load<u8>(DIGITS + end - 1) === ZERO) {
    end--;
    s--;
  }
  const integerDigits = <i32>(end - first) - s;
  // The digits (15 at most) and the zeros (9 at most) go 16 bytes at a time: what is written past
  // them is written over, or past the text's end (TEXT has room for it).
  let p = at;
  if (integerDigits <= 0) {
    v128.store(p, v128.splat<u8>(ZERO));
    store<u8>(p + 1, POINT);
    p += 2 + <usize>-integerDigits;
    v128.store(p, v128.load(DIGITS + first));
    return p + (end - first);
  }
  v128.store(p, v128.load(DIGITS + first));
  p += <usize>integerDigits;
  if (s > 0) {
    store<u8>(p++, POINT);
    v128.store(p, v128.load(DIGITS + end - <usize>s));
    p += <usize>s;
  }
  return p;
}

/** The text of `value` at TEXT, as value-bytes.ts writes it; its length, or -1 where JavaScript must write it. */
function valueText(value: f64): i32 {
  if (value === 0) {
    store<u8>(TEXT, ZERO); // -0 too
    return 1;
  }
  const magnitude = Math.abs(value);
  if (!(magnitude >= 1e-6 && magnitude < MAX_DIGITS_VALUE)) return -1;
  let scale = MAX_SCALE;
  while (scale > 0 && magnitude * load<f64>(POWERS + ((<usize>scale) << 3)) >= MAX_DIGITS_VALUE) scale--;
  const power = load<f64>(POWERS + ((<usize>scale) << 3));
  const m = roundHalfUp(magnitude * power);
  if (!(m < MAX_DIGITS_VALUE && m / power === magnitude)) return -1;
  let p = TEXT;
  if (value < 0) store<u8>(p++, 0x2d); // -
  return <i32>(writeScaled(p, <u64>m, scale) - TEXT);
}

// The last value written and its text's length (at TEXT still): most series of a family share their
// value (an interval, a timeout, up), whose text is then not made again. Half the writer's time for a
// 100k-target plain scrape went to making values' text (Node 24, profiled). NaN: none yet.
let lastValue: f64 = NaN;
let lastText: i32 = -1;

// Values' text kept from one writing of a family to the next (its values change only in a poll): 16
// bytes a series, its text and, in the last byte, its length (0: not kept, too long or JavaScript's to
// write). Making the text was ~60% of writing a family of timestamps or durations (Node 24).
/** `textsMode`: 0 none kept; keep each series' text at `texts` + 16 k; take it from there where kept. */
const KEEP_TEXTS: i32 = 1;
const READ_TEXTS: i32 = 2;
/** Where a kept text's length is in its 16 bytes: texts longer than this are not kept. */
const TEXT_KEPT: usize = 15;

/** Longest copy made 16 bytes at a time; longer ones are memory.copy's. */
const SHORT_COPY: usize = 256;

/**
 * Copies n bytes from src to dst (not overlapping). A short copy goes 16 bytes at a time (SIMD) and
 * may read and write up to 15 bytes past the n: what it writes past is written over by what follows,
 * and the caller keeps 16 bytes of room after the output and memory after every source. memory.copy
 * costs a call into the engine (~20 ns), three per line, which made it most of a line's cost; 16 bytes
 * at a time writes a 100k-target plain scrape's five families in ~12% less time than 8 did (Node 24).
 */
function copy(dst: usize, src: usize, n: usize): void {
  if (n > SHORT_COPY) {
    memory.copy(dst, src, n);
    return;
  }
  for (let i: usize = 0; i < n; i += 16) v128.store(dst + i, v128.load(src + i));
}

/**
 * Writes the lines of series [from, to) into [out, out + room) (and may write over the 16 bytes after:
 * copy), series k's labels are `lengths[k]` bytes
 * at `blocks` + `offsets[k]` (i32 each), its value `values[k]` (f64), its value's text kept at
 * `texts` + 16 k as `textsMode` says (KEEP_TEXTS, READ_TEXTS; 0: none). Returns the bytes written; NEXT
 * says the series to go on with, STOPPED why it stopped there.
 */
export function lines(
  start: usize,
  startLength: i32,
  blocks: usize,
  offsets: usize,
  lengths: usize,
  values: usize,
  from: i32,
  to: i32,
  out: usize,
  room: i32,
  texts: usize,
  textsMode: i32,
): i32 {
  let at = out;
  const end = out + <usize>room;
  let k = from;
  let why = DONE;
  for (; k < to; k++) {
    const value = load<f64>(values + ((<usize>k) << 3));
    // biome-ignore lint/suspicious/noGlobalIsNan: AssemblyScript's builtin of f64, no coercion
    if (isNaN(value)) continue; // no value, no line
    const entry = texts + ((<usize>k) << 4);
    let textAt = TEXT;
    let text = textsMode === READ_TEXTS ? <i32>load<u8>(entry + TEXT_KEPT) : 0;
    if (text > 0 && text <= <i32>TEXT_KEPT) textAt = entry;
    else {
      text = lastText;
      if (value !== lastValue) {
        text = valueText(value);
        lastValue = value;
        lastText = text;
      }
      if (textsMode === KEEP_TEXTS) {
        v128.store(entry, v128.load(TEXT));
        store<u8>(entry + TEXT_KEPT, text > 0 && text <= <i32>TEXT_KEPT ? <u8>text : 0);
      }
    }
    if (text < 0) {
      why = VALUE;
      break;
    }
    const length = load<i32>(lengths + ((<usize>k) << 2));
    if (at + <usize>(startLength + length + text + 3) > end) {
      why = ROOM;
      break;
    }
    copy(at, start, <usize>startLength);
    at += startLength;
    copy(at, blocks + <usize>load<i32>(offsets + ((<usize>k) << 2)), <usize>length);
    at += length;
    store<u8>(at, 0x7d); // }
    store<u8>(at + 1, 0x20); // space
    at += 2;
    copy(at, textAt, <usize>text);
    at += text;
    store<u8>(at++, 0x0a);
  }
  store<i32>(NEXT, k);
  store<i32>(STOPPED, why);
  return <i32>(at - out);
}
