import { describe, expect, it } from "vitest";
import { clockSkew, convertPrometheusRuntimeInfo } from "../../src/convert/prometheus-runtime.js";
import { prometheusRuntimeInfoResponse } from "../../src/upstream/payloads.js";
import { upstreamFixture } from "../helpers/fixtures.js";
import { sampleValue } from "../helpers/samples.js";

// Debian's 2.42 (captured): no serverTime before 3.2. The 3.5 answer is built from web/api/v1/api.go
// (type RuntimeInfo) and web/web.go (runtimeInfo: serverTime is time.Now().UTC()) at v3.5.0.
const v242 = upstreamFixture("prometheus-runtimeinfo.json", prometheusRuntimeInfoResponse);
const v35 = upstreamFixture("prometheus-3.5-runtimeinfo.json", prometheusRuntimeInfoResponse);
const serverMs = Date.parse("2025-07-14T10:00:00.250Z");

describe("clockSkew", () => {
  it("is the server's time minus the midpoint of the request: positive when the server is ahead", () => {
    // The request went out 1.2 s before the server's time and came back 0.8 s before it: midpoint 1 s behind.
    const ahead = clockSkew(v35.data.serverTime, { startedMs: serverMs - 1200, finishedMs: serverMs - 800 });
    expect(ahead?.skewSeconds).toBeCloseTo(1, 6);
    expect(ahead?.uncertaintySeconds).toBeCloseTo(0.2, 6);
    const behind = clockSkew(v35.data.serverTime, { startedMs: serverMs + 2000, finishedMs: serverMs + 2100 });
    expect(behind?.skewSeconds).toBeCloseTo(-2.05, 6);
    expect(behind?.uncertaintySeconds).toBeCloseTo(0.05, 6);
  });

  it("is zero, within half the request, for a server whose clock read falls inside it", () => {
    const inside = clockSkew(v35.data.serverTime, { startedMs: serverMs - 300, finishedMs: serverMs + 300 });
    expect(inside).toEqual({ skewSeconds: 0, uncertaintySeconds: 0.3 });
  });

  it("is unknown without a server time (before 3.2) or without the request's times", () => {
    expect(clockSkew(v242.data.serverTime, { startedMs: 0, finishedMs: 1 })).toBeUndefined();
    expect(clockSkew(v35.data.serverTime, undefined)).toBeUndefined();
  });

  it("is unknown for a server time that is not RFC 3339 (Date.parse would take '5' as 2001-05-01)", () => {
    const request = { startedMs: serverMs, finishedMs: serverMs + 10 };
    for (const text of ["5", "2024", "Tue, 01 Jan 2999 00:00:00 GMT", "+275760-09-13T00:00:00Z", ""])
      expect(clockSkew(text, request), text).toBeUndefined();
    expect(clockSkew("2025-07-14T10:00:00.250+02:00", request)?.skewSeconds).toBeCloseTo(-7200.005, 3);
  });
});

describe("convertPrometheusRuntimeInfo", () => {
  it("reads reload success, its time, the start time and readiness from 2.42, and no clock skew", () => {
    const samples = convertPrometheusRuntimeInfo(v242, { startedMs: 0, finishedMs: 10 });
    expect(sampleValue(samples, "promstatus_prometheus_ready")).toBe(1);
    expect(sampleValue(samples, "promstatus_prometheus_config_last_reload_successful")).toBe(1);
    expect(sampleValue(samples, "promstatus_prometheus_config_last_reload_success_timestamp_seconds")).toBe(
      Date.parse(v242.data.lastConfigTime as string) / 1000,
    );
    expect(sampleValue(samples, "promstatus_prometheus_start_time_seconds")).toBeCloseTo(
      Date.parse(v242.data.startTime as string) / 1000,
      2,
    );
    expect(samples.get("promstatus_prometheus_clock_skew_seconds")).toEqual([]);
  });

  it("reads a failed reload and the clock skew from 3.5", () => {
    const samples = convertPrometheusRuntimeInfo(v35, { startedMs: serverMs - 100, finishedMs: serverMs + 500 });
    expect(sampleValue(samples, "promstatus_prometheus_config_last_reload_successful")).toBe(0);
    expect(sampleValue(samples, "promstatus_prometheus_clock_skew_seconds")).toBeCloseTo(-0.2, 6);
    expect(sampleValue(samples, "promstatus_prometheus_clock_skew_uncertainty_seconds")).toBeCloseTo(0.3, 6);
  });

  it("has no reload time before a config was ever loaded (Go's zero time)", () => {
    const fresh = { status: "success" as const, data: { ...v242.data, lastConfigTime: "0001-01-01T00:00:00Z" } };
    expect(
      convertPrometheusRuntimeInfo(fresh, undefined).get(
        "promstatus_prometheus_config_last_reload_success_timestamp_seconds",
      ),
    ).toEqual([]);
  });
});
