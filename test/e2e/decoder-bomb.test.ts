import { readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDaemonReady } from "../harness/daemon.js";
import { freePort, type Managed, tempDir, waitFor } from "../harness/processes.js";
import { samplesOf, valueIn } from "../helpers/exposition.js";
import { fixtureText } from "../helpers/fixtures.js";

// The built daemon, default flags, against upstreams that answer with a gzip bomb shaped for JSON.parse:
// 77 KB on the wire, 80 MB of `[],` once inflated (under a quarter of --decoder.memory-limit), which
// JSON.parse would turn into over 1 GB of heap. A heap exhausted inside JSON.parse aborts the whole
// process (V8 cannot end the thread there), so the answer must be refused before it is parsed: the poll
// fails as too_large, the daemon lives on, and the next good answer is served. A local server plays
// a Prometheus (its tsdb status) and an Alertmanager (its status): no real one gives such an answer.

const BOMB = gzipSync(`{"x":[${"[],".repeat(26_600_000)}[]]}`, { level: 9 });
const GOOD: Record<string, string> = {
  "/api/v1/status/tsdb": fixtureText("upstream/prometheus-tsdb.json"),
  "/api/v1/targets": fixtureText("upstream/prometheus-targets.json"),
  "/api/v2/status": fixtureText("upstream/alertmanager-status-clustered.json"),
};
/** The paths answered with the bomb for now. */
const bombed = new Set<string>();

const dir = tempDir("promstatus-decoder-bomb");
let upstream: Server;
let daemon: Managed;
let metricsUrl: string;

beforeAll(async () => {
  upstream = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://upstream").pathname;
    const good = GOOD[path];
    if (good === undefined) return void res.writeHead(404).end();
    if (!bombed.has(path)) return void res.writeHead(200, { "content-type": "application/json" }).end(good);
    res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" }).end(BOMB);
  });
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  const configFile = join(dir.path, "exporter.yml");
  writeFileSync(
    configFile,
    `global: {schedule: "*/2 * * * * *", timeout: 10s}
sources:
  - {name: prom, kind: prometheus, url: "${url}"}
  - {name: am, kind: alertmanager, url: "${url}"}
`,
  );
  const address = `127.0.0.1:${await freePort()}`;
  metricsUrl = `http://${address}/metrics`;
  daemon = await startDaemonReady(
    dir.path,
    [`--config.file=${configFile}`, `--web.listen-address=${address}`],
    address,
  );
}, 30_000);

afterAll(async () => {
  await daemon?.stop(3000);
  upstream?.closeAllConnections();
  upstream?.close();
  dir.remove();
});

const scrape = async () => (await fetch(metricsUrl)).text();
const log = () => readFileSync(daemon.logFile, "utf8");
const tooLarge = (text: string, source: string, endpoint: string) =>
  samplesOf(text, "promstatus_poll_failures_total", { source, endpoint, reason: "too_large" })[0]?.value ?? 0;

async function servedWell(source: string, endpoint: string): Promise<void> {
  await waitFor(
    `${source} ${endpoint} served`,
    async () => valueIn(await scrape(), "promstatus_up", { source, endpoint }) === 1 || undefined,
    30_000,
    200,
  );
}

async function survivesTheBomb(source: string, endpoint: string, path: string): Promise<void> {
  await servedWell(source, endpoint);
  const before = tooLarge(await scrape(), source, endpoint);
  bombed.add(path);
  const text = await waitFor(
    `a too_large poll of ${source} ${endpoint}`,
    async () => {
      const t = await scrape();
      return tooLarge(t, source, endpoint) > before ? t : undefined;
    },
    30_000,
    200,
  );
  expect(valueIn(text, "promstatus_up", { source, endpoint })).toBe(0);
  expect(log()).toMatch(
    /answer would take more than \d+ bytes of heap to parse \(79800010 bytes of JSON\), the most a decoder can parse with --decoder\.memory-limit=320MiB/,
  );
  expect(daemon.child.exitCode).toBeNull();
  expect(daemon.child.signalCode).toBeNull();
  bombed.delete(path);
  await servedWell(source, endpoint);
  expect(log()).not.toMatch(/FATAL|heap out of memory|heap limit/);
}

describe("an answer whose JSON.parse would take more than --decoder.memory-limit", () => {
  it("is refused before parsing when a Prometheus sends it as its tsdb status; the daemon lives on", async () => {
    expect(BOMB.length).toBeLessThan(80 * 1024);
    await survivesTheBomb("prom", "tsdb", "/api/v1/status/tsdb");
  }, 60_000);

  it("is refused before parsing when an Alertmanager sends it as its status; the daemon lives on", async () => {
    await survivesTheBomb("am", "status", "/api/v2/status");
    expect(valueIn(await scrape(), "promstatus_up", { source: "prom", endpoint: "tsdb" })).toBe(1);
  }, 60_000);
});
