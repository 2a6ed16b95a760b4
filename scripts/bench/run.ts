// npm run bench: every size in its own process, then a results table in docs/benchmark.md.
// Usage: npm run bench [-- --sizes=1000,10000,50000,100000 --seconds=5]
import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { parseArgs, promisify } from "node:util";
import { dockerfileEnv, dockerfileNodeMajor, nodeBinary } from "../test-matrix.mjs";
import { goalsTable, wireName } from "./goals.js";
import type { GroupsRow } from "./groups.js";
import type { SizingRow } from "./sizing.js";
import type { StageRow } from "./stages.js";
import type { WatchedServerRow } from "./watched-server.js";
import type { WholePollRow } from "./whole-poll.js";

const { values } = parseArgs({
  options: {
    sizes: { type: "string", default: "1000,10000,50000,100000" },
    seconds: { type: "string", default: "10" },
    out: { type: "string", default: "docs/benchmark.md" },
  },
});
const run = promisify(execFile);

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

const mb = (n: number) => (n / 1e6).toFixed(1);

/** Runs one of the bench scripts in a process of its own; its result is the last line it prints (JSON). */
async function runScript<T>(
  script: string,
  args: string[] = [],
  nodeFlags: string[] = [],
  node = process.execPath,
): Promise<T> {
  const { stdout } = await run(node, [...nodeFlags, "--import", "tsx", `scripts/bench/${script}`, ...args], {
    maxBuffer: 16 * 2 ** 20,
    env: { ...process.env, ...dockerfileEnv() }, // the image's environment (NODE_ENV)
  });
  return JSON.parse(stdout.trim().split("\n").pop() as string) as T;
}

async function main() {
  const started = Date.now();
  const results: Result[] = [];
  for (const size of values.sizes.split(",").map(Number)) {
    process.stderr.write(`bench: ${size} targets ...\n`);
    results.push(
      await runScript<Result>("size.ts", [`--targets=${size}`, `--seconds=${values.seconds}`], ["--expose-gc"]),
    );
  }
  process.stderr.write("bench: sizing the daemon on the image's Node.js ...\n");
  const sizing = await runScript<{ node: string; rows: SizingRow[] }>("sizing.ts");
  process.stderr.write("bench: replica group comparison ...\n");
  const groups = await runScript<GroupsRow[]>("groups.ts", [], ["--expose-gc"]);
  process.stderr.write("bench: whole-process CPU per poll of the built daemon ...\n");
  const whole = await runScript<{ node: string; rows: WholePollRow[] }>("whole-poll.ts");
  process.stderr.write("bench: the stages of a poll, fast and reference paths ...\n");
  const stages = await runScript<{ node: string; targets: number; answerBytes: number; rows: StageRow[] }>(
    "stages.ts",
    [],
    [],
    nodeBinary(dockerfileNodeMajor()),
  );
  const stage = (name: string) => stages.rows.find((r) => r.stage === name)?.cpuMs ?? Number.NaN;
  const parseMs = stage("JSON.parse (the baseline)");
  process.stderr.write("bench: CPU the watched Prometheus spends per poll ...\n");
  const watched = await runScript<{ prometheus: string; rows: WatchedServerRow[] }>("watched-server.ts");
  const baseline = sizing.rows.find((r) => r.targets === 0)?.peakRssMiB ?? Number.NaN;
  const cpu = cpus()[0]?.model ?? "unknown CPU";
  const lines = [
    "# Benchmark results",
    "",
    `Measured ${new Date().toISOString().slice(0, 10)} by \`npm run bench\` on ${cpus().length} × ${cpu}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB,`,
    `Node ${process.version}, in ${((Date.now() - started) / 1000).toFixed(0)} s. Every figure is compared with a baseline measured in the same process`,
    "and run; ratios are exporter ÷ baseline (lower is better, except throughput).",
    "",
    "The exporter polls a generated upstream, a process of its own at the lowest CPU priority",
    "(`scripts/bench/upstream.ts`). It answers `/api/v1/targets` as a real Prometheus does from one poll to the",
    "next: every request a new round, with scrape times one interval later and new scrape durations, pools",
    "sorted and each pool's targets in a new order, labels, pools and URLs the same bytes; gzip when asked,",
    "chunked. A round is prepared once the answer before it is sent, so a poll does not wait for it. Its tsdb",
    "answer (limit 10,000) is one fixed answer. The stages and replica tables read one such answer in-process.",
    "",
    "## The goals of issue 12, in this run",
    "",
    "At the whole-poll's target count; README.md (Performance) says what stands behind the misses.",
    "",
    ...goalsTable({
      whole: whole.rows,
      stages: stages.rows,
      scrapes: results.flatMap((r) =>
        (["plain", "gzip"] as const).map((encoding) => ({
          targets: r.targets,
          encoding,
          bareP50: r.scrape[encoding].bare.p50,
          exporterP50: r.scrape[encoding].exporter.p50,
          ratio: r.scrape[encoding].p50Ratio,
        })),
      ),
      loopMaxMs: results.flatMap((r) => [r.ingest.loopMaxMs, r.scrape.loopMaxMs]),
      expositionBytes: results.find((r) => r.targets === whole.rows[0]?.targets)?.scrape.bodyBytes.plain ?? Number.NaN,
      watched: watched.rows,
    }),
    "",
    "## What a poll costs: the whole daemon, per poll cycle",
    "",
    `\`dist/main.js\` on Node ${whole.node} (the image's), polling a targets answer every 15 s and scraped (gzip) once per`,
    "cycle. Poll CPU is utime + stime of the whole process from `/proc/<pid>/stat` over two cycles, minus an idle",
    "twin daemon polling an empty answer on the same schedule; it includes fetch, decompression, the decoder",
    "thread, parse, validation, conversion, rendering, assembly and the exposition's gzip for the scrape.",
    "Baseline: a bare `JSON.parse` of the same bytes on the same Node.js (median of five). Peak RSS is VmHWM;",
    "RSS between polls is VmRSS two seconds before a poll. The daemons run with the image's environment.",
    "Goals (issue 12): ratio ≤ 2.0x, peak RSS ≤ 250 MB at 100k targets, RSS between polls near the idle twin's.",
    "",
    "| targets | wire | answer MB | JSON.parse CPU ms | poll CPU ms | ratio | peak RSS MiB | RSS between polls MiB | idle twin RSS MiB |",
    "|---:|---|---:|---:|---:|---:|---:|---:|---:|",
    ...whole.rows.map(
      (r) =>
        `| ${r.targets} | ${wireName(r)} | ${mb(r.answerBytes)} | ${r.jsonParseCpuMs.toFixed(0)} | ${r.pollCpuMs.toFixed(0)} | **${r.ratio.toFixed(2)}x** | ${r.peakRssMiB} | ${r.betweenPollsRssMiB} | ${r.idleRssMiB} |`,
    ),
    "",
    "The same poll CPU by thread (ms per poll; Node's and V8's thread names): MainThread (fetch, assembly,",
    "serving), WorkerThread (the decoder: its start, scan, summary, rendering), V8Worker (garbage collection",
    "and compilation helpers of both), libuv-worker (the thread pool: gunzip is in the decoder, the",
    "exposition's gzip here).",
    "",
    "| targets | wire | MainThread | WorkerThread | V8Worker | libuv-worker | other |",
    "|---:|---|---:|---:|---:|---:|---:|",
    ...whole.rows.map((r) => {
      const named = ["MainThread", "WorkerThread", "V8Worker", "libuv-worker"];
      const other = Object.entries(r.threads)
        .filter(([name]) => !named.includes(name))
        .reduce((n, [, ms]) => n + ms, 0);
      const cells = named.map((name) => r.threads[name] ?? 0);
      return `| ${r.targets} | ${wireName(r)} | ${cells.join(" | ")} | ${other} |`;
    }),
    "",
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
    ...stages.rows.map((r) => `| ${r.stage} | ${r.path} | ${r.cpuMs} | ${(r.cpuMs / parseMs).toFixed(2)}x |`),
    "",
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
    "## Ingest in one process: the stages (gzip on the wire)",
    "",
    "A warm decoder in the benchmark's own process: CPU of all threads for fetch, decompress, parse, validate,",
    "convert, render and publish, against a bare `JSON.parse` of the same (decompressed) bytes. The",
    "once-per-change gzip of the exposition is listed separately. Event-loop delay is the worst seen on the",
    "main thread during the polls. What users pay is the table above.",
    "",
    "| targets | answer MB | JSON.parse ms | poll CPU ms | ratio | poll wall ms | exposition gzip CPU ms | max event-loop delay ms |",
    "|---:|---:|---:|---:|---:|---:|---:|---:|",
    ...results.map(
      (r) =>
        `| ${r.targets} | ${mb(r.answerBytes)} | ${r.ingest.jsonParseCpuMs} | ${r.ingest.cpuMs} | **${r.ingest.ratio}x** | ${r.ingest.wallMs} | ${r.ingest.gzipCpuMs} | ${r.ingest.loopMaxMs} |`,
    ),
    "",
    "tsdb with limit 10,000 (1.7 MB answer):",
    "",
    "| run with targets | JSON.parse ms | poll CPU ms | ratio | max event-loop delay ms |",
    "|---:|---:|---:|---:|---:|",
    ...results.map(
      (r) => `| ${r.targets} | ${r.tsdb.jsonParseCpuMs} | ${r.tsdb.cpuMs} | ${r.tsdb.ratio}x | ${r.tsdb.loopMaxMs} |`,
    ),
    "",
    "## Scrape: GET /metrics with 8 concurrent clients (autocannon)",
    "",
    "Against a bare `node:http` server answering with the identical bytes. Latency in ms.",
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
    "## Memory and event loop",
    "",
    "| targets | RSS after poll MiB | heap after poll MiB | peak RSS MiB | RSS under scrape load MiB | max event-loop delay under scrapes ms |",
    "|---:|---:|---:|---:|---:|---:|",
    ...results.map(
      (r) =>
        `| ${r.targets} | ${r.memory.afterPoll.rssMiB} | ${r.memory.afterPoll.heapMiB} | ${r.memory.peakRssMiB} | ${r.memory.rssUnderLoadMiB} | ${r.scrape.loopMaxMs} |`,
    ),
    "",
    "The exporter's process only: the upstream runs in a process of its own, and the JSON.parse baselines",
    "are measured after these figures are taken. Peak RSS is sampled every 10 ms during polls and scrapes.",
    "",
    "## Sizing: the built daemon on the image's Node.js",
    "",
    `\`dist/main.js\` on Node ${sizing.node} with the default \`--decoder.memory-limit\`, polling targets every 3 s`,
    `(five polls); peak RSS is the kernel's high-water mark of the whole process (VmHWM). Baseline: the same`,
    "daemon polling an empty answer. Sources polled on one schedule decode their answers at the same time.",
    "",
    "| targets per source | sources | peak RSS MiB | ratio to baseline | targets endpoint |",
    "|---:|---:|---:|---:|---|",
    ...sizing.rows.map(
      (r) =>
        `| ${r.targets} | ${r.sources} | ${r.peakRssMiB} | ${(r.peakRssMiB / baseline).toFixed(2)}x | ${r.up.every((u) => u === 1) ? "decoded" : "refused (too_large)"} |`,
    ),
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
  ];
  writeFileSync(values.out, lines.join("\n"));
  process.stdout.write(`${lines.join("\n")}\n`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
