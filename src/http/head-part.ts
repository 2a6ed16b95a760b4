import { crc32 } from "node:zlib";
import { type DeflatedText, deflateSegmentSync } from "../exposition/gzip-stream.js";

/** A part of a scrape's head as served: its bytes, their CRC-32, and as deflate data once asked for. */
export interface HeadPart {
  readonly text: string;
  readonly bytes: Buffer;
  readonly crc: number;
  deflated(): DeflatedText;
}

export function headPart(text: string): HeadPart {
  const bytes = Buffer.from(text);
  const crc = crc32(bytes);
  let deflated: DeflatedText | undefined;
  return {
    text,
    bytes,
    crc,
    deflated() {
      deflated ??= { segments: [deflateSegmentSync(bytes)], crc, length: bytes.length };
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
