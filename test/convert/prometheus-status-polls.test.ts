import type { IncomingMessage, ServerResponse } from "node:http";
import { pino } from "pino";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { PROMETHEUS_STATUS_ENDPOINTS, type SourceConfig } from "../../src/config/types.js";
import { pollEndpoint } from "../../src/poll/poll-endpoint.js";
import { SourceStore } from "../../src/publish/store.js";
import { Scheduler } from "../../src/schedule/scheduler.js";
import { waitFor } from "../harness/processes.js";
import { sourceConfig } from "../helpers/config.js";
import { samplesOf, valueIn } from "../helpers/exposition.js";
import { startFakeUpstream } from "../helpers/fake-upstream.js";
import { partsText } from "../helpers/families.js";
import { fixtureText } from "../helpers/fixtures.js";
import { promtoolCheckMetrics } from "../helpers/promtool.js";
import { warmDecoderThreads } from "../helpers/warm-decoder.js";

// The decoder threads started before the first timed poll, as the exporter starts them.
beforeAll(warmDecoderThreads, 60_000);

// Prometheus's status endpoints polled as the daemon polls them. The stand-ins answer what the real
// servers answer: Debian's 2.42 as captured (test/fixtures/upstream/capture-prometheus-status.sh),
// agent mode and the readiness gate as web/api/v1/api.go and web/web.go say at v2.42.0 and v3.14.0.

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const logged: { msg?: string; source?: string; endpoint?: string; level?: number }[] = [];
const log = pino({ level: "info" }, { write: (line: string) => void logged.push(JSON.parse(line)) });

const FIXTURES: Record<string, string> = {
  "/api/v1/status/tsdb": "prometheus-tsdb.json",
  "/api/v1/targets": "prometheus-targets.json",
  "/api/v1/status/config": "prometheus-config.json",
  "/api/v1/rules": "prometheus-rules.json",
  "/api/v1/status/flags": "prometheus-flags.json",
  "/api/v1/status/runtimeinfo": "prometheus-runtimeinfo.json",
  "/api/v1/status/buildinfo": "prometheus-buildinfo.json",
  "/api/v1/status/walreplay": "prometheus-walreplay.json",
};

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

const json = (res: ServerResponse, status: number, body: string) =>
  res.writeHead(status, { "content-type": "application/json" }).end(body);

/** Debian's 2.42: every captured answer; Go's router's 404 for what 2.42 lacks (/api/v1/features). */
const debian242: Handler = (req, res) => {
  const fixture = FIXTURES[new URL(req.url ?? "/", "http://x").pathname];
  if (fixture) json(res, 200, fixtureText(`upstream/${fixture}`));
  else
    res
      .writeHead(404, { "content-type": "text/plain; charset=utf-8" })
      .end(fixtureText("upstream/prometheus-error-features-not-found.txt"));
};

/** Every status endpoint on, in a replica group (as the defaults have it for a grouped source). */
function allOn(url: string, name = "prom"): SourceConfig {
  const on = Object.fromEntries(PROMETHEUS_STATUS_ENDPOINTS.map((e) => [e, { enabled: true }]));
  return sourceConfig({
    name,
    url,
    group: "pair",
    schedule: { interval: "1s", intervalMs: 1000 },
    ...on,
    flags: { enabled: true, ignore: [] },
  });
}

async function serve(handler: Handler) {
  const up = await startFakeUpstream(handler);
  cleanups.push(() => up.close());
  return up;
}

function schedule(sources: SourceConfig[]) {
  const store = new SourceStore(sources);
  const scheduler = new Scheduler(store, log);
  scheduler.apply(sources);
  cleanups.push(() => scheduler.stop());
  return store;
}

describe("Prometheus's status endpoints, polled", () => {
  it("says once that 2.42 lacks /api/v1/features, counts its polls as succeeded, and serves what promtool accepts", async () => {
    const up = await serve(debian242);
    const store = schedule([allOn(up.url, "p242")]);
    const featureRequests = () => up.requests.filter((r) => r.url === "/api/v1/features").length;
    await waitFor("three polls", async () => (featureRequests() >= 3 ? true : undefined), 10_000, 50);
    const text = await waitFor("the third poll published", async () => {
      const t = partsText(store.exposition().parts);
      return samplesOf(t, "promstatus_up", { source: "p242" }).length === 9 ? t : undefined;
    });
    for (const { labels, value } of samplesOf(text, "promstatus_up", { source: "p242" }))
      expect([labels.endpoint, value]).toEqual([labels.endpoint, 1]);
    expect(valueIn(text, "promstatus_endpoint_supported", { endpoint: "features" })).toBe(0);
    for (const endpoint of ["tsdb", "targets", "config", "rules", "flags", "runtimeinfo", "buildinfo", "walreplay"])
      expect(valueIn(text, "promstatus_endpoint_supported", { endpoint })).toBe(1);
    const notices = logged.filter((l) => l.source === "p242" && /\/api\/v1\/features/.test(l.msg ?? ""));
    expect(notices).toHaveLength(1);
    expect(notices[0]?.msg).toMatch(
      /has no \/api\/v1\/features \(HTTP 404; Prometheus has it since 3\.9\).*`features: \{enabled: false\}`/,
    );
    expect(notices[0]?.level).toBe(30); // info: an older server, not a failure
    expect(valueIn(text, "promstatus_prometheus_ready")).toBe(1);
    expect(valueIn(text, "promstatus_prometheus_wal_replay_progress")).toBe(1);
    expect(valueIn(text, "promstatus_prometheus_rules", { type: "recording", health: "err" })).toBe(1);
    expect(samplesOf(text, "promstatus_prometheus_config_info")).toHaveLength(1);
    expect(samplesOf(text, "promstatus_prometheus_build_info", { version: "2.42.0+ds" })).toHaveLength(1);
    expect(promtoolCheckMetrics(text)).toEqual({ status: 0, output: "" });
  });

  it("takes agent mode's 422 for /api/v1/rules as unsupported (api.go: wrapAgent)", async () => {
    const agent: Handler = (req, res) =>
      req.url === "/api/v1/rules?exclude_alerts=true" // asked without the alerts (2.49+), which it never reads
        ? json(res, 422, '{"status":"error","errorType":"execution","error":"unavailable with Prometheus Agent"}')
        : debian242(req, res);
    const up = await serve(agent);
    const outcome = await pollEndpoint(allOn(up.url), "rules");
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    expect(outcome.notice).toMatch(/agent mode, which has no \/api\/v1\/rules \(HTTP 422\)/);
    const text = Buffer.concat(outcome.families.map(([, l]) => l as Uint8Array)).toString();
    expect(valueIn(text, "promstatus_endpoint_supported", { endpoint: "rules" })).toBe(0);
    // Agent mode answers config, flags, runtimeinfo and buildinfo: the same 422 there is a failure.
    const lying = await serve((_req, res) =>
      json(res, 422, '{"status":"error","errorType":"execution","error":"unavailable with Prometheus Agent"}'),
    );
    for (const endpoint of ["config", "flags", "runtimeinfo", "buildinfo", "walreplay", "features"] as const)
      expect(await pollEndpoint(allOn(lying.url), endpoint)).toMatchObject({ ok: false });
  });

  it("sees a server behind its readiness gate: not ready (runtimeinfo), replaying (walreplay), the rest failing; then ready", async () => {
    // web/web.go testReady: 503 "Service Unavailable" for every /api/v1 endpoint but walreplay, which
    // answers the replay's segments (tsdb/head.go: min 10, max 20, segment 14 replayed). The 503's body
    // was caught from Debian's 2.42 starting (prometheus-error-not-ready.txt).
    let ready = false;
    const starting: Handler = (req, res) => {
      if (req.url === "/api/v1/status/walreplay" && !ready)
        json(res, 200, '{"status":"success","data":{"min":10,"max":20,"current":14}}');
      else if (!ready) res.writeHead(503).end(fixtureText("upstream/prometheus-error-not-ready.txt"));
      else debian242(req, res);
    };
    const up = await serve(starting);
    const store = schedule([allOn(up.url, "starting")]);
    const text = await waitFor(
      "the first poll published",
      async () => {
        const t = partsText(store.exposition().parts);
        return samplesOf(t, "promstatus_up", { source: "starting" }).length === 9 ? t : undefined;
      },
      15_000,
    );
    // runtimeinfo and walreplay answer; the other endpoints have no data to give and fail, so a server
    // that never gets ready does not read as up.
    const upBy = Object.fromEntries(
      samplesOf(text, "promstatus_up", { source: "starting" }).map((s) => [s.labels.endpoint, s.value]),
    );
    expect(upBy).toEqual({
      tsdb: 0,
      targets: 0,
      config: 0,
      rules: 0,
      flags: 0,
      runtimeinfo: 1,
      buildinfo: 0,
      walreplay: 1,
      features: 0,
    });
    expect(valueIn(text, "promstatus_prometheus_ready")).toBe(0);
    expect(valueIn(text, "promstatus_prometheus_wal_replay_progress")).toBe(0.4);
    // Nothing is said about endpoints behind the gate until they answer.
    expect(samplesOf(text, "promstatus_endpoint_supported").map((s) => s.labels.endpoint)).toEqual(["walreplay"]);
    expect(logged.filter((l) => l.source === "starting" && /not ready/.test(l.msg ?? ""))).toHaveLength(1);
    ready = true;
    // A poll under way may see both (the gate's 503 is retried, the replay status is not): wait for one after.
    await waitFor("ready and replayed", async () => {
      const t = partsText(store.exposition().parts);
      const ready = valueIn(t, "promstatus_prometheus_ready");
      return ready === 1 && valueIn(t, "promstatus_prometheus_wal_replay_progress") === 1 ? t : undefined;
    });
  });

  it("asks a server behind its readiness gate once per poll (no retry: it stays there), another 503 again", async () => {
    const gate = await serve((_req, res) =>
      res.writeHead(503).end(fixtureText("upstream/prometheus-error-not-ready.txt")),
    );
    const outcome = await pollEndpoint(allOn(gate.url), "runtimeinfo");
    expect(outcome).toMatchObject({ ok: true });
    expect(gate.requests).toHaveLength(1);
    const blip = await serve((_req, res) => res.writeHead(503).end("upstream connect error"));
    expect(await pollEndpoint(allOn(blip.url), "runtimeinfo")).toMatchObject({ ok: false });
    expect(blip.requests.length).toBeGreaterThan(1); // retried (as many times as the 2 s timeout allows)
  });

  it("measures clock skew against the midpoint of the request (3.2+: runtimeinfo serverTime)", async () => {
    // The server's clock 30 s ahead, answering 200 ms after the request arrives.
    const ahead: Handler = (_req, res) => {
      const serverTime = new Date(Date.now() + 30_000).toISOString();
      const answer = { status: "success", data: { startTime: "2025-07-14T09:12:03Z", serverTime } };
      setTimeout(() => json(res, 200, JSON.stringify(answer)), 200);
    };
    const up = await serve(ahead);
    const outcome = await pollEndpoint(allOn(up.url), "runtimeinfo");
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    const text = Buffer.concat(outcome.families.map(([, l]) => l as Uint8Array)).toString();
    const skew = valueIn(text, "promstatus_prometheus_clock_skew_seconds");
    const uncertainty = valueIn(text, "promstatus_prometheus_clock_skew_uncertainty_seconds");
    expect(uncertainty).toBeGreaterThanOrEqual(0.1);
    expect(Math.abs(skew - 30)).toBeLessThanOrEqual(uncertainty);
    // The server read its clock before its 200 ms wait: a little behind the midpoint.
    expect(skew).toBeLessThan(30);
  });
});
