// A per-target family's lines written in WebAssembly (AssemblyScript): for each series in order,
// `start` + its rendered labels + `} ` + its value + a newline, the value written as
// src/exposition/value-bytes.ts writes it (m / 10^s from m's digits) and a series with no value (NaN)
// left out. A value that needs JavaScript's own number formatting (an exponent, more than 15 digits,
// an infinity) stops the loop: the caller writes that line and goes on after it. Built by
// scripts/build-wasm.mjs.
//
// Memory: [0, 64) the results and the digits below, then the powers of ten (static data); from 1024 on
// it is the caller's (src/lib/lines-arena.ts keeps the same numbers): the series' rendered labels
// (an arena), and while lines are written, their start, offsets, lengths, values and the output.

/** i32: the series (index into the offsets) to write next. */
const NEXT: usize = 0;
/** i32: why writing stopped: DONE, ROOM (the next line does not fit) or VALUE (the caller writes it). */
const STOPPED: usize = 4;
const DONE: i32 = 0;
const ROOM: i32 = 1;
const VALUE: i32 = 2;
/** Where the caller's memory starts (src/lib/lines-arena.ts's BASE): the offsets are counted from here. */
const BASE: usize = 1024;
/** A value's digits, written right to left, and its text. */
const DIGITS: usize = 16;
const TEXT: usize = 32;

const POWERS = memory.data<f64>([1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9]);
const MAX_DIGITS_VALUE: f64 = 1e15;
const MAX_SCALE: i32 = 9;
const ZERO: u8 = 0x30;
const POINT: u8 = 0x2e;

/** Math.round of ECMAScript for x >= 0: the nearest integer, halves up. */
function roundHalfUp(x: f64): f64 {
  const down = Math.floor(x);
  return x - down >= 0.5 ? down + 1 : down;
}

/** Writes m / 10^scale in fixed notation (0 < m < 1e15) at TEXT + at, without trailing zeros; its end. */
function writeScaled(at: usize, m: u64, scale: i32): usize {
  let q: usize = 16;
  do {
    const next = m / 10;
    store<u8>(DIGITS + --q, <u8>(<u64>ZERO + m - next * 10));
    m = next;
  } while (m > 0);
  const first = q;
  let end: usize = 16;
  let s = scale;
  while (s > 0 && load<u8>(DIGITS + end - 1) === ZERO) {
    end--;
    s--;
  }
  const integerDigits = <i32>(end - first) - s;
  let p = at;
  if (integerDigits <= 0) {
    store<u8>(p++, ZERO);
    store<u8>(p++, POINT);
    for (let z = integerDigits; z < 0; z++) store<u8>(p++, ZERO);
    for (let i = first; i < end; i++) store<u8>(p++, load<u8>(DIGITS + i));
    return p;
  }
  const integerEnd = first + <usize>integerDigits;
  for (let i = first; i < integerEnd; i++) store<u8>(p++, load<u8>(DIGITS + i));
  if (s > 0) {
    store<u8>(p++, POINT);
    for (let i = end - <usize>s; i < end; i++) store<u8>(p++, load<u8>(DIGITS + i));
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
 * at BASE + `offsets[k]` (i32 each), its value `values[k]` (f64). Returns the bytes written; NEXT says the
 * series to go on with, STOPPED why it stopped there.
 */
export function lines(
  start: usize,
  startLength: i32,
  offsets: usize,
  lengths: usize,
  values: usize,
  from: i32,
  to: i32,
  out: usize,
  room: i32,
): i32 {
  let at = out;
  const end = out + <usize>room;
  let k = from;
  let why = DONE;
  for (; k < to; k++) {
    const value = load<f64>(values + ((<usize>k) << 3));
    // biome-ignore lint/suspicious/noGlobalIsNan: AssemblyScript's builtin of f64, no coercion
    if (isNaN(value)) continue; // no value, no line
    let text = lastText;
    if (value !== lastValue) {
      text = valueText(value);
      lastValue = value;
      lastText = text;
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
    copy(at, BASE + <usize>load<i32>(offsets + ((<usize>k) << 2)), <usize>length);
    at += length;
    store<u8>(at, 0x7d); // }
    store<u8>(at + 1, 0x20); // space
    at += 2;
    copy(at, TEXT, <usize>text);
    at += text;
    store<u8>(at++, 0x0a);
  }
  store<i32>(NEXT, k);
  store<i32>(STOPPED, why);
  return <i32>(at - out);
}
