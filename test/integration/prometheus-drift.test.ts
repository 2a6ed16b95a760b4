import { copyFileSync, mkdirSync, readdirSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Exporter } from "../../src/exporter.js";
import { startExporter } from "../harness/exporter.js";
import { tempDir, waitFor } from "../harness/processes.js";
import { type RealPrometheus, type ScrapeJob, startPrometheus } from "../harness/prometheus.js";
import { type SeriesTarget, startSeriesTarget } from "../harness/series-target.js";
import { samplesOf } from "../helpers/exposition.js";
import { startMetricsTarget } from "../helpers/metrics-target.js";

// Issue 22, point 5: Prometheus replicas that drift apart, and a WAL replay seen from outside, against
// Debian's Prometheus 2.42.
//
// drift-a and drift-b are one HA pair (group "drift"): the same config but for
// global.external_labels.replica (a / b), the same rule file and the same flags. Each runs in its own
// directory with relative paths (as the pods of one StatefulSet), so their flags differ only in the
// listen address. The cases change drift-b and put it back: an extra job and a changed rule file by
// reload, a different --storage.tsdb.retention.time by restart (last: a flag needs one).
//
// "replaying" builds a WAL from two scrape jobs of 100k series each every 200ms, meanwhile, and is
// restarted on it at the end. How 2.42 reports the replay (tsdb/head.go at v2.42.0, Head.Init and
// startWALReplayStatus / updateWALReplayStatusRead; cmd/prometheus/main.go, readyStorage.WALReplayStatus;
// web/api/v1/api.go, serveWALReplayStatus): the stats exist from the process's start, so walreplay
// answers {min: 0, max: 0, current: 0} before the replay begins; then min = current = the first segment
// after the checkpoint (none here: no head compaction in seconds) and max = the last segment; current
// moves to a segment's index only once that segment is loaded. So with one segment nothing between 0
// and 1 is ever seen: the WAL needs several, hence 10 MiB segments (--storage.tsdb.wal-segment-size,
// 10MB is its lower bound) and no WAL compression (more segments for the same samples).
// Measured here (2 cores): quiet, 2.42 replays ~0.2 s per 10 MiB segment after ~0.6 s for the first
// (it creates the series): 10 segments in 2.4 s. With other test runs on both cores, 16 segments took
// 13-14 s and 2x100k series every 200ms ~1 segment per 1.5 s to build (overlapping the pair's cases).
// 20 segments leave a quiet machine ~3.5 s of progress strictly between 0 and 1 for an exporter polling
// every second; a busy one replays slower, which only widens it. The WAL is sized by its segments, not
// by the time spent building it.
//
// A different retention is two flags in 2.42's /api/v1/status/flags: storage.tsdb.max-block-duration,
// left unset, is shown as derived from it (retention / 10, at most 31d: cmd/prometheus/main.go at v2.42.0).

const FIXTURES = fileURLToPath(new URL("../fixtures/drift/", import.meta.url));
const GROUP = "drift";
const RETENTION = "--storage.tsdb.retention.time=15d";
const WAL_SEGMENTS = 20;
const LOAD_SERIES = 100_000;

const dir = tempDir("promstatus-drift");
const subdir = (name: string) => {
  const path = join(dir.path, name);
  mkdirSync(path);
  return path;
};
let app: Server;
let other: Server;
let load: SeriesTarget;
let promA: RealPrometheus;
let promB: RealPrometheus;
let replaying: RealPrometheus;
let exporter: Exporter;
let base: string;
let pairJobs: ScrapeJob[];
const scrape = async () => (await fetch(`${base}/metrics`)).text();

/** One half of the pair: its own directory, its copy of the rule file, the replica label given. */
async function replica(name: string, label: string): Promise<RealPrometheus> {
  const path = subdir(name);
  copyFileSync(join(FIXTURES, "rules.yml"), join(path, "rules.yml"));
  return startPrometheus(path, pairJobs, {
    selfScrape: false,
    relativePaths: true,
    externalLabels: { replica: label },
    ruleFiles: ["rules.yml"],
    flags: [RETENTION],
  });
}

async function reload(prometheus: RealPrometheus): Promise<void> {
  const res = await fetch(`${prometheus.url}/-/reload`, { method: "POST" });
  if (!res.ok) throw new Error(`reload of ${prometheus.url}: ${res.status} ${await res.text()}`);
}

const walSegments = (prometheus: RealPrometheus) =>
  readdirSync(join(prometheus.dataDir, "wal")).filter((f) => /^\d{8}$/.test(f)).length;

beforeAll(async () => {
  app = await startMetricsTarget();
  other = await startMetricsTarget();
  load = await startSeriesTarget(LOAD_SERIES);
  pairJobs = [{ job_name: "app", targets: [`127.0.0.1:${(app.address() as AddressInfo).port}`] }];
  // Two jobs on one target: two scrape loops, so both cores can append.
  const loadJobs = ["load-0", "load-1"].map((job_name) => ({
    job_name,
    targets: [load.address],
    scrape_interval: "200ms",
    scrape_timeout: "200ms",
  }));
  [promA, promB, replaying] = await Promise.all([
    replica("drift-a", "a"),
    replica("drift-b", "b"),
    startPrometheus(subdir("replaying"), loadJobs, {
      selfScrape: false,
      flags: ["--storage.tsdb.wal-segment-size=10MB", "--no-storage.tsdb.wal-compression"],
    }),
  ]);
  // Every endpoint named, not left to the defaults: what is asserted is polled whatever they are.
  const endpoints =
    "config: {enabled: true}, rules: {enabled: true}, flags: {enabled: true}, buildinfo: {enabled: true}";
  ({ exporter, base } = await startExporter(
    dir.path,
    [
      "global: {interval: 1s, timeout: 2s}",
      "sources:",
      `  - {name: drift-a, kind: prometheus, url: "${promA.url}", group: ${GROUP}, ${endpoints}}`,
      `  - {name: drift-b, kind: prometheus, url: "${promB.url}", group: ${GROUP}, ${endpoints}}`,
      // The tsdb status of a 200k-series head every second would only slow the WAL being built.
      `  - {name: replaying, kind: prometheus, url: "${replaying.url}", tsdb: {enabled: false}, walreplay: {enabled: true}, runtimeinfo: {enabled: true}}`,
      "",
    ].join("\n"),
  ));
}, 60_000);

afterAll(async () => {
  await exporter?.stop();
  await Promise.all([promA?.stop(), promB?.stop(), replaying?.stop()]);
  await load?.close();
  app?.close();
  other?.close();
  dir.remove();
}, 30_000);

interface GroupCounts {
  config: number | undefined;
  rule: number | undefined;
  flag: number | undefined;
  versions: number | undefined;
  targetSets: number | undefined;
}

const one = (text: string, name: string, match: Record<string, string>) => {
  const found = samplesOf(text, name, match);
  return found.length === 1 ? found[0]?.value : undefined;
};

function groupCounts(text: string): GroupCounts {
  const of = (family: string) => one(text, `promstatus_group_prometheus_${family}`, { group: GROUP });
  return {
    config: of("config_versions"),
    rule: of("rule_versions"),
    flag: of("flag_versions"),
    versions: of("versions"),
    targetSets: of("target_sets"),
  };
}

/** The sha256 label of a member's `<family>` info series (exactly one, value 1), or a description of what is there. */
function digestOf(text: string, family: string, source: string): string {
  const found = samplesOf(text, `promstatus_prometheus_${family}`, { source });
  const only = found[0];
  if (found.length !== 1 || only?.value !== 1) return `${found.length} samples: ${JSON.stringify(found)}`;
  return only.labels.sha256 ?? "no sha256 label";
}

const SHA256 = /^[0-9a-f]{64}$/;

/** Expects both members to have a `<family>` digest, the same or different ones. */
function expectDigests(text: string, family: string, same: boolean): void {
  const a = digestOf(text, family, "drift-a");
  const b = digestOf(text, family, "drift-b");
  expect(a, `${family} of drift-a`).toMatch(SHA256);
  expect(b, `${family} of drift-b`).toMatch(SHA256);
  if (same) expect(b, family).toBe(a);
  else expect(b, family).not.toBe(a);
}

/**
 * The exposition once the group shows `want` with both members up (or the last one seen after 20 s,
 * for the assertions to say what differs). A config shows at the next poll after a reload, a target
 * set up to 5 s later (Prometheus applies discovered targets at most every 5 s).
 */
async function groupShows(want: GroupCounts): Promise<string> {
  let last = "";
  try {
    return await waitFor(
      `group ${JSON.stringify(want)}`,
      async () => {
        last = await scrape();
        const bothUp = one(last, "promstatus_group_sources_up", { group: GROUP }) === 2;
        return bothUp && JSON.stringify(groupCounts(last)) === JSON.stringify(want) ? last : undefined;
      },
      20_000,
      250,
    );
  } catch {
    return last;
  }
}

const SAME: GroupCounts = { config: 1, rule: 1, flag: 1, versions: 1, targetSets: 1 };

/** Runs `check` on drift-b changed, then puts drift-b back, pass or fail, for the next case to start from the pair. */
async function whileChanged(change: () => Promise<void>, check: () => Promise<void>, undo: () => Promise<void>) {
  await change();
  try {
    await check();
  } finally {
    await undo();
    await groupShows(SAME);
  }
}

describe("Prometheus replicas drifting apart, against a real pair", () => {
  it("counts one version of everything for a pair that differs only in its replica label", async () => {
    const text = await groupShows(SAME);
    expect(groupCounts(text)).toEqual(SAME);
    expectDigests(text, "config_info", true);
    expectDigests(text, "rules_info", true);
    expectDigests(text, "flags_info", true);
  }, 25_000);

  it("counts two configs, and one of rules and flags, when one replica has an extra job", async () => {
    const extra = `127.0.0.1:${(other.address() as AddressInfo).port}`;
    await whileChanged(
      () => promB.setJobs([...pairJobs, { job_name: "extra", targets: [extra] }]),
      async () => {
        // The target sets differ as well, as they did before configs were compared.
        const want = { ...SAME, config: 2, targetSets: 2 };
        const text = await groupShows(want);
        expect(groupCounts(text)).toEqual(want);
        expectDigests(text, "config_info", false);
        expectDigests(text, "rules_info", true);
        expectDigests(text, "flags_info", true);
      },
      () => promB.setJobs(pairJobs),
    );
  }, 50_000);

  it("counts two rule sets, and one of config and flags, when one replica has a changed rule file", async () => {
    const ruleFile = (name: string) => async () => {
      copyFileSync(join(FIXTURES, name), join(dir.path, "drift-b", "rules.yml"));
      await reload(promB);
    };
    await whileChanged(
      ruleFile("rules-changed.yml"),
      async () => {
        const want = { ...SAME, rule: 2 };
        const text = await groupShows(want);
        expect(groupCounts(text)).toEqual(want);
        expectDigests(text, "rules_info", false);
        expectDigests(text, "config_info", true);
        expectDigests(text, "flags_info", true);
        // Same counts by type on both: only the rule set's hash tells the changed expression apart.
        for (const source of ["drift-a", "drift-b"]) {
          for (const type of ["alerting", "recording"]) {
            const rules = samplesOf(text, "promstatus_prometheus_rules", { source, type });
            expect(
              rules.reduce((n, s) => n + s.value, 0),
              `${type} rules of ${source}`,
            ).toBe(1);
          }
        }
      },
      ruleFile("rules.yml"),
    );
  }, 50_000);

  // Last of the pair's cases: a flag takes a restart, and nothing after it needs drift-b as it was.
  it("counts two flag sets, and one of config and rules, when one replica keeps its data longer", async () => {
    await promB.restart({ flags: ["--storage.tsdb.retention.time=30d"] });
    const want = { ...SAME, flag: 2 };
    const text = await groupShows(want);
    expect(groupCounts(text)).toEqual(want);
    expectDigests(text, "flags_info", false);
    expectDigests(text, "config_info", true);
    expectDigests(text, "rules_info", true);
  }, 40_000);
});

interface Seen {
  atMs: number;
  progress: number | undefined;
  ready: number | undefined;
}

describe("a WAL replay seen from outside", () => {
  it("shows progress between 0 and 1 and not ready while a restarted Prometheus replays, then 1 and ready", async () => {
    await waitFor(
      `${WAL_SEGMENTS} WAL segments`,
      async () => (walSegments(replaying) >= WAL_SEGMENTS ? true : undefined),
      90_000,
      500,
    );
    // Nothing to scrape once it is back: the replay has the cores to itself.
    await load.close();
    await replaying.restart({ waitReady: false });
    const start = Date.now();
    const seen: Seen[] = [];
    const direct: string[] = []; // the server's own walreplay answers, to tell a short replay from a blind exporter
    let max = 0;
    const during = (o: Seen) => o.progress !== undefined && o.progress > 0 && o.progress < 1 && o.ready === 0;
    const done = () => {
      const i = seen.findIndex(during);
      return i >= 0 && seen.slice(i).some((o) => o.progress === 1 && o.ready === 1);
    };
    while (!done() && Date.now() - start < 60_000) {
      const atMs = Date.now() - start;
      const [walreplay, text] = await Promise.all([
        fetch(`${replaying.url}/api/v1/status/walreplay`).then(
          (r) => r.text(),
          () => "refused",
        ),
        scrape(),
      ]);
      if (direct.at(-1)?.endsWith(walreplay) !== true) direct.push(`${atMs}ms ${walreplay}`);
      max = Math.max(max, Number(/"max":(\d+)/.exec(walreplay)?.[1] ?? 0));
      const progress = one(text, "promstatus_prometheus_wal_replay_progress", { source: "replaying" });
      const ready = one(text, "promstatus_prometheus_ready", { source: "replaying" });
      const last = seen.at(-1);
      if (last?.progress !== progress || last?.ready !== ready) seen.push({ atMs, progress, ready });
      await new Promise((r) => setTimeout(r, 100));
    }
    const story = `exporter: ${JSON.stringify(seen)}\nserver: ${direct.join("\n")}`;
    expect(max, `the WAL replayed has ${WAL_SEGMENTS} segments or more\n${story}`).toBeGreaterThanOrEqual(
      WAL_SEGMENTS - 1,
    );
    const between = seen.find(during);
    expect(between, `progress in (0, 1) and ready 0 seen from the exporter\n${story}`).toBeDefined();
    // The server counts loaded segments (min is 0 here): the exporter's progress is one of k / max.
    const segments = (between?.progress ?? 0) * max;
    expect(Math.abs(segments - Math.round(segments)), story).toBeLessThan(1e-9);
    const after = seen.slice(seen.indexOf(between as Seen));
    expect(
      after.find((o) => o.progress === 1 && o.ready === 1),
      `progress 1 and ready 1 after it\n${story}`,
    ).toEqual(expect.objectContaining({ progress: 1, ready: 1 }));
  }, 180_000);
});
