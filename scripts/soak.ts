// Soak: many poll cycles against an upstream whose answers change every cycle (targets appear and
// vanish, peers come and go) while /metrics is scraped concurrently. Checks that every scrape is a
// complete, valid exposition whose series match an answer actually served, and that heap and RSS
// stay flat after warm-up. Run: npm run soak -- --cycles=1000   (prints a JSON summary; exit 1 on failure)
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { parseArgs } from "node:util";
import type { SourceConfig } from "../src/config/types.js";
import { pollEndpoint } from "../src/poll/poll-endpoint.js";
import { SourceStore } from "../src/publish/store.js";
import { appServing } from "../test/helpers/app.js";
import { sourceConfig } from "../test/helpers/config.js";
import { parseExposition } from "../test/helpers/exposition.js";

const { values } = parseArgs({
  options: { cycles: { type: "string", default: "1000" }, scrapers: { type: "string", default: "4" } },
});
const CYCLES = Number(values.cycles);
const SCRAPERS = Number(values.scrapers);
// Allocator pools and JIT settle over the first few hundred cycles; flatness is judged after that.
const WARM_UP = Math.max(10, Math.floor(CYCLES * 0.3));
const POOL = 300; // possible targets; each cycle serves a random subset

interface Answer {
  targets: number;
  peers: number;
}

let cycle = 0;
const answers: Answer[] = []; // what cycle i served
let current: { targets: string; status: string; answer: Answer } = makeAnswers();

function makeAnswers() {
  const activeTargets = [];
  for (let i = 0; i < POOL; i++) {
    if (Math.random() < 0.5) continue;
    const health = ["up", "down", "unknown"][i % 3];
    activeTargets.push({
      labels: { job: `job-${i % 7}`, instance: `host-${i}:9100` },
      scrapePool: `job-${i % 7}`,
      health,
      lastError: health === "down" ? `dial "host-${i}": \\ refused\nagain` : "",
      lastScrape: health === "unknown" ? "0001-01-01T00:00:00Z" : new Date().toISOString(),
      lastScrapeDuration: health === "unknown" ? 0 : Math.random(),
      scrapeInterval: "15s",
      scrapeTimeout: "10s",
    });
  }
  // As a real Prometheus lists them: pools sorted, each pool's targets in a new order on every answer
  // (Go map iteration; see scripts/bench/generate.ts).
  const listed = activeTargets
    .map((target) => ({ target, random: Math.random() }))
    .sort((a, b) =>
      a.target.scrapePool === b.target.scrapePool
        ? a.random - b.random
        : a.target.scrapePool < b.target.scrapePool
          ? -1
          : 1,
    )
    .map(({ target }) => target);
  const peers = Array.from({ length: 1 + Math.floor(Math.random() * 5) }, (_, i) => ({
    name: `peer-${Math.floor(Math.random() * 1000)}-${i}`,
    address: `10.0.0.${i}:9094`,
  }));
  return {
    targets: JSON.stringify({ status: "success", data: { activeTargets: listed, droppedTargets: [] } }),
    status: JSON.stringify({
      cluster: { name: "c", status: "ready", peers },
      config: { original: "route:\n  receiver: a\nreceivers:\n- name: a\n" },
      uptime: new Date().toISOString(),
      versionInfo: { version: "0.25.0" },
    }),
    answer: { targets: activeTargets.length, peers: peers.length },
  };
}

const upstream: Server = createServer((req, res) => {
  res.writeHead(200, { "content-type": "application/json" });
  res.end(req.url?.startsWith("/api/v1/targets") ? current.targets : current.status);
});

const listen = (s: Server) =>
  new Promise<number>((resolve) => s.listen(0, "127.0.0.1", () => resolve((s.address() as AddressInfo).port)));

const source = (name: string, kind: SourceConfig["kind"], url: string) =>
  sourceConfig({ name, kind, url, timeoutMs: 5000, tsdb: { enabled: false, limit: undefined } });

function memory() {
  (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  return { cycle, heapMiB: +(m.heapUsed / 2 ** 20).toFixed(1), rssMiB: +(m.rss / 2 ** 20).toFixed(1) };
}

async function main(): Promise<void> {
  if (!(globalThis as { gc?: unknown }).gc) throw new Error("run with node --expose-gc");
  const url = `http://127.0.0.1:${await listen(upstream)}`;
  const prom = source("soak-prometheus", "prometheus", url);
  const am = source("soak-alertmanager", "alertmanager", url);
  const store = new SourceStore([prom, am]);
  const server = createServer(appServing(() => store.exposition()));
  const metricsUrl = `http://127.0.0.1:${await listen(server)}/metrics`;

  const problems: string[] = [];
  let scrapes = 0;
  let done = false;
  const scraper = async () => {
    while (!done) {
      const from = cycle;
      const text = await (await fetch(metricsUrl)).text();
      const to = cycle;
      scrapes++;
      if (from === 0) continue; // nothing polled yet
      let samples: ReturnType<typeof parseExposition>;
      try {
        samples = parseExposition(text);
      } catch (err) {
        problems.push(`scrape ${scrapes}: ${(err as Error).message}`);
        continue;
      }
      const count = (name: string) => samples.filter((s) => s.name === name).length;
      const sum = (name: string) => samples.filter((s) => s.name === name).reduce((n, s) => n + s.value, 0);
      // Every target has an interval; only those scraped have an up.
      const targets = count("promstatus_target_scrape_interval_seconds");
      const scraped = samples.filter((s) => s.name === "promstatus_targets" && s.labels.health !== "unknown");
      const peers = count("promstatus_alertmanager_peer_info");
      // Consistent within itself, and equal to what some answer served during the scrape implied.
      const served = answers.slice(Math.max(0, from - 1), to);
      if (sum("promstatus_targets") !== targets) problems.push(`scrape ${scrapes}: targets count != per-target series`);
      if (scraped.reduce((n, s) => n + s.value, 0) !== count("promstatus_target_up"))
        problems.push(`scrape ${scrapes}: scraped targets count != promstatus_target_up series`);
      if (sum("promstatus_alertmanager_cluster_peers") !== peers)
        problems.push(`scrape ${scrapes}: peers != peer_info`);
      if (!served.some((a) => a.targets === targets))
        problems.push(`scrape ${scrapes}: ${targets} targets matches no answer`);
      if (!served.some((a) => a.peers === peers)) problems.push(`scrape ${scrapes}: ${peers} peers matches no answer`);
      if (!text.endsWith("\n") || !text.includes("process_resident_memory_bytes"))
        problems.push(`scrape ${scrapes}: incomplete`);
    }
  };
  const scrapers = Array.from({ length: SCRAPERS }, scraper);

  const samples: ReturnType<typeof memory>[] = [];
  const started = performance.now();
  for (let i = 0; i < CYCLES; i++) {
    current = makeAnswers();
    const [t, s] = await Promise.all([pollEndpoint(prom, "targets"), pollEndpoint(am, "status")]);
    if (!t.ok || !s.ok)
      problems.push(`cycle ${i}: poll failed: ${t.ok ? "" : t.error.message} ${s.ok ? "" : s.error.message}`);
    store.record(prom, "targets", t);
    store.record(am, "status", s);
    answers.push(current.answer);
    cycle++;
    if (cycle === WARM_UP || cycle % Math.max(1, Math.floor(CYCLES / 10)) === 0 || cycle === CYCLES)
      samples.push(memory());
  }
  done = true;
  await Promise.all(scrapers);
  server.close();
  upstream.close();

  const warm = samples.find((s) => s.cycle === WARM_UP) ?? samples[0];
  const last = samples[samples.length - 1];
  const heapGrowth = (last?.heapMiB ?? 0) - (warm?.heapMiB ?? 0);
  const rssGrowth = (last?.rssMiB ?? 0) - (warm?.rssMiB ?? 0);
  // Flat means: what is left after a full GC does not grow with the number of cycles.
  if (heapGrowth > 8) problems.push(`heap grew ${heapGrowth.toFixed(1)} MiB after warm-up`);
  if (rssGrowth > 48) problems.push(`RSS grew ${rssGrowth.toFixed(1)} MiB after warm-up`);
  const summary = {
    cycles: CYCLES,
    scrapes,
    seconds: +((performance.now() - started) / 1000).toFixed(1),
    heapGrowthMiB: +heapGrowth.toFixed(1),
    rssGrowthMiB: +rssGrowth.toFixed(1),
    memory: samples,
    problems: problems.slice(0, 20),
    problemCount: problems.length,
  };
  console.log(JSON.stringify(summary, null, 1));
  process.exitCode = problems.length === 0 ? 0 : 1;
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
