import type { TsdbResponse } from "../upstream/payloads.js";
import { TSDB } from "./families.js";
import { SampleSet } from "./samples.js";
import { headTimeSeconds } from "./time.js";

/**
 * Samples for a `/api/v1/status/tsdb` answer. Lists are cut to `limit`, since Prometheus before
 * 2.45 ignores the parameter and always returns its top 10.
 */
export function convertTsdb(payload: TsdbResponse, limit?: number): SampleSet {
  const out = new SampleSet();
  out.add(TSDB.agentMode.name, {}, 0);
  const { data } = payload;
  const head = data.headStats;
  if (head) {
    out.add(TSDB.headSeries.name, {}, head.numSeries);
    out.add(TSDB.headChunks.name, {}, head.chunkCount);
    if (head.numLabelPairs !== undefined) out.add(TSDB.headLabelPairs.name, {}, head.numLabelPairs);
    const min = headTimeSeconds(head.minTime);
    const max = headTimeSeconds(head.maxTime);
    if (min !== undefined && max !== undefined && min <= max) {
      out.add(TSDB.headMinTime.name, {}, min);
      out.add(TSDB.headMaxTime.name, {}, max);
    }
  }
  const top = <T>(list: T[]) => (limit === undefined ? list : list.slice(0, limit));
  for (const { name, value } of top(data.seriesCountByMetricName))
    out.add(TSDB.metricSeries.name, { metric_name: name }, value);
  for (const { name, value } of top(data.labelValueCountByLabelName))
    out.add(TSDB.labelValues.name, { label_name: name }, value);
  for (const { name, value } of top(data.memoryInBytesByLabelName))
    out.add(TSDB.labelMemory.name, { label_name: name }, value);
  for (const { name, value } of top(data.seriesCountByLabelValuePair)) {
    const eq = name.indexOf("=");
    const labels =
      eq < 0
        ? { label_name: name, label_value: "" }
        : { label_name: name.slice(0, eq), label_value: name.slice(eq + 1) };
    out.add(TSDB.labelPairSeries.name, labels, value);
  }
  return out;
}

/** What a Prometheus in agent mode answers instead: it runs no TSDB, and says so with HTTP 422. */
export function agentModeSamples(): SampleSet {
  return new SampleSet().add(TSDB.agentMode.name, {}, 1);
}
