// npm run bench: the built daemon at each size (whole-poll.ts), the stages of a poll at the goal size
// (stages.ts), then docs/benchmark.md with the goals table and the growth chart (an SVG beside it).
// Usage: npm run bench [-- --targets=20000,100000,500000 --goal-targets=100000 --out=docs/benchmark.md]
//   --extras also runs the in-process ingest and scrape tables (size.ts), sizing, replica groups and
//   the watched Prometheus, as earlier runs did (about ten minutes more).
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { basename, dirname } from "node:path";
import { parseArgs } from "node:util";
import { dockerfileEnv, dockerfileNodeMajor, nodeBinary } from "../test-matrix.mjs";
import { goalsTable, growthRows } from "./goals.js";
import type { GroupsRow } from "./groups.js";
import { growthChartSvg, slopePer } from "./growth-chart.js";
import type { ScrapeLoad } from "./scrape-load.js";
import type { SizingRow } from "./sizing.js";
import type { StageRow } from "./stages.js";
import type { WatchedServerRow } from "./watched-server.js";
import type { WholePollRow } from "./whole-poll.js";

const { values } = parseArgs({
  options: {
    targets: { type: "string", default: "20000,100000,500000" },
    "goal-targets": { type: "string", default: "100000" },
    "scrape-seconds": { type: "string", default: "2" },
    "scrape-rounds": { type: "string", default: "5" },
    out: { type: "string", default: "docs/benchmark.md" },
    extras: { type: "boolean", default: false },
    "extras-sizes": { type: "string", default: "1000,10000,50000,100000" },
    seconds: { type: "string", default: "10" },
  },
});

interface Load {
  p50: number;
  p99: number;
  rps: number;
}
interface ScrapeRow {
  bare: Load;
  exporter: Load;
  p50Ratio: number;
  p99Ratio: number;
  rpsRatio: number;
}
/** What size.ts prints (--extras). */
interface Result {
  targets: number;
  answerBytes: number;
  ingest: {
    jsonParseCpuMs: number;
    cpuMs: number;
    wallMs: number;
    gzipCpuMs: number;
    loopMaxMs: number;
    ratio: number;
  };
  tsdb: { jsonParseCpuMs: number; cpuMs: number; ratio: number; loopMaxMs: number };
  memory: {
    afterPoll: { rssMiB: number; heapMiB: number };
    peakRssMiB: number;
    rssUnderLoadMiB: number;
    heapUnderLoadMiB: number;
  };
  scrape: { bodyBytes: { plain: number; gzip: number }; loopMaxMs: number; plain: ScrapeRow; gzip: ScrapeRow };
}
interface WholePoll {
  node: string;
  goalTargets: number;
  /** Poll cycles after the first poll not measured, then those measured. */
  warmupCycles: number;
  cycles: number;
  rows: WholePollRow[];
  scrapes?: ScrapeLoad | { failure: string };
}

const mb = (n: number) => (Number.isFinite(n) ? (n / 1e6).toFixed(1) : "–");
const f = (n: number, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : "–");

/**
 * Runs one of the bench scripts in a process of its own, its progress on our stderr; its result is the
 * last line it prints (JSON, where null stands for a figure it could not measure: read back as NaN).
 */
function runScript<T>(
  script: string,
  args: string[] = [],
  nodeFlags: string[] = [],
  node = process.execPath,
): Promise<T> {
  const child = spawn(node, [...nodeFlags, "--import", "tsx", `scripts/bench/${script}`, ...args], {
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, ...dockerfileEnv() }, // the image's environment (NODE_ENV)
  });
  let out = "";
  child.stdout?.setEncoding("utf8").on("data", (d: string) => {
    out += d;
  });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) => {
      if (code !== 0) return reject(new Error(`${script} exited with ${code}`));
      const last = out.trim().split("\n").pop() as string;
      resolve(JSON.parse(last, (_key, value: unknown) => (value === null ? Number.NaN : value)) as T);
    });
  });
}

async function main() {
  const started = Date.now();
  const goalTargets = Number(values["goal-targets"]);
  process.stderr.write("bench: the built daemon at each size ...\n");
  const whole = await runScript<WholePoll>("whole-poll.ts", [
    `--targets=${values.targets}`,
    `--goal-targets=${goalTargets}`,
    `--scrape-seconds=${values["scrape-seconds"]}`,
    `--scrape-rounds=${values["scrape-rounds"]}`,
  ]);
  process.stderr.write(`bench: the stages of a poll at ${goalTargets} targets ...\n`);
  const stages = await runScript<{ node: string; targets: number; answerBytes: number; rows: StageRow[] }>(
    "stages.ts",
    [`--targets=${goalTargets}`],
    [],
    nodeBinary(dockerfileNodeMajor()),
  );
  const extras = values.extras ? await runExtras() : undefined;

  const date = new Date().toISOString().slice(0, 10);
  const machine = `${cpus().length} × ${cpus()[0]?.model ?? "unknown CPU"}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB`;
  /** Under every table: where, on what and when it was measured. */
  const stamp = (node: string) => `*${machine}; Node ${node}; ${date}.*`;
  const largeTargets = Math.max(...values.targets.split(",").map(Number));
  const growth = growthRows(whole.rows);
  const failedSizes = whole.rows.filter((r) => r.wire === "plain" && !r.ok).map((r) => r.targets);
  const leftOut = failedSizes.length ? ` ${failedSizes.join(", ")} targets left out: the daemon failed there.` : "";
  const slope = (y: (r: WholePollRow) => number) => slopePer(growth.map((r) => ({ x: r.targets, y: y(r) })));
  const signed = (n: number) => (Number.isFinite(n) ? `${n >= 0 ? "+" : ""}${n.toFixed(0)}` : "–");
  const svgPath = `${values.out.replace(/\.md$/, "")}-growth.svg`;
  mkdirSync(dirname(values.out), { recursive: true });
  writeFileSync(
    svgPath,
    growthChartSvg(
      [
        {
          title: "Peak RSS (VmHWM) of the daemon",
          unit: "MB",
          series: [
            {
              name: "peak RSS",
              color: "#1f77b4",
              fit: true,
              values: true,
              points: growth.map((r) => ({ x: r.targets, y: r.peakRssMB })),
            },
            {
              name: "RSS between polls",
              color: "#2ca02c",
              points: growth.map((r) => ({ x: r.targets, y: r.betweenPollsRssMB })),
            },
            {
              name: "idle daemon",
              color: "#7f7f7f",
              dashed: true,
              points: growth.map((r) => ({ x: r.targets, y: r.idleRssMB })),
            },
          ],
        },
        {
          title: "CPU per poll, whole process",
          unit: "ms",
          series: [
            {
              name: "daemon",
              color: "#d62728",
              fit: true,
              values: true,
              points: growth.map((r) => ({ x: r.targets, y: r.pollCpuMs })),
            },
            {
              name: "bare JSON.parse",
              color: "#7f7f7f",
              dashed: true,
              fit: true,
              points: growth.map((r) => ({ x: r.targets, y: r.jsonParseCpuMs })),
            },
          ],
        },
      ],
      `npm run bench, ${date}: dist/main.js on Node ${whole.node}, default flags, plain answers on loopback; ${machine}.${leftOut}`,
    ),
  );

  const lines = [
    "# Benchmark results",
    "",
    `Measured ${date} by \`npm run bench\` on ${machine}, in ${((Date.now() - started) / 1000).toFixed(0)} s: the built daemon`,
    `(\`dist/main.js\`) on the image's Node.js (${whole.node}) and environment, every flag at its default. Each ratio is`,
    "exporter ÷ a baseline measured in the same run (lower is better). MB are 10^6 bytes.",
    "",
    "The daemon polls a generated upstream, a process of its own at the lowest CPU priority",
    "(`scripts/bench/upstream.ts`). It answers `/api/v1/targets` as a real Prometheus does from one poll to the",
    "next: every request a new round, with scrape times one interval later and new scrape durations, pools",
    "sorted and each pool's targets in a new order, labels, pools and URLs the same bytes; gzip when asked,",
    "chunked as Go's net/http sends them (plain in one chunk; gzip in 2048-byte ones leaving 4096 bytes a write,",
    "spread over the time Go's gzip writer takes, so the exporter reads them as it reads a real Prometheus's).",
    "A round is prepared",
    "once the answer before it is sent, so a poll does not wait for it.",
    "",
    "## The goals, in this run",
    "",
    ...goalsTable({
      whole: whole.rows,
      goalTargets,
      largeTargets,
      scrapes: whole.scrapes,
      stages: stages.rows,
    }),
    "",
    stamp(whole.node),
    "",
    "## How the cost grows with the targets",
    "",
    `![Peak RSS and CPU per poll at ${growth.map((r) => r.targets).join(", ")} targets](${basename(svgPath)})`,
    "",
    `Least squares over the ${growth.length} sizes the daemon served (plain answers, the default on loopback): peak RSS`,
    `${signed(slope((r) => r.peakRssMB))} MB, RSS between polls ${signed(slope((r) => r.betweenPollsRssMB))} MB, CPU per poll ${signed(slope((r) => r.pollCpuMs))} ms`,
    `(a bare JSON.parse ${signed(slope((r) => r.jsonParseCpuMs))} ms) per 100k targets.${leftOut}`,
    "",
    "## What a poll costs: the whole daemon, per poll cycle",
    "",
    "`dist/main.js` polling one source on a cron schedule (every 15 s, every 30 s above 200k targets; config:",
    "`timeout: 60s`, tsdb off, nothing else; the command line: the config file and the listen address), scraped",
    "(gzip) once per cycle, 3 s before a poll. Poll CPU is utime + stime of the whole process from",
    `\`/proc/<pid>/stat\` over each of ${whole.cycles} cycles, minus an idle twin daemon polling an empty answer on the same schedule,`,
    "scraped and probed alike; it includes fetch, decompression, the decoder thread, scan, summary, rendering,",
    `assembly and the exposition's gzip for the scrape. The first poll and the ${whole.warmupCycles} after it are not measured: V8`,
    "is still compiling the poll's code then (on Node 24 at 100k targets, polls 2-4 took 15-45% more CPU than",
    "each poll after them). Baseline: a bare `JSON.parse` of the same bytes on the same Node.js (median of",
    "five, three above 200 MB), in a process of its own, measured in every cycle once its poll is done",
    "(the daemons and the upstream idle), so that the machine's slower and faster minutes weigh on poll and baseline alike.",
    "The table gives the medians over the cycles; the ratio is the median of the cycles' own ratios, each",
    "listed after it. Peak RSS is VmHWM of the whole",
    "process since it started (its first poll included); RSS between polls is VmRSS two seconds before a",
    "poll, the largest of the measured cycles', beside the idle twin's at the same moment. Poll s is the daemon's",
    "`promstatus_poll_duration_seconds`; series served the `promstatus_target_scrape_interval_seconds` series of the last",
    "scrape (every target has one; a target not scraped yet, about 3% of the generated ones, has no `promstatus_target_up`).",
    "",
    "| targets | wire | answer MB | JSON.parse CPU ms | poll CPU ms | ratio | peak RSS MB | RSS between polls MB | idle daemon RSS MB | poll s | series served |",
    "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ...whole.rows.map(
      (r) =>
        `| ${r.targets} | ${r.wire} | ${mb(r.answerBytes)} | ${f(r.jsonParseCpuMs)} | ${f(r.pollCpuMs)} | **${f(r.ratio, 2)}x**${r.cyclePollCpuMs.length ? ` (${r.cyclePollCpuMs.map((ms, i) => f(ms / (r.cycleJsonParseCpuMs[i] as number), 2)).join(", ")})` : ""} | ${f(r.peakRssMB)} | ${f(r.betweenPollsRssMB)} | ${f(r.idleRssMB)} | ${r.pollSeconds.map((s) => f(s, 2)).join(", ") || "–"} | ${r.series} |`,
    ),
    "",
    stamp(whole.node),
    "",
    ...(whole.rows.some((r) => r.failure)
      ? [
          "Failures, in the daemon's words:",
          "",
          ...whole.rows.filter((r) => r.failure).map((r) => `- ${r.targets} targets, ${r.wire}: ${r.failure}`),
          "",
        ]
      : []),
    "The same poll CPU by thread (ms per poll, the idle twin's subtracted; Node's and V8's thread names):",
    "MainThread (fetch, assembly, serving), WorkerThread (the decoder: scan, summary, rendering), V8Worker",
    "(garbage collection and compilation helpers of both), libuv-worker (the thread pool: the exposition's gzip).",
    "",
    "| targets | wire | MainThread | WorkerThread | V8Worker | libuv-worker | other |",
    "|---:|---|---:|---:|---:|---:|---:|",
    ...whole.rows.map((r) => {
      const named = ["MainThread", "WorkerThread", "V8Worker", "libuv-worker"];
      const other = Object.entries(r.threads)
        .filter(([name]) => !named.includes(name))
        .reduce((n, [, ms]) => n + ms, 0);
      const cells = named.map((name) => r.threads[name] ?? 0);
      return `| ${r.targets} | ${r.wire} | ${cells.join(" | ")} | ${other} |`;
    }),
    "",
    stamp(whole.node),
    "",
    "## Event loop and liveness during polls",
    "",
    "Event-loop max is the daemon's own `nodejs_eventloop_lag_max_seconds` (prom-client: `monitorEventLoopDelay`",
    "with a 10 ms timer, reset at every collection), read by the one scrape of each cycle, so it covers the",
    "whole cycle: the poll, the publishing and the scrape before. It is the longest gap between two timer",
    "ticks, so an idle daemon reads about 10 ms. `/-/healthy` is asked every 20 ms by a process of its own (a",
    "request is sent on time even when the one before is unanswered); during polls means from the cron tick",
    "to the end of the poll (its `promstatus_poll_duration_seconds`). The idle twin is probed alike: what it",
    "reads is the machine's share (other processes, the probe itself), not the poll's.",
    "",
    "| targets | wire | event-loop max ms | idle daemon ms | /-/healthy worst during polls ms | idle daemon ms | answers during polls | /-/healthy worst over the cycles ms | idle daemon ms |",
    "|---:|---|---:|---:|---:|---:|---:|---:|---:|",
    ...whole.rows.map(
      (r) =>
        `| ${r.targets} | ${r.wire} | ${f(r.loopMaxMs, 1)} | ${f(r.idleLoopMaxMs, 1)} | ${f(r.healthyPollMaxMs, 1)} | ${f(r.idleHealthyPollMaxMs, 1)} | ${r.healthyProbes} | ${f(r.healthyMaxMs, 1)} | ${f(r.idleHealthyMaxMs, 1)} |`,
    ),
    "",
    stamp(whole.node),
    "",
    ...scrapeSection(whole, stamp(whole.node)),
    `## The stages of a poll at ${stages.targets} targets`,
    "",
    `One process on Node ${stages.node}, warm, median of three rounds; CPU of the whole process (garbage collection`,
    "included, charged to the stage that made the garbage). The fast path is what the daemon runs: a scanner",
    "that keeps only the converted fields, a summary per target, lines written straight from it. The reference",
    "path (JSON.parse, the zod schema, one sample object per line, renderSampleSet) decides whatever the",
    `scanner does not handle, and the tests hold the two to the same bytes. Answer: ${mb(stages.answerBytes)} MB of JSON.`,
    "",
    "| stage | path | CPU ms | ÷ JSON.parse |",
    "|---|---|---:|---:|",
    ...stages.rows.map((r) => {
      const parse = stages.rows.find((s) => s.stage === "JSON.parse (the baseline)")?.cpuMs ?? Number.NaN;
      return `| ${r.stage} | ${r.path} | ${r.cpuMs} | ${f(r.cpuMs / parse, 2)}x |`;
    }),
    "",
    stamp(stages.node),
    "",
    ...(extras ? extrasSections(extras, stamp) : []),
  ];
  writeFileSync(values.out, lines.join("\n"));
  process.stdout.write(`${lines.join("\n")}\n`);
  process.stderr.write(
    `bench: wrote ${values.out} and ${svgPath} in ${((Date.now() - started) / 1000).toFixed(0)} s\n`,
  );
}

function scrapeSection(whole: WholePoll, stamp: string): string[] {
  const s = whole.scrapes;
  const head = [`## GET /metrics under load, ${whole.goalTargets} targets`, ""];
  if (s === undefined) return [];
  if ("failure" in s) return [...head, `Not measured: ${s.failure}`, ""];
  return [
    ...head,
    "The daemon polled once at start and not again (a yearly schedule); a bare `node:http` server on the same",
    "Node.js, in a process of its own, answered with the very bytes the daemon served (plain, and its gzip).",
    `One keep-alive client, then 8 at once, plain then gzip, each in ${s.rounds} rounds: in a round the bare server`,
    `and the daemon are loaded ${s.seconds} s each, the one that goes first alternating from round to round, and the`,
    "round's ratio is the daemon's p50 ÷ the bare server's. The ratio is the median of the rounds' (listed after",
    "it), so that a slower or faster few seconds of the machine weigh on both alike; the latencies are of all",
    "rounds' answers together. Latency in ms, from request to the",
    "last byte. The clients (`scripts/bench/scrape-client.ts`, Node's own HTTP client in a process of its own)",
    "drop the bodies as they come, as a scraper's parser would consume them. A client that decodes every body",
    "into a string (autocannon does) spends ~50 ms on a 4.2 MB gzip answer (curl, reading it undecoded: 2-3 ms),",
    "so its ratios would measure the client.",
    "",
    "| encoding | clients | body MB | bare p50 | daemon p50 | p50 ratio | bare p99 | daemon p99 | bare req/s | daemon req/s |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ...s.rows.map(
      (r) =>
        `| ${r.encoding} | ${r.clients} | ${mb(r.bodyBytes)} | ${r.bare.p50} | ${r.exporter.p50} | **${f(r.p50Ratio, 2)}x** (${r.roundRatios.map((x) => f(x, 2)).join(", ")}) | ${r.bare.p99} | ${r.exporter.p99} | ${f(r.bare.rps, 1)} | ${f(r.exporter.rps, 1)} |`,
    ),
    "",
    `\`/-/healthy\` of the daemon (every 20 ms) through the rounds: worst ${f(s.healthyMaxMs, 1)} ms.`,
    "",
    stamp,
    "",
  ];
}

interface Extras {
  results: Result[];
  sizing: { node: string; rows: SizingRow[] };
  groups: GroupsRow[];
  watched: { prometheus: string; rows: WatchedServerRow[] };
}

async function runExtras(): Promise<Extras> {
  const results: Result[] = [];
  for (const size of values["extras-sizes"].split(",").map(Number)) {
    process.stderr.write(`bench: in-process ingest and scrapes at ${size} targets ...\n`);
    results.push(
      await runScript<Result>("size.ts", [`--targets=${size}`, `--seconds=${values.seconds}`], ["--expose-gc"]),
    );
  }
  process.stderr.write("bench: sizing the daemon on the image's Node.js ...\n");
  const sizing = await runScript<{ node: string; rows: SizingRow[] }>("sizing.ts");
  process.stderr.write("bench: replica group comparison ...\n");
  const groups = await runScript<GroupsRow[]>("groups.ts", [], ["--expose-gc"]);
  process.stderr.write("bench: CPU the watched Prometheus spends per poll ...\n");
  const watched = await runScript<{ prometheus: string; rows: WatchedServerRow[] }>("watched-server.ts");
  return { results, sizing, groups, watched };
}

function extrasSections({ results, sizing, groups, watched }: Extras, stamp: (node: string) => string): string[] {
  const baseline = sizing.rows.find((r) => r.targets === 0)?.peakRssMiB ?? Number.NaN;
  return [
    "## What a poll costs the watched Prometheus",
    "",
    `A real Prometheus ${watched.prometheus} holding ${watched.rows[0]?.targets} targets (file_sd), polled at \`/api/v1/targets\` as the`,
    "exporter polls it: CPU of the Prometheus process per poll from `/proc/<pid>/stat` during five back-to-back",
    "polls, minus its idle CPU over windows of the same length. `compression: auto` (the default) asks for",
    "plain answers on loopback (a sidecar) and gzip across a network.",
    "",
    "| targets | Accept-Encoding | answer MB | Prometheus CPU ms per poll | wall ms per poll |",
    "|---:|---|---:|---:|---:|",
    ...watched.rows.map(
      (r) =>
        `| ${r.targets} | ${r.encoding} | ${mb(r.answerBytes)} | ${r.prometheusCpuMsPerPoll.toFixed(0)} | ${r.wallMsPerPoll.toFixed(0)} |`,
    ),
    "",
    stamp(`${process.version} (the bench's)`),
    "",
    "## Ingest in one process: the stages (gzip on the wire)",
    "",
    "A warm decoder in the benchmark's own process: CPU of all threads for fetch, decompress, parse, validate,",
    "convert, render and publish, against a bare `JSON.parse` of the same (decompressed) bytes. The",
    "once-per-change gzip of the exposition is listed separately. Event-loop delay is the worst seen on the",
    "main thread during the polls.",
    "",
    "| targets | answer MB | JSON.parse ms | poll CPU ms | ratio | poll wall ms | exposition gzip CPU ms | max event-loop delay ms |",
    "|---:|---:|---:|---:|---:|---:|---:|---:|",
    ...results.map(
      (r) =>
        `| ${r.targets} | ${mb(r.answerBytes)} | ${r.ingest.jsonParseCpuMs} | ${r.ingest.cpuMs} | **${r.ingest.ratio}x** | ${r.ingest.wallMs} | ${r.ingest.gzipCpuMs} | ${r.ingest.loopMaxMs} |`,
    ),
    "",
    stamp(`${process.version} (the bench's)`),
    "",
    "tsdb with limit 10,000 (1.7 MB answer):",
    "",
    "| run with targets | JSON.parse ms | poll CPU ms | ratio | max event-loop delay ms |",
    "|---:|---:|---:|---:|---:|",
    ...results.map(
      (r) => `| ${r.targets} | ${r.tsdb.jsonParseCpuMs} | ${r.tsdb.cpuMs} | ${r.tsdb.ratio}x | ${r.tsdb.loopMaxMs} |`,
    ),
    "",
    stamp(`${process.version} (the bench's)`),
    "",
    "## Scrape in one process: GET /metrics with 8 concurrent clients (scrape-client.ts)",
    "",
    "The app in the benchmark's process against a bare `node:http` server answering with the identical bytes. Latency in ms.",
    "",
    "| targets | encoding | body MB | bare p50 | exporter p50 | p50 ratio | bare p99 | exporter p99 | p99 ratio | bare req/s | exporter req/s | req/s ratio |",
    "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ...results.flatMap((r) =>
      (["plain", "gzip"] as const).map((enc) => {
        const s = r.scrape[enc];
        return `| ${r.targets} | ${enc} | ${mb(r.scrape.bodyBytes[enc])} | ${s.bare.p50} | ${s.exporter.p50} | **${s.p50Ratio}x** | ${s.bare.p99} | ${s.exporter.p99} | ${s.p99Ratio}x | ${s.bare.rps} | ${s.exporter.rps} | ${s.rpsRatio}x |`;
      }),
    ),
    "",
    stamp(`${process.version} (the bench's)`),
    "",
    "## Memory and event loop in one process",
    "",
    "| targets | RSS after poll MiB | heap after poll MiB | peak RSS MiB | RSS under scrape load MiB | max event-loop delay under scrapes ms |",
    "|---:|---:|---:|---:|---:|---:|",
    ...results.map(
      (r) =>
        `| ${r.targets} | ${r.memory.afterPoll.rssMiB} | ${r.memory.afterPoll.heapMiB} | ${r.memory.peakRssMiB} | ${r.memory.rssUnderLoadMiB} | ${r.scrape.loopMaxMs} |`,
    ),
    "",
    stamp(`${process.version} (the bench's)`),
    "",
    "## Sizing: the built daemon on the image's Node.js",
    "",
    `\`dist/main.js\` with the default \`--decoder.memory-limit\`, polling targets every 3 s (five polls); peak RSS is`,
    "the kernel's high-water mark of the whole process (VmHWM). Baseline: the same daemon polling an empty answer.",
    "Sources polled on one schedule decode their answers at the same time.",
    "",
    "| targets per source | sources | peak RSS MiB | ratio to baseline | targets endpoint |",
    "|---:|---:|---:|---:|---|",
    ...sizing.rows.map(
      (r) =>
        `| ${r.targets} | ${r.sources} | ${r.peakRssMiB} | ${(r.peakRssMiB / baseline).toFixed(2)}x | ${r.up.every((u) => u === 1) ? "decoded" : "refused (too_large)"} |`,
    ),
    "",
    stamp(sizing.node),
    "",
    "## Replica groups: comparing two Prometheus replicas",
    "",
    "Target identities kept per member (decoder thread) and the comparison of two members, one lacking a",
    "target (event loop: worst of five, the first being cold, and median), against a bare `JSON.parse` of the",
    "same answer.",
    "",
    "| targets | JSON.parse ms | identities ms | ratio | kept bytes | comparison worst ms | ratio | comparison median ms |",
    "|---:|---:|---:|---:|---:|---:|---:|---:|",
    ...groups.map(
      (g) =>
        `| ${g.targets} | ${g.jsonParseMs} | ${g.factsMs} | ${(g.factsMs / g.jsonParseMs).toFixed(2)}x | ${g.factsBytes} | ${g.compareMaxMs} | ${(g.compareMaxMs / g.jsonParseMs).toFixed(2)}x | ${g.compareMedianMs} |`,
    ),
    "",
    stamp(`${process.version} (the bench's)`),
    "",
  ];
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
