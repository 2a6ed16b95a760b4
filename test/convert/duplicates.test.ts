import { describe, expect, it } from "vitest";
import { ALERTMANAGER, TARGETS, TSDB } from "../../src/catalogue/families.js";
import { convertAlertmanagerStatus } from "../../src/convert/alertmanager-status.js";
import { SampleSet } from "../../src/convert/samples.js";
import { convertTargets } from "../../src/convert/targets.js";
import { convertTsdb } from "../../src/convert/tsdb.js";
import { alertmanagerStatusResponse, targetsResponse, tsdbResponse } from "../../src/upstream/payloads.js";
import { fixtureJson } from "../helpers/fixtures.js";
import { sampleValue } from "../helpers/samples.js";

// A hostile or broken answer that lists one entry twice gives one series, the first, and says how many
// it left out: two lines with one name and label set would be kept by Prometheus as one, silently.

const entries = (...pairs: [string, number][]) => pairs.map(([name, value]) => ({ name, value }));

describe("SampleSet", () => {
  it("keeps the first sample of a name and label set and counts the others", () => {
    const set = new SampleSet()
      .add("m", { a: "1", b: "2" }, 1)
      .add("m", { a: "1", b: "2" }, 2)
      .add("m", { a: "1", b: "3" }, 3)
      .add("n", { a: "1", b: "2" }, 4);
    expect(set.get("m").map((s) => s.value)).toEqual([1, 3]);
    expect(set.get("n").map((s) => s.value)).toEqual([4]);
    expect(set.duplicates).toBe(1);
  });

  it("takes a lone surrogate and U+FFFD for the one value UTF-8 writes for both", () => {
    const set = new SampleSet().add("m", { a: "\ud800" }, 1).add("m", { a: "\ufffd" }, 2);
    expect(set.get("m")).toHaveLength(1);
    expect(set.duplicates).toBe(1);
  });
});

describe("converters, on answers listing an entry twice", () => {
  it("tsdb: one series per metric name, label name and label pair", () => {
    const payload = tsdbResponse.parse({
      status: "success",
      data: {
        headStats: { numSeries: 1, chunkCount: 1, minTime: 0, maxTime: 1 },
        seriesCountByMetricName: entries(["dup", 5], ["dup", 7], ["other", 1]),
        labelValueCountByLabelName: entries(["job", 3], ["job", 4]),
        memoryInBytesByLabelName: entries(["job", 30], ["job", 40]),
        // "a" and "a=" are both the pair a="" once split.
        seriesCountByLabelValuePair: entries(["job=x", 2], ["job=x", 9], ["a", 1], ["a=", 8]),
      },
    });
    const out = convertTsdb(payload);
    expect(out.get(TSDB.metricSeries.name).map((s) => [s.labels.metric_name, s.value])).toEqual([
      ["dup", 5],
      ["other", 1],
    ]);
    expect(sampleValue(out, TSDB.labelValues.name, { label_name: "job" })).toBe(3);
    expect(sampleValue(out, TSDB.labelMemory.name, { label_name: "job" })).toBe(30);
    expect(sampleValue(out, TSDB.labelPairSeries.name, { label_name: "job", label_value: "x" })).toBe(2);
    expect(sampleValue(out, TSDB.labelPairSeries.name, { label_name: "a", label_value: "" })).toBe(1);
    expect(out.duplicates).toBe(5);
  });

  it("alertmanager: one peer_info per peer, the peer count as the answer gives it", () => {
    const raw = fixtureJson("upstream/alertmanager-status-clustered.json") as { cluster: { peers: unknown[] } };
    const peer = raw.cluster.peers[0];
    const payload = alertmanagerStatusResponse.parse({
      ...raw,
      cluster: { ...raw.cluster, peers: [peer, peer, ...raw.cluster.peers] },
    });
    const out = convertAlertmanagerStatus(payload);
    expect(out.get(ALERTMANAGER.peerInfo.name)).toHaveLength(2);
    expect(sampleValue(out, ALERTMANAGER.peers.name)).toBe(4);
    expect(out.duplicates).toBe(2);
  });

  it("targets: pools, healths and targets whose names are one once written are merged, not repeated", () => {
    const target = (pool: string, instance: string, health: string) => ({
      labels: { job: "j", instance },
      scrapePool: pool,
      health,
      lastError: "",
    });
    const payload = targetsResponse.parse({
      status: "success",
      data: {
        activeTargets: [
          target("p\ud800", "i\ud800", "up\ud800"),
          target("p\ufffd", "i\ufffd", "up\ufffd"),
          target("p\udc00", "i", "up"),
        ],
        droppedTargets: [],
        droppedTargetCounts: { "p\ud800": 1, "p\ufffd": 2 },
      },
    });
    const out = convertTargets(payload, { perTarget: true, extraLabels: [] });
    expect(out.get(TARGETS.up.name)).toHaveLength(2);
    expect(sampleValue(out, TARGETS.collisions.name, { scrape_pool: "p\ufffd" })).toBe(1);
    expect(sampleValue(out, TARGETS.count.name, { scrape_pool: "p\ufffd", health: "up\ufffd" })).toBe(2);
    expect(sampleValue(out, TARGETS.count.name, { scrape_pool: "p\ufffd", health: "up" })).toBe(1);
    expect(sampleValue(out, TARGETS.dropped.name, { scrape_pool: "p\ufffd" })).toBe(3);
    expect(out.duplicates).toBe(0);
  });
});
