import { PROMETHEUS } from "../catalogue/families.js";
import type { PrometheusWalReplayResponse } from "../upstream/payloads.js";
import { SampleSet } from "./samples.js";

/**
 * Progress of a WAL replay from `/api/v1/status/walreplay`, 0 to 1. What the numbers are (tsdb/head.go,
 * Head.Init, at v2.42.0 and v3.14.0): all 0 until the replay starts; then min and max are the first
 * (the checkpoint's) and last WAL segment to replay and current is min; after each segment, current
 * is that segment; when done, current is max. With out-of-order samples enabled the WBL's segments are
 * replayed after, numbered again from their own first. So (current - min) / (max - min) is 0 at the
 * start and 1 once the last segment is in; the segment being read counts as not yet done.
 * A single segment (max = min), a server without a WAL or in agent mode (never started: all 0) give 1:
 * there is nothing to measure, and promstatus_prometheus_ready says whether the server is still starting.
 */
export function walReplayProgress({ min, max, current }: PrometheusWalReplayResponse["data"]): number | undefined {
  if (max <= min) return 1;
  const progress = (current - min) / (max - min);
  // Segment numbers are small integers; numbers no server writes (1e308 apart) say nothing.
  return Number.isFinite(progress) ? Math.min(1, Math.max(0, progress)) : undefined;
}

export function convertPrometheusWalReplay(payload: PrometheusWalReplayResponse): SampleSet {
  const progress = walReplayProgress(payload.data);
  const out = new SampleSet();
  return progress === undefined ? out : out.add(PROMETHEUS.walReplayProgress.name, {}, progress);
}
