import { createHash } from "node:crypto";
import { crc32 } from "node:zlib";
import { joinViews } from "../lib/joined-views.js";
import { release } from "../lib/release-memory.js";
import { deflateLinesSync } from "./deflate-lines.js";
import type { RenderedFamilies } from "./text-format.js";

// A large family's lines are kept between polls compressed only: the 60 MB of lines of a 100k-target
// answer are ~4 MB of deflate data (deflate-lines.ts compresses them ~15x), in members of its own that each end
// in a sync flush (gzip-stream.ts): back to back, and with the other pieces of the exposition, they are
// the body of one gzip member, so a gzip scrape writes them as they are, and a plain scrape inflates
// them one at a time as the response streams.

/**
 * Families at least this large are packed; smaller ones stay plain. Measured on the lines of a
 * 100k-target answer (Node 20, level 1): a gzipSync call costs ~35 µs whatever its size, so 4 KiB
 * compress at ~110 MB/s and 16 KiB and more at ~350 MB/s; what a family under 64 KiB would save is
 * not worth a member of its own (the small parts are compressed together, store.ts).
 */
export const PACK_MIN_BYTES = 64 * 1024;
/**
 * The most plain bytes in one member (whole lines, unless a line is longer): a plain scrape holds one
 * or two of them at a time. Larger members compress no better (16.6x at 256 KiB, 16.8x at 1 MiB).
 */
export const MEMBER_PLAIN_BYTES = 2 ** 20;

/** A family's lines compressed: what the main thread keeps of a large family. */
export interface PackedLines {
  /**
   * Members in order: each deflate data ending in a sync flush; back to back, the lines' deflate data.
   * Packed here, they are views of one buffer, side by side.
   */
  members: Uint8Array[];
  /** Plain bytes of each member, in order. */
  sizes: number[];
  /** Plain bytes of the whole family. */
  length: number;
  /** CRC-32 of the plain bytes of the whole family (a gzip trailer's, gzip-stream.ts). */
  crc: number;
  /**
   * With `length`, what tells an unchanged family: SHA-256 of the plain bytes (hex), or a name its
   * writer gave to bytes it knew to be new (never given to other bytes: target-table.ts).
   */
  hash: string;
}

/** A family's lines, plain or packed. */
export type FamilyLines = Uint8Array | PackedLines;
/** Families as the publisher keeps them: small ones plain, large ones packed. */
export type Families = [name: string, lines: FamilyLines][];

// A structured clone keeps typed arrays typed and turns other objects into plain ones.
export const isPacked = (lines: FamilyLines): lines is PackedLines => !(lines instanceof Uint8Array);

export const plainLength = (lines: FamilyLines): number => (isPacked(lines) ? lines.length : lines.byteLength);

/** Whether two families' lines are the same bytes (packed ones by length and hash). */
export function sameLines(a: FamilyLines, b: FamilyLines): boolean {
  if (isPacked(a) || isPacked(b)) return isPacked(a) && isPacked(b) && a.length === b.length && a.hash === b.hash;
  return a.byteLength === b.byteLength && Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(b);
}

/**
 * Pieces of whole lines compressed one by one as they come (pack-cache.ts hands over pieces written
 * into one buffer over and over, so each is used before the next is asked for); `onPiece` sees each.
 */
export function packPieces(
  pieces: Iterable<Uint8Array>,
  onPiece?: (piece: Uint8Array) => void,
): Omit<PackedLines, "hash"> {
  const members: Uint8Array[] = [];
  const sizes: number[] = [];
  let length = 0;
  let crc = 0;
  for (const piece of pieces) {
    onPiece?.(piece);
    crc = crc32(piece, crc);
    members.push(deflateLinesSync(piece));
    sizes.push(piece.length);
    length += piece.length;
  }
  // One buffer for all of the family's members (lib/joined-views.ts), the separate ones freed now.
  const joined = joinViews(members);
  for (const member of members) release(member);
  return { members: joined, sizes, length, crc };
}

/** Lines cut at line ends into pieces of at most `memberBytes`, each a view of `lines`. */
function* linePieces(lines: Uint8Array, memberBytes: number): Generator<Uint8Array> {
  for (let start = 0; start < lines.length; ) {
    let end = Math.min(lines.length, start + memberBytes);
    if (end < lines.length) {
      // Searched within the piece only: a line longer than a member is cut (the stream stays whole).
      const newline = lines.subarray(start, end).lastIndexOf(0x0a);
      if (newline >= 0) end = start + newline + 1;
    }
    yield lines.subarray(start, end);
    start = end;
  }
}

/**
 * Lines cut into members of at most `memberBytes`, at line ends. Each piece is a view of `lines`, so
 * no plain bytes are copied: what is alive beyond the lines is one piece's deflate state and output.
 */
export function packLines(lines: Uint8Array, memberBytes = MEMBER_PLAIN_BYTES, knownHash?: string): PackedLines {
  // The hash of the whole lines, when the caller has it already (pack-cache.ts), is not computed again.
  const hash = knownHash === undefined ? createHash("sha256") : undefined;
  const packed = packPieces(linePieces(lines, memberBytes), hash && ((piece) => hash.update(piece)));
  return { ...packed, hash: hash ? hash.digest("hex") : (knownHash ?? "") };
}

/** A family's lines packed if they are at least `minBytes`, else as they are. */
export const packLarge = (lines: FamilyLines, minBytes = PACK_MIN_BYTES): FamilyLines =>
  isPacked(lines) || lines.byteLength < minBytes ? lines : packLines(lines);

/** Every family of at least `minBytes` packed, the others (and those packed already) as they are. */
export function packFamilies(families: RenderedFamilies | Families, minBytes = PACK_MIN_BYTES): Families {
  return families.map(([name, lines]) => [name, packLarge(lines, minBytes)]);
}
