// Every piece of an answer's body is a buffer of its own (Node's HTTP parser copies it out of the socket
// read, up to 120 KiB through reading-agent.ts, 64 KiB otherwise; an inflated piece is one too), and
// only V8's collector frees it. The reading makes few JS objects, so V8 collected them only once ~64 MB
// of such buffers had piled up (its trigger for memory held outside the heap), and glibc then kept that
// much in its arena for good: a bare node:http GET of a 78 MB answer left ~80 MB in [heap]. Collecting
// the young generation every few MiB read frees each buffer while the next ones are read, so the same
// memory is used again: ~5-10 MB in [heap], at no more CPU (the collections replace the full ones that
// memory set off). A collection of the young generation takes under a millisecond here.
import { takeCollector } from "../lib/collector.js";

/**
 * Memory of read pieces between two collections: 4 MiB. Counted by the memory a piece holds, its buffer's
 * size, once per buffer (pieces may share one, and a buffer may be larger than its piece): an upstream
 * dripping its answer a byte per read, or writing 1-byte HTTP chunks, gives pieces of a byte; counted
 * per piece, it had set off a collection every 64 pieces for no memory at all.
 */
export const BYTES_PER_COLLECTION = 64 * 64 * 1024;

const collect = takeCollector();
let bytesRead = 0;
// The last piece's buffer, counted already: a read's pieces come one after another.
let lastBuffer: ArrayBufferLike | undefined;

/** Counts a piece of an answer read (all answers together); every ~4 MiB of their buffers collects the young generation. */
export function pieceRead(piece: Uint8Array): void {
  if (piece.buffer === lastBuffer) return;
  lastBuffer = piece.buffer;
  bytesRead += piece.buffer.byteLength;
  if (bytesRead < BYTES_PER_COLLECTION) return;
  bytesRead = 0;
  collect?.({ type: "minor" });
}
