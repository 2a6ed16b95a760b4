import { constants, gunzipSync, inflateRawSync } from "node:zlib";
import { FINAL_BLOCK, GZIP_HEADER, gzipTrailer } from "../../src/exposition/gzip-stream.js";
import { type FamilyLines, isPacked } from "../../src/exposition/pack.js";
import type { Exposition } from "../../src/publish/store.js";

/** The plain bytes of a family's lines, a packed family's members inflated. */
export function linesBytes(lines: FamilyLines | undefined): Buffer {
  if (lines === undefined) return Buffer.alloc(0);
  return isPacked(lines) ? membersPlain(lines.members) : Buffer.from(lines);
}

/** A family's lines as text. */
export const linesText = (lines: FamilyLines | undefined): string => linesBytes(lines).toString("utf8");

/** Families as [name, text] pairs, comparable whether they came packed or plain. */
export function familyTexts(families: readonly [string, FamilyLines][]): [string, string][] {
  return families.map(([name, lines]) => [name, linesText(lines)]);
}

/** An exposition's pieces as text, as a plain scrape serves them. */
export function partsText(parts: readonly FamilyLines[]): string {
  return Buffer.concat(parts.map(linesBytes)).toString("utf8");
}

/** The plain bytes of compressed members back to back (deflate data that ends in a sync flush). */
export function membersPlain(members: readonly Uint8Array[]): Buffer {
  return inflateRawSync(Buffer.concat(members), { finishFlush: constants.Z_SYNC_FLUSH });
}

/** Members wrapped as the one gzip member a scrape sends (gzip-stream.ts). */
export function asOneGzip(members: readonly Uint8Array[], crc: number, length: number): Buffer {
  return Buffer.concat([GZIP_HEADER, ...members, FINAL_BLOCK, gzipTrailer(crc, length)]);
}

/**
 * The text an exposition's compressed members give as the one gzip member a scrape sends: header,
 * members, last block, trailer (gunzip checks the trailer's CRC and length against what it inflated).
 */
export function gzipText(exposition: Pick<Exposition, "gzip" | "length">): string {
  const { gzip, length } = exposition;
  if (!gzip) throw new Error("not compressed yet");
  return gunzipSync(asOneGzip(gzip.members, gzip.crc, length)).toString("utf8");
}
