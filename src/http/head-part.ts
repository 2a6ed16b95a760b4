import { crc32 } from "node:zlib";
import { type DeflatedText, deflateSegmentSync } from "../exposition/gzip-stream.js";

/** A part of a scrape's head as served: its bytes, and as deflate data with their CRC-32 once asked for. */
export interface HeadPart {
  readonly text: string;
  readonly bytes: Buffer;
  deflated(): DeflatedText;
}

export function headPart(text: string): HeadPart {
  const bytes = Buffer.from(text);
  // Only a gzip scrape needs the CRC and the deflate data: a plain one writes the bytes.
  let deflated: DeflatedText | undefined;
  return {
    text,
    bytes,
    deflated() {
      deflated ??= { segments: [deflateSegmentSync(bytes)], crc: crc32(bytes), length: bytes.length };
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
