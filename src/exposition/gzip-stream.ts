import { promisify } from "node:util";
import { constants, deflateRaw, deflateRawSync, type ZlibOptions } from "node:zlib";

// The exposition is kept compressed in pieces, each compressed once and on its own (exposition/pack.ts),
// and sent as ONE gzip member: a header, the pieces' deflate data back to back, an empty last block and
// the trailer. Each piece is deflate data that ends in a sync flush, not a final block, so the pieces
// follow each other as one deflate stream (as pigz joins what its threads compress). Gzip members back to
// back would be valid too (RFC 1952), but browsers read the first member only and drop the rest
// unsaid (Chromium's net/filter/gzip_source_stream.cc, STATE_IGNORING_EXTRA_BYTES, "matches the
// behavior of other browsers"), and curl 7.88 stops with an error after it.

/** How each piece is compressed: fast, and ending in a sync flush so that another piece may follow. */
export const SEGMENT_OPTIONS: ZlibOptions = { level: constants.Z_BEST_SPEED, finishFlush: constants.Z_SYNC_FLUSH };

/** A piece's deflate data, ending in a sync flush (no final block). */
export const deflateSegmentSync = (bytes: Uint8Array): Buffer => deflateRawSync(bytes, SEGMENT_OPTIONS);
/** The same, in Node's thread pool. */
export const deflateSegment: (bytes: Uint8Array) => Promise<Buffer> = (bytes) =>
  promisify(deflateRaw)(bytes, SEGMENT_OPTIONS);

/** The most bytes a stored block holds (RFC 1951 3.2.4: LEN is 16 bits). */
const STORED_BLOCK_BYTES = 65535;

/**
 * Bytes as stored deflate blocks (RFC 1951 3.2.4), not compressed: each a byte 0 (not final, type 00,
 * padding), LEN and NLEN, then the bytes. Like a segment, it ends on a byte boundary so another may
 * follow. For a few KB of text that changes every scrape, cheaper than a zlib call (~30 µs of setting
 * up and compressing, against ~2 µs of copying).
 */
export function storedSegment(bytes: Uint8Array): Buffer {
  const blocks = Math.max(1, Math.ceil(bytes.length / STORED_BLOCK_BYTES));
  const out = Buffer.allocUnsafe(bytes.length + 5 * blocks);
  let at = 0;
  for (let block = 0; block < blocks; block++) {
    const from = block * STORED_BLOCK_BYTES;
    const n = Math.min(STORED_BLOCK_BYTES, bytes.length - from);
    out[at] = 0;
    out.writeUInt16LE(n, at + 1);
    out.writeUInt16LE(~n & 0xffff, at + 3);
    out.set(bytes.subarray(from, from + n), at + 5);
    at += 5 + n;
  }
  return out;
}

/** A gzip member's header: deflate, no name or other field, no time, OS unknown (RFC 1952 2.3). */
export const GZIP_HEADER: Uint8Array = Uint8Array.of(0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff);

/** The last block of the stream, empty: BFINAL set, fixed Huffman codes, end of block. */
export const FINAL_BLOCK: Uint8Array = Uint8Array.of(0x03, 0x00);

/** A gzip member's trailer: CRC-32 of the plain bytes, then their length modulo 2^32, little-endian. */
export function gzipTrailer(crc: number, length: number): Uint8Array {
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc >>> 0, 0);
  trailer.writeUInt32LE(length % 2 ** 32, 4);
  return trailer;
}

// CRC-32 of two pieces joined, from the pieces' CRCs and the second's length: zlib's crc32_combine
// (crc32.c, zlib 1.2.12 and later: multiplication modulo the CRC polynomial, reflected), which
// node:zlib does not expose. The plain bytes of a packed piece are gone by the time it is sent.
const POLYNOMIAL = 0xedb88320;

/** a(x) * b(x) modulo p(x), bits reflected as the CRC keeps them. */
function multiplyModP(a: number, b: number): number {
  let m = 0x80000000;
  let product = 0;
  let bb = b >>> 0;
  for (;;) {
    if (a & m) {
      product ^= bb;
      if ((a & (m - 1)) === 0) break;
    }
    m >>>= 1;
    bb = bb & 1 ? (bb >>> 1) ^ POLYNOMIAL : bb >>> 1;
  }
  return product >>> 0;
}

/** x^(2^k) modulo p(x), for k = 0..31. */
const X_TO_2_TO_K = (() => {
  const table = new Uint32Array(32);
  let p = 0x40000000; // x^1
  table[0] = p;
  for (let k = 1; k < 32; k++) table[k] = p = multiplyModP(p, p);
  return table;
})();

/** x^(n * 2^k) modulo p(x). */
function xToNTimes2ToK(n: number, k: number): number {
  let p = 0x80000000; // x^0
  let left = n;
  let bit = k;
  while (left > 0) {
    if (left % 2 === 1) p = multiplyModP(X_TO_2_TO_K[bit % 32] as number, p);
    left = Math.floor(left / 2);
    bit++;
  }
  return p;
}

/** The CRC-32 of A followed by B, from crc(A), crc(B) and B's length in bytes. */
export function crc32Combine(crcA: number, crcB: number, lengthB: number): number {
  return (multiplyModP(xToNTimes2ToK(lengthB, 3), crcA >>> 0) ^ (crcB >>> 0)) >>> 0;
}

/** Text as deflate segments (each ending in a sync flush), with the plain text's CRC-32 and length. */
export interface DeflatedText {
  readonly segments: readonly Uint8Array[];
  readonly crc: number;
  readonly length: number;
}

/** Texts in order as one gzip member: the header, their segments, an empty last block, the trailer. */
export function gzipMember(texts: readonly DeflatedText[]): Uint8Array[] {
  let crc = 0; // the CRC-32 of no bytes
  let length = 0;
  const body: Uint8Array[] = [GZIP_HEADER];
  for (const text of texts) {
    crc = crc32Combine(crc, text.crc, text.length);
    length += text.length;
    body.push(...text.segments);
  }
  body.push(FINAL_BLOCK, gzipTrailer(crc, length));
  return body;
}
