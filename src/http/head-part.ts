import { crc32 } from "node:zlib";
import { deflateSegmentSync } from "../exposition/gzip-stream.js";

/** A part of a scrape's head as served: its bytes, their CRC-32, and their deflate segment once asked for. */
export interface HeadPart {
  readonly text: string;
  readonly bytes: Buffer;
  readonly crc: number;
  deflated(): Buffer;
}

export function headPart(text: string): HeadPart {
  const bytes = Buffer.from(text);
  let segment: Buffer | undefined;
  return {
    text,
    bytes,
    crc: crc32(bytes),
    deflated() {
      segment ??= deflateSegmentSync(bytes);
      return segment;
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
