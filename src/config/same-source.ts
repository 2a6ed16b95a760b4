import { isDeepStrictEqual } from "node:util";
import type { SourceConfig } from "./types.js";

/** Whether a reload leaves a source as it was, so its job and its series can be kept. */
export function sameSource(a: SourceConfig | undefined, b: SourceConfig): boolean {
  return a !== undefined && isDeepStrictEqual(a, b);
}
