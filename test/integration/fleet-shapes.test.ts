import { mkdirSync } from "node:fs";
import { createServer, get as httpGet, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { Writable } from "node:stream";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseFlags } from "../../src/cli/flags.js";
import { parseConfig } from "../../src/config/load.js";
import { endpointsOf } from "../../src/config/types.js";
import { Exporter } from "../../src/exporter.js";
import { NO_WEB_CONFIG } from "../../src/http/web-config.js";
import { freePort, tempDir, waitFor } from "../harness/processes.js";
import { type RealPrometheus, startPrometheus } from "../harness/prometheus.js";
import { parseExposition, samplesOf, valueIn } from "../helpers/exposition.js";
import { startMetricsTarget } from "../helpers/metrics-target.js";
import { promtoolCheckMetrics } from "../helpers/promtool.js";

// Shapes real fleets have, made by a real Prometheus (Debian's 2.42): relabelling that makes two
// targets of one pool collide, a target whose `job` label was dropped, dropped targets, and a
// Prometheus in agent mode.

const dir = tempDir("promstatus-fleet");
let target: Server;
let broken: Server;
let prometheus: RealPrometheus;
let agent: RealPrometheus;
let exporter: Exporter;
let metricsUrl: string;
let deadAddress: string;
const logs: { level: number; msg: string; source?: string; endpoint?: string }[] = [];

const subdir = (name: string) => {
  const path = join(dir.path, name);
  mkdirSync(path);
  return path;
};
const scrape = async () => (await fetch(metricsUrl)).text();

/**
 * Answers a scrape wrongly: `/bad-value` a sample whose value is no number, `/bad-gzip` a body that says
 * gzip and is not (what Prometheus writes for each is its own version's text: parsed by a real one).
 */
async function startBrokenTarget(): Promise<Server> {
  const server = createServer((req, res) => {
    if (req.url === "/bad-value") return void res.writeHead(200, { "content-type": "text/plain" }).end("m 1x\n");
    if (req.url === "/bad-gzip")
      return void res.writeHead(200, { "content-encoding": "gzip" }).end("this is not gzip at all\n");
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return server;
}

beforeAll(async () => {
  target = await startMetricsTarget();
  broken = await startBrokenTarget();
  const okAddress = `127.0.0.1:${(target.address() as AddressInfo).port}`;
  const brokenAddress = `127.0.0.1:${(broken.address() as AddressInfo).port}`;
  deadAddress = `127.0.0.1:${await freePort()}`;
  const jobs = [
    {
      // Both targets end up as instance="shared": one is up, the other refuses connections.
      job_name: "collide",
      targets: [okAddress, deadAddress],
      relabel_configs: [
        { source_labels: ["__address__"], target_label: "module" },
        { target_label: "instance", replacement: "shared" },
      ],
    },
    { job_name: "nojob", targets: [okAddress], relabel_configs: [{ action: "labeldrop", regex: "job" }] },
    {
      job_name: "dropping",
      targets: [okAddress, deadAddress],
      relabel_configs: [{ source_labels: ["__address__"], regex: deadAddress.replace(/\./g, "\\."), action: "drop" }],
    },
    { job_name: "badvalue", targets: [brokenAddress], metrics_path: "/bad-value" },
    { job_name: "badgzip", targets: [brokenAddress], metrics_path: "/bad-gzip" },
    // An https scrape of a port that speaks plain HTTP: a TLS setting wrong, not the target.
    { job_name: "httpsplain", targets: [okAddress], scheme: "https" as const },
  ];
  [prometheus, agent] = await Promise.all([
    startPrometheus(subdir("server"), jobs),
    startPrometheus(subdir("agent"), jobs.slice(1, 2), { agent: true }),
  ]);
  await waitFor("every target scraped", async () => {
    const answer = (await (await fetch(`${prometheus.url}/api/v1/targets`)).json()) as {
      data: { activeTargets: { health: string }[] };
    };
    const active = answer.data.activeTargets;
    return active.length === 8 && active.every((t) => t.health !== "unknown") ? true : undefined;
  });
  const config = parseConfig(
    `global: {schedule: "* * * * * *", timeout: 5s}
sources:
  - {name: merged, kind: prometheus, url: "${prometheus.url}"}
  - {name: split, kind: prometheus, url: "${prometheus.url}", tsdb: {enabled: false}, targets: {labels: [module]}}
  - {name: agent, kind: prometheus, url: "${agent.url}"}
`,
    "fleet.yml",
  );
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split("\n").filter(Boolean)) logs.push(JSON.parse(line));
      done();
    },
  });
  const flags = parseFlags(["--web.listen-address=127.0.0.1:0"]);
  exporter = await Exporter.start({ config, webConfig: NO_WEB_CONFIG }, flags, pino({ level: "info" }, sink));
  metricsUrl = `http://127.0.0.1:${(exporter.server.address() as AddressInfo).port}/metrics`;
  // Three polls of every source, so that flapping or repeated logging would show.
  await waitFor("three polls", async () => {
    const text = await scrape();
    const polls = samplesOf(text, "promstatus_poll_duration_seconds");
    return polls.length === config.sources.flatMap(endpointsOf).length ? true : undefined;
  });
  await new Promise((r) => setTimeout(r, 3000));
}, 90_000);

afterAll(async () => {
  await exporter?.stop();
  await Promise.all([prometheus?.stop(), agent?.stop()]);
  await new Promise((r) => target?.close(r));
  await new Promise((r) => broken?.close(r));
  dir.remove();
}, 30_000);

describe("a real Prometheus whose relabelling makes targets collide", () => {
  it("serves one series per colliding pair, down because one of them is down, and counts the collision", async () => {
    const text = await scrape();
    const shared = { source: "merged", scrape_pool: "collide", instance: "shared" };
    expect(samplesOf(text, "promstatus_target_up", shared)).toHaveLength(1);
    expect(valueIn(text, "promstatus_target_up", shared)).toBe(0);
    expect(valueIn(text, "promstatus_target_collisions", { source: "merged", scrape_pool: "collide" })).toBe(1);
    expect(valueIn(text, "promstatus_targets", { source: "merged", scrape_pool: "collide", health: "up" })).toBe(1);
    expect(valueIn(text, "promstatus_targets", { source: "merged", scrape_pool: "collide", health: "down" })).toBe(1);
  });

  it("tells them apart with targets.labels", async () => {
    const text = await scrape();
    const split = samplesOf(text, "promstatus_target_up", { source: "split", scrape_pool: "collide" });
    expect(split.map((s) => [s.labels.module, s.value]).sort()).toEqual(
      [
        [deadAddress, 0],
        [`127.0.0.1:${(target.address() as AddressInfo).port}`, 1],
      ].sort(),
    );
    expect(valueIn(text, "promstatus_target_collisions", { source: "split", scrape_pool: "collide" })).toBe(0);
  });

  it("says why the down target is down, every reason present", async () => {
    const text = await scrape();
    const reasons = samplesOf(text, "promstatus_targets_down_by_reason", { source: "merged", scrape_pool: "collide" });
    expect(reasons).toHaveLength(10);
    expect(reasons.filter((s) => s.value > 0).map((s) => [s.labels.reason, s.value])).toEqual([
      ["connection_refused", 1],
    ]);
  });

  it("classes what this Prometheus writes for a value that is no number, a body that is not gzip, https to plain HTTP", async () => {
    const text = await scrape();
    const reasonsOf = (pool: string) =>
      samplesOf(text, "promstatus_targets_down_by_reason", { source: "merged", scrape_pool: pool })
        .filter((s) => s.value > 0)
        .map((s) => s.labels.reason);
    expect([reasonsOf("badvalue"), reasonsOf("badgzip"), reasonsOf("httpsplain")]).toEqual([
      ["parse_error"],
      ["parse_error"],
      ["tls"],
    ]);
  });

  it("publishes a target whose job label relabelling dropped, with an empty job", async () => {
    const text = await scrape();
    expect(valueIn(text, "promstatus_up", { source: "merged", endpoint: "targets" })).toBe(1);
    expect(valueIn(text, "promstatus_target_up", { source: "merged", scrape_pool: "nojob", job: "" })).toBe(1);
  });

  it("reports dropped targets per pool, the same on every poll", async () => {
    const seen: number[] = [];
    for (let i = 0; i < 3; i++) {
      seen.push(valueIn(await scrape(), "promstatus_targets_dropped", { source: "merged", scrape_pool: "dropping" }));
      await new Promise((r) => setTimeout(r, 1100));
    }
    expect(seen).toEqual([1, 1, 1]);
  });

  it("serves the head's label pairs and the targets' interval and timeout", async () => {
    const text = await scrape();
    expect(valueIn(text, "promstatus_tsdb_head_label_pairs", { source: "merged" })).toBeGreaterThan(0);
    expect(valueIn(text, "promstatus_prometheus_agent_mode", { source: "merged" })).toBe(0);
    const interval = { source: "merged", scrape_pool: "nojob" };
    expect(valueIn(text, "promstatus_target_scrape_interval_seconds", interval)).toBe(1);
    expect(valueIn(text, "promstatus_target_scrape_timeout_seconds", interval)).toBe(0.9);
  });

  it("serves no two series with the same name and labels, and promtool accepts the whole exposition", async () => {
    const text = await scrape();
    const keys = parseExposition(text).map((s) => `${s.name}${JSON.stringify(Object.entries(s.labels).sort())}`);
    expect(keys.length - new Set(keys).size).toBe(0);
    const result = promtoolCheckMetrics(text);
    expect(result.output).toBe("");
    expect(result.status).toBe(0);
  });
});

describe("a real Prometheus in agent mode", () => {
  it("refuses the tsdb status with a gzipped HTTP 422, as the exporter asks for it", async () => {
    const { status, encoding } = await new Promise<{ status?: number; encoding?: string }>((resolve, reject) => {
      httpGet(`${agent.url}/api/v1/status/tsdb`, { headers: { "accept-encoding": "gzip" } }, (res) => {
        res.resume();
        resolve({ status: res.statusCode, encoding: res.headers["content-encoding"] });
      }).on("error", reject);
    });
    expect([status, encoding]).toEqual([422, "gzip"]);
  });

  it("is recognised: not down, flagged as an agent, its targets still published", async () => {
    const text = await scrape();
    expect(valueIn(text, "promstatus_up", { source: "agent", endpoint: "tsdb" })).toBe(1);
    expect(valueIn(text, "promstatus_up", { source: "agent", endpoint: "targets" })).toBe(1);
    expect(valueIn(text, "promstatus_prometheus_agent_mode", { source: "agent" })).toBe(1);
    expect(samplesOf(text, "promstatus_tsdb_head_series", { source: "agent" })).toEqual([]);
    expect(valueIn(text, "promstatus_target_up", { source: "agent", scrape_pool: "nojob" })).toBe(1);
  });

  it("is logged once, saying what to do, however many polls", () => {
    const said = logs.filter((l) => l.source === "agent" && /agent mode/.test(l.msg));
    expect(said).toHaveLength(1);
    expect(said[0]?.msg).toContain("tsdb: {enabled: false}");
    expect(said[0]?.level).toBe(30); // info: what the server is, not a failure
    expect(logs.filter((l) => l.source === "agent" && l.msg === "poll failed")).toEqual([]);
  });
});
