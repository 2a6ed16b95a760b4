import { describe, expect, it } from "vitest";
import { TSDB } from "../../src/convert/families.js";
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
