import type { FailureReason } from "../upstream/poll-error.js";

/**
 * Why an answer is refused for its series, if it is: more than `limit` (series_limit, 0 for none), as
 * Prometheus fails a scrape past sample_limit. `atLeast`: a reader stopped early knows a lower bound only.
 */
export function overSeriesLimit(
  series: number,
  limit: number | undefined,
  atLeast = false,
): { reason: FailureReason; message: string } | undefined {
  if (!limit || series <= limit) return undefined;
  return {
    reason: "series_limit",
    message: `answer gives ${atLeast ? "at least " : ""}${series} series, more than series_limit ${limit}`,
  };
}
