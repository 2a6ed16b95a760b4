import { describe, expect, it } from "vitest";
import { POLL, TSDB } from "../../src/catalogue/families.js";
import { convertTsdb } from "../../src/convert/tsdb.js";
import { tsdbResponse } from "../../src/upstream/payloads.js";
import { fixtureJson, upstreamFixture } from "../helpers/fixtures.js";
import { sampleValue } from "../helpers/samples.js";

const real = upstreamFixture("prometheus-tsdb.json", tsdbResponse);
const raw = fixtureJson("upstream/prometheus-tsdb.json") as {
  data: { headStats: Record<string, number>; seriesCountByLabelValuePair: { name: string; value: number }[] };
};

describe("convertTsdb", () => {
  it("reports the head stats of a real Prometheus in seconds", () => {
    const out = convertTsdb(real);
    expect(sampleValue(out, TSDB.headSeries.name)).toBe(raw.data.headStats.numSeries);
    expect(sampleValue(out, TSDB.headChunks.name)).toBe(raw.data.headStats.chunkCount);
    expect(sampleValue(out, TSDB.headMinTime.name)).toBe((raw.data.headStats.minTime as number) / 1000);
    expect(sampleValue(out, TSDB.headMaxTime.name)).toBe((raw.data.headStats.maxTime as number) / 1000);
  });

  it("leaves out min and max time for an empty head (int64 sentinels) but keeps the counts", () => {
    const out = convertTsdb(upstreamFixture("prometheus-tsdb-empty-head.json", tsdbResponse));
    expect(sampleValue(out, TSDB.headSeries.name)).toBe(0);
    expect(out.get(TSDB.headMinTime.name)).toEqual([]);
    expect(out.get(TSDB.headMaxTime.name)).toEqual([]);
    expect(out.get(TSDB.metricSeries.name)).toEqual([]);
  });

  it("emits one series per list entry, in the upstream's order", () => {
    const out = convertTsdb(real);
    expect(out.get(TSDB.metricSeries.name).map((s) => s.labels.metric_name)).toEqual(
      real.data.seriesCountByMetricName.map((e) => e.name),
    );
    expect(out.get(TSDB.labelValues.name)).toHaveLength(real.data.labelValueCountByLabelName.length);
    expect(out.get(TSDB.labelMemory.name)).toHaveLength(real.data.memoryInBytesByLabelName.length);
  });

  it("splits label pairs at the first '=' only", () => {
    const payload = tsdbResponse.parse({
      status: "success",
      data: {
        seriesCountByLabelValuePair: [
          { name: "le=+Inf", value: 3 },
          { name: "expr=a==b", value: 2 },
          { name: "odd", value: 1 },
        ],
      },
    });
    const pairs = convertTsdb(payload).get(TSDB.labelPairSeries.name);
    expect(pairs).toEqual([
      { labels: { label_name: "le", label_value: "+Inf" }, value: 3 },
      { labels: { label_name: "expr", label_value: "a==b" }, value: 2 },
      { labels: { label_name: "odd", label_value: "" }, value: 1 },
    ]);
    const first = raw.data.seriesCountByLabelValuePair[0] as { name: string; value: number };
    const [label, ...rest] = first.name.split("=");
    expect(
      sampleValue(convertTsdb(real), TSDB.labelPairSeries.name, {
        label_name: label as string,
        label_value: rest.join("="),
      }),
    ).toBe(first.value);
  });

  it("cuts every list to the limit, since Prometheus 2.42 ignores the parameter", () => {
    expect(real.data.seriesCountByMetricName.length).toBeGreaterThan(3);
    const out = convertTsdb(real, 3);
    expect(out.get(TSDB.metricSeries.name)).toHaveLength(3);
    expect(out.get(TSDB.labelValues.name)).toHaveLength(3);
    expect(out.get(TSDB.labelMemory.name)).toHaveLength(3);
    expect(out.get(TSDB.labelPairSeries.name)).toHaveLength(3);
  });
});

describe("convertTsdb on the other backends", () => {
  const backend = (path: string) => tsdbResponse.parse(fixtureJson(`backends/${path}`));
  const vm = fixtureJson("backends/victoriametrics-1.79/vm-tsdb-t1.json") as {
    data: { totalSeries: number; totalLabelValuePairs: number };
  };

  it.each(["victoriametrics-1.79/vm-tsdb-t1.json", "victoriametrics-1.150/vm-tsdb.json"])(
    "%s: one day's index figures under their own names, no head, the lists as Prometheus's",
    (path) => {
      const out = convertTsdb(backend(path), undefined, "victoriametrics");
      const raw = fixtureJson(`backends/${path}`) as { data: { totalSeries: number; totalLabelValuePairs: number } };
      expect(sampleValue(out, TSDB.daySeries.name)).toBe(raw.data.totalSeries);
      expect(sampleValue(out, TSDB.dayLabelPairs.name)).toBe(raw.data.totalLabelValuePairs);
      for (const head of [TSDB.headSeries, TSDB.headChunks, TSDB.headMinTime, TSDB.headMaxTime, TSDB.headLabelPairs])
        expect(out.get(head.name), head.name).toEqual([]);
      expect(out.get(TSDB.metricSeries.name).length).toBeGreaterThan(0);
      expect(out.get(TSDB.labelPairSeries.name).length).toBeGreaterThan(0);
      expect(out.get(POLL.warnings.name)).toEqual([]);
    },
  );

  it("VictoriaMetrics: the day figures also before the flavor is known; lists cut to the limit", () => {
    const out = convertTsdb(backend("victoriametrics-1.79/vm-tsdb-topN-2000.json"), 3);
    expect(sampleValue(out, TSDB.daySeries.name)).toBeGreaterThan(vm.data.totalSeries / 2);
    expect(out.get(TSDB.metricSeries.name)).toHaveLength(3);
  });

  it("Thanos Query: every tsdb figure labelled as a sum over the stores", () => {
    const out = convertTsdb(backend("thanos-0.42/query-tsdb.json"), undefined, "thanos");
    const tsdbSamples = [...out.families].filter(([name]) => name.startsWith("promstatus_tsdb_"));
    expect(tsdbSamples.length).toBeGreaterThan(5);
    for (const [name, samples] of tsdbSamples)
      for (const s of samples) expect(s.labels.aggregation, name).toBe("sum_over_stores");
    expect(sampleValue(out, TSDB.headSeries.name, { aggregation: "sum_over_stores" })).toBeGreaterThan(0);
    expect(sampleValue(out, POLL.warnings.name, { endpoint: "tsdb" })).toBe(0);
  });

  it("Thanos Query with no store: head figures 0, no 1970 min and max time", () => {
    const out = convertTsdb(backend("thanos-0.42/query-tsdb-no-store.json"), undefined, "thanos");
    expect(sampleValue(out, TSDB.headSeries.name)).toBe(0);
    expect(out.get(TSDB.headMinTime.name)).toEqual([]);
    expect(out.get(TSDB.headMaxTime.name)).toEqual([]);
    // Before the flavor is known too (flavor-independent), without the aggregation label.
    const unknown = convertTsdb(backend("thanos-0.42/query-tsdb-no-store.json"));
    expect(unknown.get(TSDB.headMinTime.name)).toEqual([]);
    expect(unknown.get(TSDB.headSeries.name)).toEqual([{ labels: {}, value: 0 }]);
  });

  it("counts a tsdb answer's warnings", () => {
    const payload = tsdbResponse.parse({
      status: "success",
      data: {},
      warnings: ["store a failed", "store b failed", 3],
    });
    expect(sampleValue(convertTsdb(payload), POLL.warnings.name, { endpoint: "tsdb" })).toBe(2);
  });
});
