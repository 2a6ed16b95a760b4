import { pino } from "pino";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { ModuleConfig, SourceConfig } from "../../src/config/types.js";
import { THANOS_IN_GROUP } from "../../src/config/warnings.js";
import { decodePool } from "../../src/poll/decode-pool.js";
import type { DecodeOptions } from "../../src/poll/decode-types.js";
import { runProbe } from "../../src/probe/probe.js";
import { SourceStore } from "../../src/publish/store.js";
import { FlavorDetection } from "../../src/schedule/flavor-detection.js";
import { Scheduler } from "../../src/schedule/scheduler.js";
import { waitFor } from "../harness/processes.js";
import {
  type BackendAnswer,
  MIMIR_3_1,
  MIMIR_3_1_NO_TENANT,
  PROMETHEUS_2_42_BUILDINFO,
  startBackendFake,
  THANOS_0_42,
  VICTORIAMETRICS_1_79,
  VMAGENT_1_79,
} from "../helpers/backend-fake.js";
import { sourceConfig } from "../helpers/config.js";
import { samplesOf } from "../helpers/exposition.js";
import { partsText } from "../helpers/families.js";
import { warmDecoderThreads } from "../helpers/warm-decoder.js";

// The decoder threads started before the first timed poll, as the exporter starts them.
beforeAll(warmDecoderThreads, 60_000);

// Detection through the poll path the exporter runs: a scheduler polling a loopback server that answers
// the real VictoriaMetrics/vmagent 1.79 captures and the fakes written from Thanos's and Mimir's code
// (test/fixtures/backends/*/README.md), gzipped as asked. The real VictoriaMetrics binary:
// test/integration/backends-flavor.test.ts.

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  vi.restoreAllMocks();
});

type Line = { level: number; msg: string; source?: string; flavor?: string };
const logged: Line[] = [];
const log = pino({ level: "info" }, { write: (line: string) => void logged.push(JSON.parse(line)) });
const told = (source: string, text: string) => logged.filter((l) => l.source === source && l.msg.includes(text));

/** The flavor each poll of `source` handed to the decoder threads, by endpoint, in order. */
function spyDecodeOptions(source: string) {
  const seen: { endpoint: string; flavor: DecodeOptions["flavor"] }[] = [];
  const ours = (options: DecodeOptions) => options.labelPrefix.includes(`source="${source}"`);
  const openStream = decodePool.openStream.bind(decodePool);
  vi.spyOn(decodePool, "openStream").mockImplementation((endpoint, options) => {
    if (ours(options)) seen.push({ endpoint, flavor: options.flavor });
    return openStream(endpoint, options);
  });
  const decode = decodePool.decode.bind(decodePool);
  vi.spyOn(decodePool, "decode").mockImplementation((job, timeoutMs) => {
    if (ours(job.options)) seen.push({ endpoint: job.endpoint, flavor: job.options.flavor });
    return decode(job, timeoutMs);
  });
  return seen;
}

const everySecond = { interval: "1s", intervalMs: 1000 };

/** A scheduler polling one source of a backend fake every second; `polls`: the first N polls done. */
async function poll(answers: Record<string, BackendAnswer>, overrides: Partial<SourceConfig>, polls = 1) {
  const fake = await startBackendFake(answers);
  cleanups.push(() => fake.close());
  const source = sourceConfig({ url: fake.url, schedule: everySecond, ...overrides });
  const store = new SourceStore([source]);
  const scheduler = new Scheduler(store, log);
  const seen = spyDecodeOptions(source.name);
  scheduler.apply([source]);
  cleanups.push(() => scheduler.stop());
  const requestsPerPoll = Object.keys(answers).length;
  await waitFor(
    `${polls} polls of ${source.name}`,
    async () => (fake.paths.length >= polls * requestsPerPoll && scheduler.ready ? true : undefined),
    10_000,
    20,
  );
  // The last poll's outcome recorded (the store is updated in the poll's last synchronous step).
  await new Promise((resolve) => setTimeout(resolve, 100));
  return { fake, store, seen, text: () => partsText(store.exposition().parts) };
}

const info = (text: string, source: string) => samplesOf(text, "promstatus_source_info", { source });

describe("flavor detection on the poll path", () => {
  it("VictoriaMetrics 1.79 (real answers): buildinfo goes first, and the same poll's tsdb and targets are read as VictoriaMetrics", async () => {
    const { fake, seen, text } = await poll(
      VICTORIAMETRICS_1_79,
      { name: "vm", buildinfo: { enabled: true }, tsdb: { enabled: true, limit: 3 } },
      2,
    );
    expect(fake.paths[0]).toBe("/api/v1/status/buildinfo");
    // Asked as VictoriaMetrics reads it from the first poll on: topN, not limit.
    expect(fake.urls.filter((u) => u.startsWith("/api/v1/status/tsdb"))[0]).toBe("/api/v1/status/tsdb?topN=3");
    expect(seen.filter((s) => s.endpoint !== "buildinfo").map((s) => s.flavor)).toEqual(
      expect.arrayContaining(["victoriametrics"]),
    );
    expect(seen.filter((s) => s.endpoint !== "buildinfo").every((s) => s.flavor === "victoriametrics")).toBe(true);
    expect(info(text(), "vm")).toEqual([
      expect.objectContaining({
        labels: expect.objectContaining({ kind: "prometheus", flavor: "victoriametrics" }),
        value: 1,
      }),
    ]);
    // Said once, however many polls tell it again.
    expect(told("vm", "is VictoriaMetrics (detected from its /api/v1/status/buildinfo answer)")).toHaveLength(1);
    expect(told("vm", "is VictoriaMetrics")[0]?.level).toBe(30);
  });

  it("vmagent 1.79 (real answers): told by its refusal of buildinfo", async () => {
    const { text } = await poll(VMAGENT_1_79, { name: "agent", buildinfo: { enabled: true } });
    expect(info(text(), "agent")[0]?.labels.flavor).toBe("vmagent");
    expect(told("agent", "is vmagent (detected from its refusal of /api/v1/status/buildinfo (HTTP 400))")).toHaveLength(
      1,
    );
  });

  it("Thanos Query v0.42.4: told by its 0.x buildinfo; in a replica group, warned that its dedup hides the replicas", async () => {
    const { text } = await poll(THANOS_0_42, { name: "query", group: "eu1", buildinfo: { enabled: true } }, 2);
    expect(info(text(), "query")[0]?.labels.flavor).toBe("thanos");
    expect(told("query", "is Thanos Query")).toHaveLength(1);
    const warned = logged.filter((l) => l.source === "query" && l.msg === THANOS_IN_GROUP);
    expect(warned).toHaveLength(1);
    expect(warned[0]?.level).toBe(40);
  });

  it("Prometheus 2.42 (real buildinfo): prometheus", async () => {
    const { text } = await poll(PROMETHEUS_2_42_BUILDINFO, {
      name: "prom",
      tsdb: { enabled: false, limit: undefined },
      targets: { enabled: false, perTarget: true, labels: [] },
      buildinfo: { enabled: true },
    });
    expect(info(text(), "prom")[0]?.labels.flavor).toBe("prometheus");
  });

  it("without buildinfo, VictoriaMetrics is told by its (gzipped) tsdb answer, and later polls are read as it", async () => {
    const { seen, text } = await poll(VICTORIAMETRICS_1_79, { name: "vm-nobuild" }, 2);
    expect(info(text(), "vm-nobuild")[0]?.labels.flavor).toBe("victoriametrics");
    expect(told("vm-nobuild", "detected from its /api/v1/status/tsdb answer")).toHaveLength(1);
    // The first poll could not know; every one after it does.
    expect(seen.slice(0, 2).map((s) => s.flavor)).toEqual([undefined, undefined]);
    expect(seen.slice(2).length).toBeGreaterThanOrEqual(2);
    expect(seen.slice(2).every((s) => s.flavor === "victoriametrics")).toBe(true);
  });

  it("without buildinfo, Thanos Query is told by the warnings at the end of its streamed targets answer", async () => {
    const { text } = await poll(THANOS_0_42, { name: "query-nobuild" });
    expect(info(text(), "query-nobuild")[0]?.labels.flavor).toBe("thanos");
    expect(told("query-nobuild", "detected from warnings beside its /api/v1/targets answer")).toHaveLength(1);
  });

  it("Mimir's Alertmanager: told by its ready cluster with no peers, or by the missing tenant's 401", async () => {
    const withTenant = await poll(MIMIR_3_1, { name: "mimir", kind: "alertmanager" });
    expect(info(withTenant.text(), "mimir")[0]?.labels).toMatchObject({ kind: "alertmanager", flavor: "mimir" });
    expect(told("mimir", "is Mimir's Alertmanager (detected from its /api/v2/status answer")).toHaveLength(1);
    const without = await poll(MIMIR_3_1_NO_TENANT, { name: "mimir-401", kind: "alertmanager" });
    expect(info(without.text(), "mimir-401")[0]?.labels.flavor).toBe("mimir");
    expect(told("mimir-401", "detected from its refusal of /api/v2/status (HTTP 401)")).toHaveLength(1);
  });

  it("an Alertmanager of the Prometheus project: prometheus", async () => {
    const answers = { "/api/v2/status": { body: "upstream/alertmanager-status-standalone.json" } };
    const { text } = await poll(answers, { name: "am", kind: "alertmanager" });
    expect(info(text(), "am")[0]?.labels.flavor).toBe("prometheus");
  });

  it("asks buildinfo first only until it has answered without telling (an older Prometheus's 404)", async () => {
    const old = {
      "/api/v1/status/buildinfo": {
        body: "upstream/prometheus-tsdb.json", // not read: a 404 is answered
        status: 404,
        contentType: "text/plain; charset=utf-8",
        delayMs: 400,
      },
      "/api/v1/status/tsdb": { body: "upstream/prometheus-tsdb.json" },
      "/api/v1/targets": { body: "upstream/prometheus-targets.json" },
    };
    const { fake } = await poll(old, { name: "old", buildinfo: { enabled: true } }, 2);
    // The first poll waited for buildinfo's answer before asking the rest.
    expect(fake.paths[0]).toBe("/api/v1/status/buildinfo");
    expect((fake.times[1] as number) - (fake.times[0] as number)).toBeGreaterThanOrEqual(350);
    const secondPoll = fake.paths.slice(3, 6);
    expect(secondPoll.sort()).toEqual(["/api/v1/status/buildinfo", "/api/v1/status/tsdb", "/api/v1/targets"]);
    const secondTimes = fake.times.slice(3, 6);
    expect(Math.max(...secondTimes) - Math.min(...secondTimes)).toBeLessThan(300); // at once
  });

  it("is unknown until told, and a configured flavor is served from the start and wins over the answers", async () => {
    // Prometheus's tsdb and targets say nothing of the flavor.
    const quiet = {
      "/api/v1/status/tsdb": { body: "upstream/prometheus-tsdb.json" },
      "/api/v1/targets": { body: "upstream/prometheus-targets.json" },
    };
    const { text } = await poll(quiet, { name: "quiet" });
    expect(info(text(), "quiet")[0]?.labels.flavor).toBe("unknown");

    const store = new SourceStore([sourceConfig({ name: "set", flavor: "thanos" })]);
    expect(info(partsText(store.exposition().parts), "set")[0]?.labels.flavor).toBe("thanos");

    const configured = await poll(VICTORIAMETRICS_1_79, { name: "set-vm", flavor: "prometheus" }, 2);
    expect(info(configured.text(), "set-vm")[0]?.labels.flavor).toBe("prometheus");
    expect(configured.seen.every((s) => s.flavor === "prometheus")).toBe(true);
    const warned = told("set-vm", "is configured as flavor prometheus, but its answers say VictoriaMetrics");
    expect(warned).toHaveLength(1);
  });

  it("a probe: a configured flavor, else its own answers tell it, for its info series", async () => {
    const fake = await startBackendFake(VICTORIAMETRICS_1_79);
    cleanups.push(() => fake.close());
    const { name: _, url: __, labels: ___, schedule: ____, ...settings } = sourceConfig();
    const module: ModuleConfig = { ...settings, name: "prometheus", allowedTargets: [], minIntervalMs: 0 };
    const detected = await runProbe({ module, target: fake.url }, undefined, 0);
    expect(info(detected.exposition.toString(), fake.url)[0]?.labels.flavor).toBe("victoriametrics");
    const set = await runProbe({ module: { ...module, flavor: "vmagent" }, target: fake.url }, undefined, 0);
    expect(info(set.exposition.toString(), fake.url)[0]?.labels.flavor).toBe("vmagent");
  });
});

describe("FlavorDetection carried over a reload", () => {
  it("warns a Thanos Query now in a replica group, though its flavor was detected before the reload", () => {
    const said: { msg?: string; level?: number }[] = [];
    const log = pino({ level: "info" }, { write: (line: string) => void said.push(JSON.parse(line)) });
    const grouped = sourceConfig({ name: "query", group: "eu1" });
    const detection = new FlavorDetection(grouped, log, "thanos");
    expect(detection.flavor).toBe("thanos");
    expect(said.filter((l) => l.msg === THANOS_IN_GROUP).map((l) => l.level)).toEqual([40]);
    // Not said again when its answers tell it again, nor "detected" anew.
    detection.take({ flavor: "thanos", from: "its /api/v1/status/buildinfo answer" });
    expect(said.filter((l) => l.msg === THANOS_IN_GROUP)).toHaveLength(1);
    expect(said.filter((l) => l.msg?.includes("is Thanos Query"))).toEqual([]);
  });
});
