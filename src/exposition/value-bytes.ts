import { formatValue } from "./format-value.js";

// A sample value's text written as bytes, without making a string: the per-target families write a
// million values per poll at 100k targets, and String(value) made one short string each (and the
// garbage collector then freed them).
//
// A value that is m / 10^s for an integer m of at most 15 digits (a last scrape in milliseconds, a
// duration in nanoseconds) is written from m's digits. That is exactly String(value): a decimal of at
// most 15 significant digits is the shortest text of the double nearest to it (DBL_DIG), and
// ECMAScript's Number::toString writes the shortest, in fixed notation from 1e-6 up to 1e21. Any other
// value is written as formatValue writes it.

/**
 * The most a value's text takes: 17 significant digits in fixed notation just above 1e-6
 * ("-0.0000012345678901234567", 25 bytes); exponents take at most 24 ("-1.2345678901234567e-308").
 */
export const MAX_VALUE_BYTES = 25;

const MAX_DIGITS_VALUE = 1e15; // m below this has at most 15 digits
const MAX_SCALE = 9;
const POWERS = [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9];
const ZERO = 0x30;
const POINT = 0x2e;
/** m's 16 digits (leading zeros included), written right to left in 32-bit arithmetic. */
const digitsOf = new Uint8Array(16);

/** Writes formatValue(value) into `out` at `at` (room for MAX_VALUE_BYTES there); where the next byte goes. */
export function writeValue(out: Uint8Array, at: number, value: number): number {
  if (value === 0) {
    out[at] = ZERO; // String(-0) is "0" too
    return at + 1;
  }
  const magnitude = value < 0 ? -value : value;
  // Below 1e-6 String() writes an exponent; NaN fails both comparisons.
  if (magnitude >= 1e-6 && magnitude < MAX_DIGITS_VALUE) {
    // The finest scale that keeps m under 15 digits: when any scale gives the value, this one does.
    let scale = MAX_SCALE;
    while (scale > 0 && magnitude * (POWERS[scale] as number) >= MAX_DIGITS_VALUE) scale--;
    const power = POWERS[scale] as number;
    const m = Math.round(magnitude * power);
    if (m < MAX_DIGITS_VALUE && m / power === magnitude) {
      let p = at;
      if (value < 0) out[p++] = 0x2d; // -
      return writeScaled(out, p, m, scale);
    }
  }
  const text = formatValue(value);
  for (let i = 0; i < text.length; i++) out[at + i] = text.charCodeAt(i);
  return at + text.length;
}

/** Writes m / 10^scale in fixed notation (0 < m < 1e15), without trailing zeros. */
function writeScaled(out: Uint8Array, at: number, m: number, scale: number): number {
  // Two halves of at most 8 digits, so every step below is 32-bit arithmetic.
  const highPart = Math.floor(m / 1e8);
  let high = highPart | 0;
  let low = (m - highPart * 1e8) | 0;
  let q = 16;
  for (let i = 0; i < 8; i++) {
    const next = (low / 10) | 0;
    digitsOf[--q] = ZERO + low - next * 10;
    low = next;
  }
  while (high > 0) {
    const next = (high / 10) | 0;
    digitsOf[--q] = ZERO + high - next * 10;
    high = next;
  }
  let first = q;
  while (digitsOf[first] === ZERO) first++; // m > 0: a digit other than 0 comes
  let end = 16;
  let s = scale;
  while (s > 0 && digitsOf[end - 1] === ZERO) {
    end--;
    s--;
  }
  const integerDigits = end - first - s;
  let p = at;
  if (integerDigits <= 0) {
    out[p++] = ZERO;
    out[p++] = POINT;
    for (let z = integerDigits; z < 0; z++) out[p++] = ZERO;
    for (let i = first; i < end; i++) out[p++] = digitsOf[i] as number;
    return p;
  }
  for (let i = first; i < first + integerDigits; i++) out[p++] = digitsOf[i] as number;
  if (s > 0) {
    out[p++] = POINT;
    for (let i = end - s; i < end; i++) out[p++] = digitsOf[i] as number;
  }
  return p;
}
