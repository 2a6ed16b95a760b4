import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/**
 * A collection of the calling thread's young generation. (Only that: Node 20's V8 ignores
 * `{ type: "major" }`, measured; a full collection is `gc()` without options.)
 */
export type Collect = (options: { type: "minor" }) => void;

/**
 * V8's `gc` for the calling thread, taken from a context made while `--expose-gc` is set, then unset
 * again, so no other code gets a global `gc` it was not started with. Undefined if the runtime refuses
 * (the collector then runs in its own time, as it would anyway). A process started with the flag keeps
 * it: its own context has `gc` then, whether the flag came as an argument or in NODE_OPTIONS (not in
 * execArgv).
 */
export function takeCollector(): Collect | undefined {
  const given =
    typeof (globalThis as { gc?: unknown }).gc === "function" ||
    process.execArgv.some((arg) => arg === "--expose-gc" || arg === "--expose_gc");
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
