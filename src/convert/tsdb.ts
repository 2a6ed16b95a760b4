import { TSDB } from "../catalogue/families.js";
import type { Flavor } from "../config/flavors.js";
import type { TsdbResponse } from "../upstream/payloads.js";
import { addWarningCount, warningTexts } from "./answer-warnings.js";
import { type Labels, SampleSet } from "./samples.js";
import { headTimeSeconds } from "./time.js";

/**
 * The label every promstatus_tsdb_* series of a Thanos Query source carries: its figures are the
 * stores' added up (an HA pair counts every series twice; pkg/status/statuspb/custom.go Merge, v0.42.4).
 */
export const THANOS_AGGREGATION = { aggregation: "sum_over_stores" } as const;

/** The most entries VictoriaMetrics lists per top list (app/vmselect/prometheus/prometheus.go, `topN`). */
export const VICTORIAMETRICS_MAX_TOP_N = 1000;

/**
 * Samples for a `/api/v1/status/tsdb` answer. Lists are cut to `limit`, since Prometheus before
 * 2.45 ignores the parameter and always returns its top 10. VictoriaMetrics has no head: its one-day
 * index figures (totalSeries, totalLabelValuePairs) are published under their own names.
 */
export function convertTsdb(payload: TsdbResponse, limit?: number, flavor?: Flavor): SampleSet {
  const out = new SampleSet();
  out.add(TSDB.agentMode.name, {}, 0);
  const summed = flavor === "thanos";
  const add = (name: string, labels: Labels, value: number) =>
    out.add(name, summed ? { ...labels, ...THANOS_AGGREGATION } : labels, value);
  const { data } = payload;
  const head = data.headStats;
  if (head) {
    add(TSDB.headSeries.name, {}, head.numSeries);
    add(TSDB.headChunks.name, {}, head.chunkCount);
    if (head.numLabelPairs !== undefined) add(TSDB.headLabelPairs.name, {}, head.numLabelPairs);
    const min = headTimeSeconds(head.minTime);
    const max = headTimeSeconds(head.maxTime);
    if (min !== undefined && max !== undefined && min <= max) {
      add(TSDB.headMinTime.name, {}, min);
      add(TSDB.headMaxTime.name, {}, max);
    }
  }
  if (data.totalSeries !== undefined) add(TSDB.daySeries.name, {}, data.totalSeries);
  if (data.totalLabelValuePairs !== undefined) add(TSDB.dayLabelPairs.name, {}, data.totalLabelValuePairs);
  const top = <T>(list: T[]) => (limit === undefined ? list : list.slice(0, limit));
  for (const { name, value } of top(data.seriesCountByMetricName))
    add(TSDB.metricSeries.name, { metric_name: name }, value);
  for (const { name, value } of top(data.labelValueCountByLabelName))
    add(TSDB.labelValues.name, { label_name: name }, value);
  for (const { name, value } of top(data.memoryInBytesByLabelName))
    add(TSDB.labelMemory.name, { label_name: name }, value);
  for (const { name, value } of top(data.seriesCountByLabelValuePair)) {
    const eq = name.indexOf("=");
    const labels =
      eq < 0
        ? { label_name: name, label_value: "" }
        : { label_name: name.slice(0, eq), label_value: name.slice(eq + 1) };
    add(TSDB.labelPairSeries.name, labels, value);
  }
  return addWarningCount(out, "tsdb", warningTexts(payload.warnings).length, flavor);
}

/** What a Prometheus in agent mode answers instead: it runs no TSDB, and says so with HTTP 422. */
export function agentModeSamples(): SampleSet {
  return new SampleSet().add(TSDB.agentMode.name, {}, 1);
}
