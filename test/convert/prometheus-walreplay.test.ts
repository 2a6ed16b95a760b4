import { describe, expect, it } from "vitest";
import { convertPrometheusWalReplay, walReplayProgress } from "../../src/convert/prometheus-walreplay.js";
import { prometheusWalReplayResponse } from "../../src/upstream/payloads.js";
import { upstreamFixture } from "../helpers/fixtures.js";
import { sampleValue } from "../helpers/samples.js";

// tsdb/head.go (v2.42.0, v3.14.0): startWALReplayStatus(startFrom, endAt) sets min = startFrom,
// max = endAt, current = startFrom; updateWALReplayStatusRead(i) after each segment i.
describe("walReplayProgress", () => {
  it("is 0 at the start of a replay of segments 3 to 13, halfway at segment 8, 1 once 13 is in", () => {
    expect(walReplayProgress({ min: 3, max: 13, current: 3 })).toBe(0);
    expect(walReplayProgress({ min: 3, max: 13, current: 8 })).toBe(0.5);
    expect(walReplayProgress({ min: 3, max: 13, current: 13 })).toBe(1);
  });

  it("is 1 with nothing to measure: one segment, no WAL, agent mode, or before the replay starts", () => {
    expect(walReplayProgress({ min: 0, max: 0, current: 0 })).toBe(1);
    expect(walReplayProgress({ min: 7, max: 7, current: 7 })).toBe(1);
  });

  it("stays within 0 and 1 whatever the numbers say", () => {
    expect(walReplayProgress({ min: 5, max: 10, current: 2 })).toBe(0);
    expect(walReplayProgress({ min: 5, max: 10, current: 12 })).toBe(1);
  });

  it("serves no progress for numbers no server writes (a NaN once published)", () => {
    const hostile = { status: "success" as const, data: { min: -1e308, max: 1e308, current: 1e308 } };
    expect(walReplayProgress(hostile.data)).toBeUndefined();
    expect(convertPrometheusWalReplay(hostile).get("promstatus_prometheus_wal_replay_progress")).toEqual([]);
  });

  it("reads a replayed server (Debian's 2.42, captured)", () => {
    const answer = upstreamFixture("prometheus-walreplay.json", prometheusWalReplayResponse);
    expect(sampleValue(convertPrometheusWalReplay(answer), "promstatus_prometheus_wal_replay_progress")).toBe(1);
  });
});
