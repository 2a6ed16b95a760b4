// Imported first by main, before anything allocates. V8 lets a small heap grow only ~20% past what was
// live at the last full collection when collections look cheap next to the program's own work. The
// exporter's main heap is small (~20 MB) and a poll streams tens of MB through it in short-lived
// objects, so it ran a full collection about every 100 ms of a poll: about 7 per poll at 100k targets,
// a fifth of the poll's CPU with their concurrent marking. Letting the heap double between collections
// runs 1 or 2 (docs/performance.md). A heap-growing-percent given on the command line is kept.
import { setFlagsFromString } from "node:v8";

/** How far past the live heap V8 may grow before its next full collection, in percent. */
export const HEAP_GROWING_PERCENT = 100;

if (
  !process.execArgv.some((arg) => arg.startsWith("--heap-growing-percent") || arg.startsWith("--heap_growing_percent"))
)
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
