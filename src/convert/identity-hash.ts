// The hash a target's identity is found by (target-table.ts): its pool's and read labels' raw bytes,
// each span ended by a step of its own. Four bytes a step (a rotate, an xor and a multiply, as FxHash
// mixes), not one: FNV-1a's byte at a time was ~30 ms of a 100k-target poll. The WebAssembly targets
// reader computes the same hash over the same spans (assembly/targets-scan.ts, identityHash) so that a
// target it reads needs no pass over its bytes here; the two must stay equal (tested). The hash only
// finds candidates: an identity is always compared byte by byte.

const K = 0x9e3779b1 | 0;
/** Where hashing an identity starts. */
export const IDENTITY_SEED = 0x2545f491;

const step = (h: number, word: number): number => Math.imul(((h << 5) | (h >>> 27)) ^ word, K);

/** h with the span b[start, end) hashed in: little-endian words, then the tail and its length. */
export function hashSpan(b: Uint8Array, start: number, end: number, h: number): number {
  let p = start;
  for (; p + 4 <= end; p += 4)
    h = step(
      h,
      (b[p] as number) | ((b[p + 1] as number) << 8) | ((b[p + 2] as number) << 16) | ((b[p + 3] as number) << 24),
    );
  const tail = end - p;
  // The last step carries the tail's bytes (at most three) and, in its top byte, a marker and their count.
  let word = (0x80 | tail) << 24;
  if (tail > 0) word |= b[p] as number;
  if (tail > 1) word |= (b[p + 1] as number) << 8;
  if (tail > 2) word |= (b[p + 2] as number) << 16;
  return step(h, word);
}

/** The hash, its bits mixed (murmur3's finaliser): a hash index takes its low bits. */
export function finishHash(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) | 0;
}

/** The identity hash of a pool span and label spans (start -1: the target has no such label). */
export function identityHash(
  b: Uint8Array,
  poolStart: number,
  poolEnd: number,
  labelStart: Int32Array,
  labelEnd: Int32Array,
): number {
  let h = hashSpan(b, poolStart, poolEnd, IDENTITY_SEED);
  for (let k = 0; k < labelStart.length; k++) {
    const start = labelStart[k] as number;
    h = start >= 0 ? hashSpan(b, start, labelEnd[k] as number, h) : hashSpan(b, 0, 0, h);
  }
  return finishHash(h);
}
