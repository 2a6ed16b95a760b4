import { describe, expect, it } from "vitest";
import { POLL, TSDB } from "../../src/catalogue/families.js";
import { ENDPOINTS, requestUrl } from "../../src/poll/endpoints.js";
import { excerpt } from "../../src/upstream/excerpt.js";
import { PollError } from "../../src/upstream/poll-error.js";
import { sourceConfig } from "../helpers/config.js";
import { fixtureText } from "../helpers/fixtures.js";

// How the tsdb and buildinfo endpoints are asked of the other backends, and which refusals are answers.

const refusal = (fixture: string, status = 400) =>
  new PollError("http_status", `HTTP ${status}`, {
    status,
    upstreamText: excerpt(fixtureText(`backends/${fixture}`)),
  });

describe("tsdb query", () => {
  const source = (limit?: number, flavor?: "victoriametrics" | "thanos") =>
    sourceConfig({ tsdb: { enabled: true, limit }, ...(flavor ? { flavor } : {}) });

  it("sends topN (at most 1000) instead of limit to VictoriaMetrics, which ignores limit", () => {
    expect(ENDPOINTS.tsdb.searchParams(source(20), "victoriametrics")).toEqual({ topN: "20" });
    expect(ENDPOINTS.tsdb.searchParams(source(5000), "victoriametrics")).toEqual({ topN: "1000" });
    // A configured flavor is the one in effect when no other is passed.
    expect(ENDPOINTS.tsdb.searchParams(source(20, "victoriametrics"))).toEqual({ topN: "20" });
    expect(requestUrl(source(20), "tsdb", "victoriametrics")).toBe("http://127.0.0.1:1/api/v1/status/tsdb?topN=20");
  });

  it("sends limit to the others, and nothing without a limit", () => {
    expect(ENDPOINTS.tsdb.searchParams(source(20))).toEqual({ limit: "20" });
    expect(ENDPOINTS.tsdb.searchParams(source(20), "thanos")).toEqual({ limit: "20" });
    expect(ENDPOINTS.tsdb.searchParams(source(undefined), "victoriametrics")).toBeUndefined();
  });
});

describe("vmagent's refusal of the paths it lacks (HTTP 400 unsupported path requested)", () => {
  it.each([
    ["tsdb", "victoriametrics-1.79/vmagent-tsdb.txt"],
    ["tsdb", "victoriametrics-1.150/vmagent-tsdb.txt"],
    ["buildinfo", "victoriametrics-1.79/vmagent-buildinfo.txt"],
    ["buildinfo", "victoriametrics-1.150/vmagent-buildinfo.txt"],
  ] as const)("%s: %s is an answer: unsupported, with advice to stop asking", (endpoint, fixture) => {
    const recognised = ENDPOINTS[endpoint].recognise?.(refusal(fixture));
    expect(recognised?.notice).toContain(`Set \`${endpoint}: {enabled: false}\``);
    expect(recognised?.notice).toContain("vmagent");
    expect(recognised?.samples.get(POLL.supported.name)).toEqual([{ labels: { endpoint }, value: 0 }]);
    // No agent-mode series: vmagent is no Prometheus in agent mode.
    expect(recognised?.samples.get(TSDB.agentMode.name)).toEqual([]);
  });

  it("is not mistaken: another path's refusal, another status, another 400", () => {
    expect(ENDPOINTS.tsdb.recognise?.(refusal("victoriametrics-1.79/vmagent-buildinfo.txt"))).toBeUndefined();
    expect(ENDPOINTS.tsdb.recognise?.(refusal("victoriametrics-1.150/vmagent-tsdb.txt", 500))).toBeUndefined();
    // VictoriaMetrics' own 400 for a bad topN (1.150) is a failure.
    expect(ENDPOINTS.tsdb.recognise?.(refusal("victoriametrics-1.150/vm-tsdb-topN-bad.json"))).toBeUndefined();
  });
});
