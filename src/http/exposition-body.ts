import type { ServerResponse } from "node:http";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { type FamilyLines, isPacked } from "../exposition/pack.js";
import { plainChunks } from "../exposition/unpack.js";

/** How a response ends when its client hangs up mid-way: nothing to report. */
const CLIENT_GONE = new Set(["ERR_STREAM_PREMATURE_CLOSE", "EPIPE", "ECONNRESET"]);

/** Writes buffers already in memory and ends the response: nothing is made, so nothing need wait for the client. */
export function sendBuffers(res: ServerResponse, buffers: readonly Uint8Array[]): void {
  res.cork();
  for (const buffer of buffers) res.write(buffer);
  res.end();
}

/**
 * Writes the head's pieces, then the parts as plain text. Packed families are inflated member by member, a few
 * ahead of the one being written and no further until the response takes it (backpressure,
 * exposition/unpack.ts), so a scrape holds a few members of plain text, never a whole family, however
 * slowly its client reads. Resolves once written, or once the client went away.
 */
export async function sendPlain(
  res: ServerResponse,
  head: readonly Uint8Array[],
  parts: readonly FamilyLines[],
): Promise<void> {
  const plain = parts.filter((part): part is Uint8Array => !isPacked(part));
  if (plain.length === parts.length) {
    sendBuffers(res, [...head, ...plain]);
    return;
  }
  for (const piece of head) res.write(piece);
  try {
    // One chunk buffered here; plainChunks inflates the next ones in the thread pool meanwhile.
    await pipeline(Readable.from(plainChunks(parts), { highWaterMark: 1 }), res);
  } catch (error) {
    if (!CLIENT_GONE.has((error as NodeJS.ErrnoException).code ?? "")) throw error;
  }
}
