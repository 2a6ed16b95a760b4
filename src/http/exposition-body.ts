import type { ServerResponse } from "node:http";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { type FamilyLines, isPacked } from "../exposition/pack.js";
import { plainChunks } from "../exposition/unpack.js";

/** How a response ends when its client hangs up mid-way: nothing to report. */
const CLIENT_GONE = new Set(["ERR_STREAM_PREMATURE_CLOSE", "EPIPE", "ECONNRESET"]);

/**
 * Bytes written at once by sendBuffers. Node counts a write as progress (the socket's idle timeout,
 * --web.stall-timeout) only once the kernel took all of it: the whole gzip answer in one write (4 MB at
 * 100k targets, 21 MB at 500k) had to be taken within the timeout, cutting a steady but slow reader.
 */
export const WRITE_GROUP_BYTES = 2 ** 20;

/**
 * Writes buffers already in memory and ends the response, about WRITE_GROUP_BYTES at a time, each group
 * once the one before was taken, so each is progress for the stall timeout. Nothing is made here: the
 * buffers are held anyway (the kept members), and a small answer is one write as before.
 */
export function sendBuffers(res: ServerResponse, buffers: readonly Uint8Array[]): void {
  let next = 0;
  const writeGroup = (): void => {
    if (res.destroyed) return;
    res.cork();
    let bytes = 0;
    while (next < buffers.length && bytes < WRITE_GROUP_BYTES) {
      const buffer = buffers[next++] as Uint8Array;
      bytes += buffer.byteLength;
      // The group's last write, with more to come: the next group waits until it is taken.
      if (bytes >= WRITE_GROUP_BYTES && next < buffers.length) res.write(buffer, (error) => error || writeGroup());
      else res.write(buffer);
    }
    if (next >= buffers.length) res.end();
    res.uncork();
  };
  writeGroup();
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
