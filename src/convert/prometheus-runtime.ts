import { PROMETHEUS } from "../catalogue/families.js";
import type { PrometheusRuntimeInfoResponse } from "../upstream/payloads.js";
import { SampleSet } from "./samples.js";
import { strictRfc3339Seconds } from "./time.js";

/** When a request went out and when its answer had arrived, Unix ms by the exporter's clock. */
export interface RequestTiming {
  startedMs: number;
  finishedMs: number;
}

export interface ClockSkew {
  /** Server time minus the exporter's time at the request's midpoint, seconds: positive, the server is ahead. */
  skewSeconds: number;
  /** Half the request's duration: the server read its clock somewhere within it. */
  uncertaintySeconds: number;
}

/**
 * How far the server's clock is from the exporter's: the server read its clock (serverTime) while
 * answering, somewhere between the request going out and its answer arriving, so it is compared with
 * the midpoint of the two, and is exact to within half the time between them.
 */
export function clockSkew(serverTime: string | undefined, request: RequestTiming | undefined): ClockSkew | undefined {
  const server = strictRfc3339Seconds(serverTime);
  if (server === undefined || request === undefined) return undefined;
  const { startedMs, finishedMs } = request;
  const midpoint = (startedMs + finishedMs) / 2 / 1000;
  return { skewSeconds: server - midpoint, uncertaintySeconds: Math.max(0, finishedMs - startedMs) / 2 / 1000 };
}

/**
 * Samples for `/api/v1/status/runtimeinfo`. It answers only once the server is ready (its readiness
 * gate answers 503 before: endpoints.ts), so an answer also says the server is ready.
 */
export function convertPrometheusRuntimeInfo(
  payload: PrometheusRuntimeInfoResponse,
  request: RequestTiming | undefined,
): SampleSet {
  const out = new SampleSet();
  const { data } = payload;
  out.add(PROMETHEUS.ready.name, {}, 1);
  if (data.reloadConfigSuccess !== undefined)
    out.add(PROMETHEUS.reloadSuccess.name, {}, data.reloadConfigSuccess ? 1 : 0);
  // Go's zero time until a configuration was loaded: no series rather than year 1.
  const reloaded = strictRfc3339Seconds(data.lastConfigTime);
  if (reloaded !== undefined) out.add(PROMETHEUS.reloadTime.name, {}, reloaded);
  const started = strictRfc3339Seconds(data.startTime);
  if (started !== undefined) out.add(PROMETHEUS.startTime.name, {}, started);
  const skew = clockSkew(data.serverTime, request);
  if (skew) {
    out.add(PROMETHEUS.clockSkew.name, {}, skew.skewSeconds);
    out.add(PROMETHEUS.clockSkewUncertainty.name, {}, skew.uncertaintySeconds);
  }
  return out;
}
