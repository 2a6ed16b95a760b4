import { crc32 } from "node:zlib";
import { type DeflatedText, deflateSegmentSync, storedSegment } from "../exposition/gzip-stream.js";

/** A part of a scrape's head as served: its bytes, and as deflate data with their CRC-32 once asked for. */
export interface HeadPart {
  readonly text: string;
  readonly bytes: Buffer;
  deflated(): DeflatedText;
}

/**
 * A part up to this size goes into a gzip scrape stored, not compressed: the exporter's own metrics
 * change every scrape, and a few KB sent as they are cost less than compressing them each time (the
 * runtime's part ~8 KB, the exporter's own ~2 KB with one source, four lines more per probe module;
 * the 100k-target scrape is 4.2 MB).
 */
export const STORED_PART_BYTES = 16 * 1024;

export function headPart(text: string): HeadPart {
  const bytes = Buffer.from(text);
  // Only a gzip scrape needs the CRC and the deflate data: a plain one writes the bytes.
  let deflated: DeflatedText | undefined;
  return {
    text,
    bytes,
    deflated() {
      deflated ??= {
        segments: [bytes.length <= STORED_PART_BYTES ? storedSegment(bytes) : deflateSegmentSync(bytes)],
        crc: crc32(bytes),
        length: bytes.length,
      };
      return deflated;
    },
  };
}

/**
 * The last part made, given again while the same text comes: the runtime's metrics are one string for
 * up to a second (publish/process-metrics.ts), so scrapes within it neither encode nor compress it again.
 */
export function lastHeadPart(): (text: string) => HeadPart {
  let last: HeadPart | undefined;
  return (text) => {
    if (last?.text !== text) last = headPart(text);
    return last;
  };
}
