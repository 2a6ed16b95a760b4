import { readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { referencePathTargetsAnswer, targetsAnswer } from "../../scripts/bench/generate.js";
import { startDaemonReady } from "../harness/daemon.js";
import { freePort, type Managed, tempDir, waitFor } from "../harness/processes.js";
import { samplesOf, valueIn } from "../helpers/exposition.js";
import { fixtureText } from "../helpers/fixtures.js";

// The built daemon with a small --decoder.memory-limit. A targets answer is streamed, so one far larger
// than the decoder could parse whole is served; one the streaming reader leaves to the reference path
// and that is too large for it fails as too_large, the process lives on, and a normal answer is served
// again. A local server plays the upstream: no real Prometheus here can be made to hold 26,000 targets.

const ANSWERS = {
  good: gzipSync(fixtureText("upstream/prometheus-targets.json")),
  // 9 MB of JSON, over a quarter of 32 MiB: streamed, every target served.
  large: gzipSync(targetsAnswer(12_000)),
  // 9 MB of JSON (mostly white space) the streaming reader leaves to JSON.parse (a duplicate key): over
  // a quarter of 32 MiB, so no more of it is read for the reference path than that, and it is refused.
  unparseable: gzipSync(`${referencePathTargetsAnswer(2_000)}${" ".repeat(9 * 2 ** 20)}`),
  // 5 MB of JSON whose parse is estimated within 32 MiB, but its 130,000 series do not fit: the worker
  // runs out.
  exhausting: gzipSync(referencePathTargetsAnswer(26_000)), // left by the fast path to JSON.parse
};
let answer: keyof typeof ANSWERS = "good";
const tsdb = fixtureText("upstream/prometheus-tsdb.json");

const dir = tempDir("promstatus-decoder-memory");
let upstream: Server;
let daemon: Managed;
let metricsUrl: string;

beforeAll(async () => {
  upstream = createServer((req, res) => {
    if (!req.url?.startsWith("/api/v1/targets")) return void res.writeHead(200).end(tsdb);
    res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" }).end(ANSWERS[answer]);
  });
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  const configFile = join(dir.path, "exporter.yml");
  const url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  writeFileSync(
    configFile,
    `global: {schedule: "*/2 * * * * *", timeout: 10s}\nsources:\n  - {name: prom, kind: prometheus, url: "${url}"}\n`,
  );
  const address = `127.0.0.1:${await freePort()}`;
  metricsUrl = `http://${address}/metrics`;
  daemon = await startDaemonReady(
    dir.path,
    [`--config.file=${configFile}`, `--web.listen-address=${address}`, "--decoder.memory-limit=32MiB"],
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
const tooLarge = (text: string) =>
  samplesOf(text, "promstatus_poll_failures_total", { source: "prom", endpoint: "targets", reason: "too_large" })[0]
    ?.value ?? 0;
const log = () => readFileSync(daemon.logFile, "utf8");

async function expectTooLarge(message: string): Promise<void> {
  const before = tooLarge(await scrape());
  const text = await waitFor(
    "a too_large poll",
    async () => {
      const t = await scrape();
      return tooLarge(t) > before ? t : undefined;
    },
    30_000,
    200,
  );
  expect(valueIn(text, "promstatus_up", { source: "prom", endpoint: "targets" })).toBe(0);
  expect(samplesOf(text, "promstatus_target_up", { source: "prom" })).toEqual([]);
  expect(valueIn(text, "promstatus_up", { source: "prom", endpoint: "tsdb" })).toBe(1);
  expect(log()).toContain(message);
  expect(daemon.child.exitCode).toBeNull();
  expect(daemon.child.signalCode).toBeNull();
}

async function expectServedAgain(): Promise<void> {
  answer = "good";
  const text = await waitFor(
    "targets served again",
    async () => {
      const t = await scrape();
      return valueIn(t, "promstatus_up", { source: "prom", endpoint: "targets" }) === 1 ? t : undefined;
    },
    30_000,
    200,
  );
  expect(samplesOf(text, "promstatus_target_up", { source: "prom" }).length).toBeGreaterThan(0);
}

describe("an answer too large for --decoder.memory-limit", () => {
  it("is served when streamed, however much larger than the decoder could parse whole", async () => {
    answer = "large";
    const text = await waitFor(
      "12,000 targets served",
      async () => {
        const t = await scrape();
        // Every target has an interval; one not scraped yet (the answer has some) has no up.
        const served = samplesOf(t, "promstatus_target_scrape_interval_seconds", { source: "prom" });
        return served.length === 12_000 ? t : undefined;
      },
      30_000,
      200,
    );
    expect(valueIn(text, "promstatus_up", { source: "prom", endpoint: "targets" })).toBe(1);
    const unknown = samplesOf(text, "promstatus_targets", { source: "prom", health: "unknown" });
    const notScraped = unknown.reduce((n, s) => n + s.value, 0);
    expect(notScraped).toBeGreaterThan(0);
    expect(samplesOf(text, "promstatus_target_up", { source: "prom" })).toHaveLength(12_000 - notScraped);
    await expectServedAgain();
  }, 60_000);

  it("is refused, when left to the reference path, once over a quarter of the limit", async () => {
    await expectServedAgain();
    answer = "unparseable";
    await expectTooLarge("the most a decoder can parse with --decoder.memory-limit=32MiB");
    await expectServedAgain();
  }, 60_000);

  it("fails its poll when converting it exhausts the decoder's heap, and the daemon lives on", async () => {
    answer = "exhausting";
    await expectTooLarge("decoding the answer needed more than --decoder.memory-limit=32MiB");
    await expectServedAgain();
    expect(log()).not.toMatch(/FATAL|heap out of memory/);
  }, 60_000);
});
