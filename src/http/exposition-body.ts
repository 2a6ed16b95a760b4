import type { ServerResponse } from "node:http";
import { type FamilyLines, isPacked } from "../exposition/pack.js";
import { type AgainPiece, type LinesWrittenAgain, plainChunks, type WriteAgain } from "../exposition/unpack.js";
import { untilEnded } from "./once-ended.js";

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

/** Resolves once the response takes more (drain) or is gone (close). */
function roomFor(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.once("drain", done);
    res.once("close", done);
  });
}

/** Writes a chunk, and waits while the response holds more than it takes at once. */
async function write(res: ServerResponse, chunk: Uint8Array): Promise<void> {
  if (!res.write(chunk) && !res.destroyed) await roomFor(res);
}

/**
 * Writes a family's lines as written again (by the decoder thread that packed them), each piece
 * handed back once the response took it, which is what holds back a slow client. Resolves to the plain
 * bytes written, fewer than `length` when the writer stopped (the rest is inflated) or the client went.
 */
async function writeAgain(res: ServerResponse, again: LinesWrittenAgain, length: number): Promise<number> {
  let sent = 0;
  let finished = false;
  /** Pieces given to the response whose write's callback has not come yet. */
  const out = new Set<AgainPiece>();
  let forget = () => {};
  const handBack = (piece: AgainPiece) => {
    if (out.delete(piece)) piece.written();
    if (finished && out.size === 0) forget();
  };
  // The client gone (the response or its connection closed): the wait for a slot the response held ends
  // at once, and every piece goes back. Nothing reads them any more (a connection's pending writes are
  // cancelled when it closes), and Node drops some writes' callbacks: one to a connection destroyed
  // before the response knew, or no longer writable (its client half-closed): their slots would be
  // held for good, and with them the decoder thread's room to write again.
  forget = untilEnded(res.req, res, () => {
    again.close();
    for (const piece of [...out]) handBack(piece);
  });
  try {
    while (sent < length && !res.destroyed) {
      const piece = await again.next();
      if (!piece) break;
      // Never more than the family's bytes: the response's length is promised.
      if (sent + piece.bytes.length > length) {
        piece.written(); // not written: its slot is free
        break;
      }
      sent += piece.bytes.length;
      out.add(piece);
      res.write(piece.bytes, () => handBack(piece));
    }
  } finally {
    again.close();
    finished = true;
    if (out.size === 0) forget();
  }
  return sent;
}

/**
 * Writes the head's pieces, then the parts as plain text. A packed family is written again by the
 * decoder thread that packed it (`writeAgain`, a few MiB a family, much less work than inflating), or
 * else inflated member by member, a few ahead of the one being written and no further until the
 * response takes it (backpressure, exposition/unpack.ts): either way a scrape holds a few MiB of plain
 * text, never a whole family, however slowly its client reads. Where the writer stops (a poll began),
 * the rest of the family is inflated from the members. Resolves once written, or once the client went away.
 */
export async function sendPlain(
  res: ServerResponse,
  head: readonly Uint8Array[],
  parts: readonly FamilyLines[],
  again?: WriteAgain,
): Promise<void> {
  const plain = parts.filter((part): part is Uint8Array => !isPacked(part));
  if (plain.length === parts.length) {
    sendBuffers(res, [...head, ...plain]);
    return;
  }
  for (const piece of head) res.write(piece);
  try {
    for (const part of parts) {
      if (res.destroyed) return;
      if (!isPacked(part)) {
        await write(res, part);
        continue;
      }
      const writing = again?.(part);
      const sent = writing ? await writeAgain(res, writing, part.length) : 0;
      if (sent >= part.length) continue;
      for await (const chunk of plainChunks([part], sent)) {
        if (res.destroyed) return;
        await write(res, chunk);
      }
    }
    if (!res.destroyed) res.end();
  } catch (error) {
    if (!CLIENT_GONE.has((error as NodeJS.ErrnoException).code ?? "")) throw error;
  }
}
