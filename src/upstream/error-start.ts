import type { Readable } from "node:stream";
import { constants, createGunzip } from "node:zlib";

/**
 * The most of an error answer read, on the wire and again after inflating: real error texts are a
 * line or two, and the cap is what bounds the work spent on whatever else an upstream sends.
 */
export const ERROR_BODY_BYTES = 4 * 1024;

/**
 * The start of an error answer's body, inflated if gzipped, at most ERROR_BODY_BYTES; the rest is not
 * read (the stream is destroyed). Undefined for a content coding that cannot be read in part.
 */
export async function readErrorStart(stream: Readable, encoding: string | undefined): Promise<Buffer | undefined> {
  const wire = await readStart(stream, ERROR_BODY_BYTES);
  if (!encoding || encoding === "identity") return wire;
  // Prometheus and Alertmanager compress error answers too when gzip was accepted.
  if (encoding === "gzip" || encoding === "x-gzip") return readStart(inflating(wire), ERROR_BODY_BYTES);
  return undefined;
}

/** A gunzip of bytes that may have been cut short: what they hold inflates (Z_SYNC_FLUSH), the cut is no error. */
function inflating(gz: Buffer): Readable {
  const gunzip = createGunzip({ chunkSize: ERROR_BODY_BYTES, finishFlush: constants.Z_SYNC_FLUSH });
  gunzip.end(gz);
  return gunzip;
}

/**
 * The first `limit` bytes of a stream (or fewer, if it ends or fails sooner). Leaving the loop
 * destroys the stream, so nothing more is read (a socket is closed, a gunzip stops inflating).
 */
async function readStart(stream: Readable, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let length = 0;
  try {
    for await (const chunk of stream) {
      chunks.push(chunk as Buffer);
      length += (chunk as Buffer).length;
      if (length >= limit) break;
    }
  } catch {
    // What arrived before the failure is all there is to describe.
  }
  return Buffer.concat(chunks).subarray(0, limit);
}
