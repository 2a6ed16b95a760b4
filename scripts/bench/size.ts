// One benchmark size, in its own process (so memory figures are its own). Prints one JSON object.
// Usage: node --expose-gc --import tsx scripts/bench/size.ts --targets=100000
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { constants, gzipSync } from "node:zlib";
import { pino } from "pino";
import { type SourceConfig, statusEndpointsOff } from "../../src/config/types.js";
import { median } from "./median.js";
import { startUpstream } from "./processes.js";
import { type Load, scrapeLoadInChild } from "./scrape-client.js";

// The exporter under test is the build (dist/), as it runs in production: types come from src/.
const dist = <T>(path: string) => import(new URL(`../../dist/${path}`, import.meta.url).href) as Promise<T>;
const { createApp } = await dist<typeof import("../../src/http/app.js")>("http/app.js");
const { NO_WEB_CONFIG } = await dist<typeof import("../../src/http/web-config.js")>("http/web-config.js");
const { pollEndpoint } = await dist<typeof import("../../src/poll/poll-endpoint.js")>("poll/poll-endpoint.js");
const { ProcessMetrics } =
  await dist<typeof import("../../src/publish/process-metrics.js")>("publish/process-metrics.js");
const { SourceStore } = await dist<typeof import("../../src/publish/store.js")>("publish/store.js");
type SourceStore = InstanceType<typeof SourceStore>;

const { values } = parseArgs({
  options: {
    targets: { type: "string", default: "1000" },
    limit: { type: "string", default: "10000" },
    seconds: { type: "string", default: "5" },
    repeats: { type: "string", default: "5" },
  },
});
const TARGETS = Number(values.targets);
const REPEATS = Number(values.repeats);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("run with --expose-gc");

const cpuMs = (from: NodeJS.CpuUsage) => {
  const d = process.cpuUsage(from);
  return (d.user + d.system) / 1000;
};
const mib = (bytes: number) => +(bytes / 2 ** 20).toFixed(1);
const round = (x: number, digits = 2) => +x.toFixed(digits);

function listen(server: Server): Promise<string> {
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
  );
}

function source(url: string, overrides: Partial<SourceConfig> = {}): SourceConfig {
  return {
    name: "bench",
    kind: "prometheus",
    url,
    labels: {},
    schedule: "0 0 1 1 *",
    timeoutMs: 120_000,
    maxResponseBytes: 256 * 2 ** 20,
    seriesLimit: 0,
    tsdb: { enabled: true, limit: Number(values.limit) },
    targets: { enabled: true, perTarget: true, labels: [] },
    // Prometheus's other status endpoints off: the benchmark measures tsdb and targets.
    ...statusEndpointsOff(),
    http: { headers: {}, tls: { insecureSkipVerify: false }, followRedirects: true, compression: "gzip" },
    ...overrides,
  };
}

/**
 * CPU of a bare JSON.parse of the answer's bytes, the floor of any ingest. Measured in steady state,
 * like the polls: each run also pays for collecting the previous run's garbage.
 */
function jsonParseCpu(body: string): number {
  const bytes = Buffer.from(body);
  const runs: number[] = [];
  let keys = 0;
  for (let i = 0; i < REPEATS + 1; i++) {
    const start = process.cpuUsage();
    keys += Object.keys(JSON.parse(bytes.toString("utf8")) as object).length; // used, so not optimized away
    if (i > 0) runs.push(cpuMs(start)); // the first run warms up
  }
  return keys > 0 ? median(runs) : 0;
}

/** CPU (all threads) and event-loop delay of full polls: fetch, decompress, parse, validate, convert, publish. */
async function ingest(src: SourceConfig, endpoint: "targets" | "tsdb", store: SourceStore) {
  const once = async () => {
    const outcome = await pollEndpoint(src, endpoint);
    if (!outcome.ok) throw new Error(`poll failed: ${outcome.error.message}`);
    store.record(src, endpoint, outcome);
    return store.exposition();
  };
  await once(); // warm-up: starts the worker, compiles the hot paths
  const cpu: number[] = [];
  const wall: number[] = [];
  const gzipCpu: number[] = [];
  let loopMaxMs = 0;
  for (let i = 0; i < REPEATS; i++) {
    await new Promise((r) => setTimeout(r, 50));
    // A fresh histogram per run: re-enabling one would count the pause between runs as a delay.
    const loop = monitorEventLoopDelay({ resolution: 5 });
    loop.enable();
    const start = process.cpuUsage();
    const t0 = performance.now();
    await once();
    cpu.push(cpuMs(start));
    wall.push(performance.now() - t0);
    // The once-per-change gzip, measured on its own: it runs in the thread pool after publishing.
    const zipStart = process.cpuUsage();
    while (!store.exposition().gzip) await new Promise((r) => setTimeout(r, 5));
    gzipCpu.push(cpuMs(zipStart));
    loop.disable();
    loopMaxMs = Math.max(loopMaxMs, loop.max / 1e6);
  }
  return { cpuMs: median(cpu), wallMs: median(wall), gzipCpuMs: median(gzipCpu), loopMaxMs };
}

/** 8 concurrent clients for a few seconds (in their own process, so they do not compete here). */
function load(url: string, gzip: boolean): Promise<Load> {
  return scrapeLoadInChild(process.execPath, url, { connections: 8, seconds: Number(values.seconds), gzip });
}

async function scrapeBench(store: SourceStore) {
  const app = createApp({
    log: pino({ level: "silent" }),
    telemetryPath: "/metrics",
    enableLifecycle: false,
    processMetrics: new ProcessMetrics("bench"),
    sourcesExposition: () => store.exposition(),
    isReady: () => true,
    reload: async () => undefined,
    landing: () => ({ version: "bench", telemetryPath: "/metrics", sources: [], groups: [], probes: [] }),
    webConfig: () => NO_WEB_CONFIG,
    probe: async () => ({ status: 400, type: "text", body: "no probes here\n" }),
    probeAccount: () => undefined,
  });
  const exporter = createServer(app);
  const exporterUrl = `${await listen(exporter)}/metrics`;
  // The bare baseline: node:http answering with the very bytes the exporter serves.
  const fetchBytes = async (gzip: boolean) => {
    const res = await fetch(exporterUrl, { headers: { "accept-encoding": gzip ? "gzip" : "identity" } });
    return { body: Buffer.from(await res.arrayBuffer()), encoding: res.headers.get("content-encoding") };
  };
  // fetch decompresses; the bare server sends the plain bytes gzipped in one go instead, as a server
  // holding them would (about the size the exporter sends).
  const plain = (await fetchBytes(false)).body;
  const zipped = gzipSync(plain, { level: constants.Z_BEST_SPEED });
  const bare = createServer((req, res) => {
    const gzip = /\bgzip\b/.test(String(req.headers["accept-encoding"]));
    res.writeHead(200, {
      "content-type": "text/plain; version=0.0.4; charset=utf-8",
      ...(gzip ? { "content-encoding": "gzip" } : {}),
    });
    res.end(gzip ? zipped : plain);
  });
  const bareUrl = `${await listen(bare)}/metrics`;

  let peakRss = 0;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage.rss());
  }, 20);
  const loop = monitorEventLoopDelay({ resolution: 5 });
  const results = {
    plain: { bare: await load(bareUrl, false), exporter: undefined as Load | undefined },
    gzip: { bare: await load(bareUrl, true), exporter: undefined as Load | undefined },
  };
  loop.enable();
  results.plain.exporter = await load(exporterUrl, false);
  results.gzip.exporter = await load(exporterUrl, true);
  loop.disable();
  clearInterval(sampler);
  exporter.close();
  bare.close();
  return {
    bodyBytes: { plain: plain.length, gzip: zipped.length },
    results,
    loopMaxMs: loop.max / 1e6,
    rssUnderLoadMiB: mib(peakRss),
    heapUnderLoadMiB: mib(process.memoryUsage().heapUsed),
  };
}

async function main() {
  const up = await startUpstream(TARGETS, Number(values.limit));
  const store = new SourceStore();
  const src = source(up.url);
  store.apply([src]);

  // Peak RSS of the exporter while it polls and serves, sampled (the event loop stays free).
  let peakRss = process.memoryUsage.rss();
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage.rss());
  }, 10);
  const rssBefore = process.memoryUsage.rss();
  const targets = await ingest(src, "targets", store);
  const tsdb = await ingest(src, "tsdb", store);
  await new Promise((r) => setTimeout(r, 1500)); // between polls: the idle decode worker has ended
  gc?.();
  const afterPoll = { rssMiB: mib(process.memoryUsage.rss()), heapMiB: mib(process.memoryUsage().heapUsed) };
  const scrape = await scrapeBench(store);
  clearInterval(sampler);
  const peakRssMiB = mib(peakRss);

  // The baselines last, so their memory is not counted as the exporter's.
  // Once seen on a loaded machine: the 80 MB baseline body cut off mid-way ("other side closed"). The
  // baseline is only a reference, so it is fetched again once rather than losing the whole run.
  const fetchRaw = async (path: string): Promise<string> => {
    try {
      return await (await fetch(up.url + path)).text();
    } catch (error) {
      process.stderr.write(`bench: fetching the baseline ${path} failed (${String(error)}), once more\n`);
      return (await fetch(up.url + path, { headers: { connection: "close" } })).text();
    }
  };
  const baseline = jsonParseCpu(await fetchRaw("/api/v1/targets"));
  const tsdbBaseline = jsonParseCpu(await fetchRaw("/api/v1/status/tsdb"));
  const answerBytes = Buffer.byteLength(await fetchRaw("/api/v1/targets"));
  up.child.kill();
  const result = {
    targets: TARGETS,
    answerBytes,
    ingest: { jsonParseCpuMs: round(baseline), ...mapRound(targets), ratio: round(targets.cpuMs / baseline) },
    tsdb: { jsonParseCpuMs: round(tsdbBaseline), ...mapRound(tsdb), ratio: round(tsdb.cpuMs / tsdbBaseline) },
    memory: {
      rssBeforeMiB: mib(rssBefore),
      afterPoll,
      peakRssMiB,
      rssUnderLoadMiB: scrape.rssUnderLoadMiB,
      heapUnderLoadMiB: scrape.heapUnderLoadMiB,
    },
    scrape: {
      bodyBytes: scrape.bodyBytes,
      loopMaxMs: round(scrape.loopMaxMs),
      plain: withRatios(scrape.results.plain),
      gzip: withRatios(scrape.results.gzip),
    },
  };
  console.log(JSON.stringify(result));
  process.exit(0);
}

function mapRound<T extends Record<string, number>>(o: T): T {
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, round(v)])) as T;
}

function withRatios(r: { bare: Load; exporter: Load | undefined }) {
  const e = r.exporter as Load;
  return {
    bare: r.bare,
    exporter: e,
    p50Ratio: round(e.p50 / Math.max(r.bare.p50, 0.001)),
    p99Ratio: round(e.p99 / Math.max(r.bare.p99, 0.001)),
    rpsRatio: round(e.rps / Math.max(r.bare.rps, 0.001)),
  };
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
