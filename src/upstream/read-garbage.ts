// Node's HTTP client reads every socket read into a buffer of its own (64 KiB when the read is full;
// an inflated piece is one too), and only V8's collector frees it. The reading makes few JS objects, so
// V8 collected them only once ~64 MB of such buffers had piled up (its trigger for memory held outside
// the heap), and glibc then kept that much in its arena for good: a bare node:http GET of a 78 MB answer
// left ~80 MB in [heap]. Collecting the young generation every few MiB read frees each buffer while the
// next ones are read, so the same memory is used again: ~5-10 MB in [heap], at no more CPU (the
// collections replace the full ones that memory set off). A collection of the young generation takes
// under a millisecond here.
import { takeCollector } from "../lib/collector.js";

/**
 * Memory of read pieces between two collections: 64 full socket reads. Counted by the memory a piece
 * holds, its buffer's size, once per buffer: a socket read's buffer is 64 KiB when the read was full and
 * may be when it was not (a 16 KB piece read by got held 64 KiB); an upstream dripping its answer a byte
 * per read leaves buffers of a byte (Node shrinks those), and one writing 1-byte HTTP chunks gives many
 * pieces of one read's buffer. Counted per piece, either had set off a collection every 64 pieces for no
 * memory at all.
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
