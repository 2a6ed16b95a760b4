// Node's HTTP client reads every socket read into a 64 KiB buffer of its own (an inflated piece is one
// too), and only V8's collector frees it. The reading makes few JS objects, so V8 collected them only
// once ~64 MB of such buffers had piled up (its trigger for memory held outside the heap), and glibc then
// kept that much in its arena for good: a bare node:http GET of a 78 MB answer left ~80 MB in [heap].
// Collecting the young generation every few MiB read frees each buffer while the next ones are read,
// so the same memory is used again: ~5-10 MB in [heap], at no more CPU (the collections replace the
// full ones that memory set off). A collection of the young generation takes under a millisecond here.
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/** Pieces read between two collections: ~4 MiB of 64 KiB buffers. */
export const PIECES_PER_COLLECTION = 64;

type Collect = (options: { type: "minor" }) => void;

/**
 * V8's `gc` taken from a context made while `--expose-gc` is set, then unset again, so no other code
 * gets a global `gc` it was not started with. Undefined if the runtime refuses (the collector then
 * frees the buffers in its own time, as before).
 */
function youngCollector(): Collect | undefined {
  const given = process.execArgv.some((arg) => arg === "--expose-gc" || arg === "--expose_gc");
  try {
    if (!given) setFlagsFromString("--expose-gc");
    const gc: unknown = runInNewContext("typeof gc === 'function' ? gc : undefined");
    return typeof gc === "function" ? (gc as Collect) : undefined;
  } catch {
    return undefined;
  } finally {
    if (!given) setFlagsFromString("--no-expose-gc");
  }
}

const collect = youngCollector();
let pieces = 0;

/** Counts one piece of an answer read (all answers together); every 64th collects the young generation. */
export function pieceRead(): void {
  if (++pieces < PIECES_PER_COLLECTION) return;
  pieces = 0;
  collect?.({ type: "minor" });
}
