import { isDeepStrictEqual } from "node:util";
import type { SourceConfig } from "./types.js";

/** Whether a reload leaves a source as it was, so its job and its series can be kept. */
export function sameSource(a: SourceConfig | undefined, b: SourceConfig): boolean {
  return a !== undefined && isDeepStrictEqual(a, b);
}

/**
 * Whether a changed source still names the same series (same kind, group and labels; the name is the
 * key): its counters and the time of its last success go on across the reload rather than start over.
 */
export function sameSeries(a: SourceConfig, b: SourceConfig): boolean {
  return a.kind === b.kind && a.group === b.group && isDeepStrictEqual(a.labels, b.labels);
}

/** Whether a changed source is still asked of the same server as the same kind: what it was detected as holds. */
export function sameServer(a: SourceConfig, b: SourceConfig): boolean {
  return a.kind === b.kind && a.url === b.url && a.flavor === b.flavor;
}
