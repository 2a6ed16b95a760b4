// What a poll costs the user, at each size: the built daemon (dist/main.js on the image's Node.js and
// environment, every flag at its default) polling a generated upstream on a cron schedule, measured
// from the outside over whole poll cycles:
// - CPU: utime + stime of the whole process (every thread: fetch, decompress, decoder thread, scan,
//   summary, rendering, assembly, the exposition's gzip for a scrape) from /proc/<pid>/stat, minus an
//   idle twin (the same daemon polling an empty answer on the same schedule, scraped and probed alike),
//   per thread name too, cycle by cycle. Baseline: a bare JSON.parse of the same bytes on the same
//   Node.js, measured in each cycle between its poll and its scrape (the daemons idle), so that the
//   machine's slower and faster minutes weigh on both alike; the ratio is the median of the cycles'.
// - Memory: VmHWM (peak RSS) of the whole process; VmRSS two seconds before a poll (between polls)
//   beside the idle twin's at the same moment.
// - Event loop: the daemon's own nodejs_eventloop_lag_max_seconds (prom-client's monitorEventLoopDelay,
//   reset at every collection), read by the one scrape of each cycle: the worst over that cycle.
// - Liveness: GET /-/healthy every 20 ms from a process of its own, the worst latency during the polls.
// - Served: the series of promstatus_target_scrape_interval_seconds (every target has one; a target not
//   scraped yet has no promstatus_target_up, and the generated answer has some) in the cycle's scrape
//   against the targets answered, and promstatus_up / promstatus_last_success_timestamp_seconds for
//   whether each poll succeeded.
// At the goal size also: the answer over gzip, and GET /metrics under load against a bare server
// (scrape-load.ts). A size the daemon fails at is a row with the failure and the daemon's log lines.
// Prints one JSON line. Usage: node --import tsx scripts/bench/whole-poll.ts
//   [--targets=20000,100000,500000] [--goal-targets=100000] [--scrape-seconds=2] [--scrape-rounds=5]
//   [--timeout=60s]
import { execFile, execFileSync } from "node:child_process";
import { createWriteStream, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream } from "node:stream/web";
import { parseArgs, promisify } from "node:util";
import { dockerfileNodeMajor, nodeBinary } from "../test-matrix.mjs";
import { type Daemon, logProblems, scrape, startDaemon, startProber, waitReady } from "./daemon.js";
import type { ExpositionTally } from "./exposition-tally.js";
import { median } from "./median.js";
import { processCpuMs, processMemoryMB, startUpstream, threadCpuSampler } from "./processes.js";
import { type ScrapeLoad, scrapeLoad } from "./scrape-load.js";

export interface WholePollRow {
  targets: number;
  /** How the answer came over the wire: plain is `compression: auto` (the default) on loopback. */
  wire: "plain" | "gzip";
  periodS: number;
  answerBytes: number;
  /** Medians over the measured cycles (the ratio: of each cycle's poll CPU over its baseline). */
  jsonParseCpuMs: number;
  pollCpuMs: number;
  ratio: number;
  /** Each measured cycle's poll CPU (the idle twin's subtracted) and JSON.parse baseline, ms. */
  cyclePollCpuMs: number[];
  cycleJsonParseCpuMs: number[];
  /** Poll CPU per thread name (the idle twin's subtracted), ms per poll. */
  threads: Record<string, number>;
  /** MB = 10^6 bytes. */
  peakRssMB: number;
  /** VmRSS two seconds before a poll, the larger of the measured cycles'. */
  betweenPollsRssMB: number;
  /** The idle twin's VmRSS at the same moments. */
  idleRssMB: number;
  idlePeakRssMB: number;
  /** nodejs_eventloop_lag_max_seconds over the measured cycles, the daemon's and the idle twin's (ms). */
  loopMaxMs: number;
  idleLoopMaxMs: number;
  /** Worst /-/healthy latency while the daemon polled, and the idle twin's in the same windows (ms). */
  healthyPollMaxMs: number;
  idleHealthyPollMaxMs: number;
  /** The same over the whole measured cycles. */
  healthyMaxMs: number;
  idleHealthyMaxMs: number;
  healthyProbes: number;
  /** promstatus_poll_duration_seconds of each measured poll. */
  pollSeconds: number[];
  /** SERVED_FAMILY series in the last cycle's scrape: the targets served. */
  series: number;
  /** Size of that exposition, plain text. */
  expositionBytes: number;
  /** Every measured poll succeeded and the last served every target. */
  ok: boolean;
  /** Why not: what happened, and the daemon's own log lines. */
  failure?: string;
}

const { values } = parseArgs({
  options: {
    targets: { type: "string", default: "20000,100000,500000" },
    // Where the 100k goals are checked: the gzip answer and the scrape load are measured at this size.
    "goal-targets": { type: "string", default: "100000" },
    // GET /metrics under load: each server's share of a round, and the rounds.
    "scrape-seconds": { type: "string", default: "2" },
    "scrape-rounds": { type: "string", default: "5" },
    // The config's poll timeout: a real Prometheus takes seconds to answer 500k targets.
    timeout: { type: "string", default: "60s" },
    // Extra daemon flags, for experiments only (the goals are for the defaults).
    "daemon-arg": { type: "string", multiple: true, default: [] },
  },
});
/** Poll cycles after the first poll that are not measured, then those that are. */
const WARMUP_CYCLES = 3;
// Seven: on a shared 2-vCPU machine one cycle's ratio strays far now and then (1.46x to 4.23x in one run of
// five, the code the same); the median of seven holds against three strays on one side, five's against two.
const CYCLES = 7;
const READY_TIMEOUT_MS = 240_000;

/** 15 s between polls, 30 s (the default schedule) where a poll takes seconds. */
const periodFor = (targets: number) => (targets > 200_000 ? 30 : 15);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Seconds past the start of the current period. */
const phaseS = (periodS: number) => (Date.now() % (periodS * 1000)) / 1000;
/** Sleeps until `offsetS` seconds past a multiple of the period (the cron schedule's phase). */
async function untilPhase(periodS: number, offsetS: number): Promise<void> {
  const now = Date.now();
  const period = periodS * 1000;
  let next = Math.floor(now / period) * period + offsetS * 1000;
  if (next <= now) next += period;
  await sleep(next - now);
}

/** CPU a process may spend in a quarter second and still count as idle (a 10 ms timer, a probe). */
const IDLE_CPU_MS = 25;
/** Returns once `pid` spends under IDLE_CPU_MS of CPU in a quarter second, or at half the period. */
async function untilIdle(pid: number, periodS: number): Promise<void> {
  while (phaseS(periodS) < periodS / 2) {
    const before = processCpuMs(pid);
    await sleep(250);
    if (processCpuMs(pid) - before < IDLE_CPU_MS) return;
  }
}

const progress = (text: string) => process.stderr.write(`whole-poll: ${text}\n`);

/** The upstream's next plain answer, saved to `file` for the baseline: its bytes. */
async function saveAnswer(url: string, file: string): Promise<number> {
  // identity: the upstream prepares its next round in the encoding last asked for (plain).
  const res = await fetch(`${url}/api/v1/targets`, { headers: { "accept-encoding": "identity" } });
  if (!res.ok || !res.body) throw new Error(`the upstream answered ${res.status}`);
  await pipeline(Readable.fromWeb(res.body as ReadableStream<Uint8Array>), createWriteStream(file));
  return statSync(file).size;
}

/** CPU of a bare JSON.parse of the answer in `file`, in a process of its own: the median of five runs (three above 200 MB). */
async function jsonParseCpuMs(node: string, file: string): Promise<number> {
  const code = `const t=require("node:fs").readFileSync(${JSON.stringify(file)},"utf8");
const n=Buffer.byteLength(t)>2e8?3:5;const ms=[];
for(let i=0;i<n;i++){const c=process.cpuUsage();JSON.parse(t);const d=process.cpuUsage(c);ms.push((d.user+d.system)/1000);}
ms.sort((a,b)=>a-b);console.log(ms[Math.floor(n/2)]);`;
  // Room for the parsed 500k-target answer (the daemon's own flags are untouched).
  const { stdout } = await promisify(execFile)(node, ["--max-old-space-size=8192", "-e", code], { encoding: "utf8" });
  return Number(stdout.trim());
}

const failureOf = (what: string, daemon: Daemon) => {
  const said = logProblems(daemon.log);
  const exit = daemon.exit && !what.includes(daemon.exit) ? ` The daemon ${daemon.exit}.` : "";
  return `${what}.${exit}${said.length ? ` Its log: ${said.map((l) => `"${l}"`).join("; ")}` : ""}`;
};

interface Cycle {
  pollAt: number;
  scrapedAt: number;
  up: number;
  lastSuccessS: number;
  pollS: number;
  series: number;
  bytes: number;
  loopMaxMs: number;
  idleLoopMaxMs: number;
}

/** The family a target is served by: every target has an interval, only a scraped one an up. */
const SERVED_FAMILY = "promstatus_target_scrape_interval_seconds";

const facts = (t: ExpositionTally) => {
  const targets = { source: "s", endpoint: "targets" };
  return {
    up: t.value("promstatus_up", targets),
    lastSuccessS: t.value("promstatus_last_success_timestamp_seconds", targets),
    pollS: t.value("promstatus_poll_duration_seconds", targets),
    series: t.series.get(SERVED_FAMILY) ?? 0,
    bytes: t.bytes,
    loopMaxMs: t.value("nodejs_eventloop_lag_max_seconds") * 1000,
  };
};

const worst = (xs: number[]) => (xs.length ? Math.max(...xs) : Number.NaN);
const round = (x: number, digits = 1) => (Number.isFinite(x) ? +x.toFixed(digits) : x);

async function measure(
  node: string,
  targets: number,
  url: string,
  emptyUrl: string,
  wire: "plain" | "gzip",
  answerFile: string,
  upstreamPid: number | undefined,
): Promise<WholePollRow> {
  const periodS = periodFor(targets);
  const row: WholePollRow = {
    targets,
    wire,
    periodS,
    answerBytes: Number.NaN,
    jsonParseCpuMs: Number.NaN,
    pollCpuMs: Number.NaN,
    ratio: Number.NaN,
    cyclePollCpuMs: [],
    cycleJsonParseCpuMs: [],
    threads: {},
    peakRssMB: Number.NaN,
    betweenPollsRssMB: Number.NaN,
    idleRssMB: Number.NaN,
    idlePeakRssMB: Number.NaN,
    loopMaxMs: Number.NaN,
    idleLoopMaxMs: Number.NaN,
    healthyPollMaxMs: Number.NaN,
    idleHealthyPollMaxMs: Number.NaN,
    healthyMaxMs: Number.NaN,
    idleHealthyMaxMs: Number.NaN,
    healthyProbes: 0,
    pollSeconds: [],
    series: 0,
    expositionBytes: Number.NaN,
    ok: false,
  };
  const dir = mkdtempSync(join(tmpdir(), "promstatus-whole-"));
  const common = {
    node,
    dir,
    schedule: `*/${periodS} * * * * *`,
    timeout: values.timeout,
    compression: wire === "gzip" ? "gzip" : undefined,
    flags: values["daemon-arg"],
  };
  const subject = await startDaemon({ ...common, name: "subject", url });
  const twin = await startDaemon({ ...common, name: "twin", url: emptyUrl });
  let prober: ReturnType<typeof startProber> | undefined;
  /** Reads the peak while the daemon is there, so that a daemon that dies later still has one. */
  const peak = () => {
    try {
      row.peakRssMB = processMemoryMB(subject.pid, "VmHWM");
    } catch {
      // gone
    }
  };
  try {
    progress(`${targets} targets, ${wire}: waiting for the first poll ...`);
    await Promise.all([waitReady(subject, READY_TIMEOUT_MS), waitReady(twin, READY_TIMEOUT_MS)]);
    peak();
    // Cycles as measured, not counted: V8 is still compiling and deoptimising the poll's code over the
    // first few polls after the first (a poll of known targets takes paths the first one never did);
    // measured on Node 24 at 100k targets, polls 2-4 cost 15-45% more CPU than every poll after them.
    // A scrape in each: the scrape path warmed, the event-loop histograms reset.
    progress(`${targets} targets, ${wire}: ${WARMUP_CYCLES} cycles to warm up ...`);
    for (let i = 0; i < WARMUP_CYCLES; i++) {
      await untilPhase(periodS, periodS - 3);
      await Promise.all([scrape(subject.address), scrape(twin.address)]);
    }
    await untilPhase(periodS, periodS - 2);
    prober = startProber([subject.address, twin.address]);
    await prober.started;
    progress(`${targets} targets, ${wire}: ${CYCLES} cycles of ${periodS} s ...`);
    const samplers = [threadCpuSampler(subject.pid), threadCpuSampler(twin.pid)];
    let before = [processCpuMs(subject.pid), processCpuMs(twin.pid)] as const;
    const cycles: Cycle[] = [];
    const between: number[] = [];
    const idle: number[] = [];
    for (let i = 0; i < CYCLES; i++) {
      // Once the poll is done, the daemons idle: the baseline. At 500k targets a poll takes 3-5 s and
      // three JSON.parse runs of its 391 MB answer 10-15 s, which half a period did not always leave.
      await untilPhase(periodS, 1);
      // The upstream too: it prepares its next round once an answer is sent.
      await untilIdle(subject.pid, periodS);
      if (upstreamPid !== undefined) await untilIdle(upstreamPid, periodS);
      const baselineFrom = Math.floor(Date.now() / (periodS * 1000));
      row.cycleJsonParseCpuMs.push(round(await jsonParseCpuMs(node, answerFile)));
      if (Math.floor(Date.now() / (periodS * 1000)) !== baselineFrom || phaseS(periodS) > periodS - 3)
        throw new Error("the JSON.parse baseline took too long to fit between a poll and the next scrape");
      await untilPhase(periodS, periodS - 3); // the poll at the start of this cycle is done by now
      const scrapedAt = Date.now();
      const pollAt = Math.floor(scrapedAt / (periodS * 1000)) * periodS * 1000;
      const [s, t] = await Promise.all([scrape(subject.address), scrape(twin.address)]);
      cycles.push({ pollAt, scrapedAt, ...facts(s), idleLoopMaxMs: facts(t).loopMaxMs });
      peak();
      await untilPhase(periodS, periodS - 2);
      between.push(processMemoryMB(subject.pid, "VmRSS"));
      idle.push(processMemoryMB(twin.pid, "VmRSS"));
      const after = [processCpuMs(subject.pid), processCpuMs(twin.pid)] as const;
      row.cyclePollCpuMs.push(round(after[0] - before[0] - (after[1] - before[1])));
      before = after;
    }
    const [subjectThreads, twinThreads] = samplers.map((s) => s.stop()) as [Map<string, number>, Map<string, number>];
    const samples = await prober.stop();
    prober = undefined;
    peak();
    row.idlePeakRssMB = processMemoryMB(twin.pid, "VmHWM");

    for (const [name, ms] of subjectThreads) {
      const perPoll = Math.round((ms - (twinThreads.get(name) ?? 0)) / CYCLES);
      if (perPoll > 0) row.threads[name] = perPoll;
    }
    row.pollCpuMs = median(row.cyclePollCpuMs);
    row.jsonParseCpuMs = median(row.cycleJsonParseCpuMs);
    row.ratio = round(median(row.cyclePollCpuMs.map((ms, i) => ms / (row.cycleJsonParseCpuMs[i] as number))), 3);
    row.betweenPollsRssMB = Math.max(...between);
    row.idleRssMB = Math.max(...idle);
    row.loopMaxMs = round(worst(cycles.map((c) => c.loopMaxMs)));
    row.idleLoopMaxMs = round(worst(cycles.map((c) => c.idleLoopMaxMs)));
    row.pollSeconds = cycles.map((c) => round(c.pollS, 2));
    const last = cycles[cycles.length - 1] as Cycle;
    row.series = last.series;
    row.expositionBytes = last.bytes;

    // /-/healthy: a poll lasts from its cron tick for its poll duration (up to the scrape if unknown).
    const latency = ([, ms]: [number, number]) => (ms < 0 ? Number.POSITIVE_INFINITY : ms);
    const mine = samples[subject.address] ?? [];
    const theirs = samples[twin.address] ?? [];
    const inPoll = ([at]: [number, number]) =>
      cycles.some((c) => {
        const until = Number.isFinite(c.pollS) && c.up === 1 ? c.pollAt + c.pollS * 1000 + 250 : c.scrapedAt;
        return at >= c.pollAt - 100 && at <= Math.min(until, c.scrapedAt);
      });
    const during = mine.filter(inPoll);
    row.healthyProbes = during.length;
    row.healthyPollMaxMs = round(worst(during.map(latency)));
    row.idleHealthyPollMaxMs = round(worst(theirs.filter(inPoll).map(latency)));
    row.healthyMaxMs = round(worst(mine.map(latency)));
    row.idleHealthyMaxMs = round(worst(theirs.map(latency)));

    const failedPolls = cycles.filter((c) => !(c.up === 1 && c.lastSuccessS * 1000 >= c.pollAt - 1000));
    if (failedPolls.length > 0) {
      row.failure = failureOf(`${failedPolls.length} of ${CYCLES} measured polls did not succeed`, subject);
    } else if (row.series !== targets) {
      row.failure = failureOf(`served ${row.series} ${SERVED_FAMILY} series for ${targets} targets`, subject);
    } else if (!Number.isFinite(row.healthyPollMaxMs)) {
      row.failure = failureOf("/-/healthy did not answer during a poll", subject);
    }
    row.ok = row.failure === undefined;
  } catch (err) {
    peak();
    row.failure = failureOf(err instanceof Error ? err.message : String(err), subject);
  } finally {
    prober?.kill();
    subject.stop();
    twin.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  if (row.failure) progress(`${targets} targets, ${wire}: ${row.failure}`);
  return row;
}

/** The daemon polled once at start and never again (a yearly schedule), scraped by 8 clients. */
async function measureScrapes(node: string, targets: number, url: string): Promise<ScrapeLoad | { failure: string }> {
  const dir = mkdtempSync(join(tmpdir(), "promstatus-scrape-"));
  const daemon = await startDaemon({
    node,
    dir,
    name: "scraped",
    url,
    schedule: "0 0 1 1 *",
    timeout: values.timeout,
    flags: values["daemon-arg"],
  });
  try {
    progress(`${targets} targets: GET /metrics under load ...`);
    await waitReady(daemon, READY_TIMEOUT_MS);
    const served = (await scrape(daemon.address)).series.get(SERVED_FAMILY) ?? 0;
    if (served !== targets)
      return { failure: failureOf(`served ${served} ${SERVED_FAMILY} series for ${targets} targets`, daemon) };
    return await scrapeLoad({
      node,
      dir,
      address: daemon.address,
      targets,
      seconds: Number(values["scrape-seconds"]),
      rounds: Number(values["scrape-rounds"]),
    });
  } catch (err) {
    return { failure: failureOf(err instanceof Error ? err.message : String(err), daemon) };
  } finally {
    daemon.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main() {
  const node = nodeBinary(dockerfileNodeMajor());
  const sizes = values.targets.split(",").map(Number);
  const goal = Number(values["goal-targets"]);
  const rows: WholePollRow[] = [];
  let scrapes: ScrapeLoad | { failure: string } | undefined;
  const empty = await startUpstream(0);
  try {
    for (const targets of sizes) {
      progress(`${targets} targets: starting the upstream ...`);
      const upstream = await startUpstream(targets).catch((err: unknown) => {
        progress(`${targets} targets: the upstream did not start (${String(err)})`);
        return undefined;
      });
      if (!upstream) continue;
      const answerDir = mkdtempSync(join(tmpdir(), "promstatus-answer-"));
      try {
        // One answer of the upstream's, for the JSON.parse baseline measured in every cycle.
        const answerFile = join(answerDir, "targets.json");
        const answerBytes = await saveAnswer(upstream.url, answerFile);
        const mine = [await measure(node, targets, upstream.url, empty.url, "plain", answerFile, upstream.child.pid)];
        if (targets === goal) {
          mine.push(await measure(node, targets, upstream.url, empty.url, "gzip", answerFile, upstream.child.pid));
          scrapes = await measureScrapes(node, targets, upstream.url);
        }
        for (const r of mine) r.answerBytes = answerBytes;
        rows.push(...mine);
      } finally {
        rmSync(answerDir, { recursive: true, force: true });
        upstream.child.kill();
      }
    }
  } finally {
    empty.child.kill();
  }
  const version = execFileSync(node, ["--version"], { encoding: "utf8" }).trim();
  // NaN (not measured) goes out as null; run.ts reads it back as NaN.
  process.stdout.write(
    `${JSON.stringify({ node: version, goalTargets: goal, warmupCycles: WARMUP_CYCLES, cycles: CYCLES, rows, scrapes })}\n`,
  );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
