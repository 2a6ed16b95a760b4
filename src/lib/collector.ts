import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/**
 * A collection of the calling thread's young generation. (Only that: Node 20's V8 ignores
 * `{ type: "major" }`, measured; a full collection is `gc()` without options.)
 */
export type Collect = (options: { type: "minor" }) => void;

/**
 * Tries, when the flag may have been unset under us: the flag is the process's, and another thread
 * taking its own collector at the same moment may unset it between our setting it and our context
 * being made (2 of 80 threads started in pairs went without, measured; 16 of 80 released at once).
 */
const ATTEMPTS = 20;

/**
 * V8's `gc` for the calling thread, taken from a context made while `--expose-gc` is set, then unset
 * again, so no other code gets a global `gc` it was not started with (but a context another thread
 * makes in that moment, ~2 ms, does). Undefined if the runtime refuses (the collector then runs in its
 * own time, as it would anyway). A process started with the flag keeps it: its own context has `gc`
 * then, whether the flag came as an argument or in NODE_OPTIONS (not in execArgv).
 */
export function takeCollector(): Collect | undefined {
  const given =
    typeof (globalThis as { gc?: unknown }).gc === "function" ||
    process.execArgv.some((arg) => arg === "--expose-gc" || arg === "--expose_gc");
  if (given) return contextGc();
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    setFlagsFromString("--expose-gc");
    const gc = contextGc();
    setFlagsFromString("--no-expose-gc");
    if (gc) return gc;
  }
  return undefined;
}

/** `gc` as a new context sees it, if it does. */
function contextGc(): Collect | undefined {
  try {
    const gc: unknown = runInNewContext("typeof gc === 'function' ? gc : undefined");
    return typeof gc === "function" ? (gc as Collect) : undefined;
  } catch {
    return undefined;
  }
}
