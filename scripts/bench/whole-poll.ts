// What a poll costs the user: the CPU of the whole built daemon (dist/main.js on the image's Node.js,
// every thread: fetch, decompress, worker, parse, validate, convert, render, assemble, gzip of the
// exposition for a scrape), read from /proc/<pid>/stat over whole poll cycles, minus an idle twin
// (the same daemon polling an empty answer on the same schedule and scraped alike). Baseline: the CPU
// of a bare JSON.parse of the same bytes on the same Node.js, in the same run. Peak RSS is the
// daemon's VmHWM. Prints one JSON line. Usage: node --import tsx scripts/bench/whole-poll.ts [--targets=N]
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { dockerfileEnv, dockerfileNodeMajor, nodeBinary } from "../test-matrix.mjs";
import { freePort, processCpuMs, processMemoryMiB, startUpstream, threadCpuSampler } from "./processes.js";

export interface WholePollRow {
  targets: number;
  compression: "gzip" | "none";
  answerBytes: number;
  jsonParseCpuMs: number;
  pollCpuMs: number;
  ratio: number;
  peakRssMiB: number;
  idleRssMiB: number;
  /** RSS of the daemon two seconds before a poll: what it holds between polls. */
  betweenPollsRssMiB: number;
  /** Poll CPU per thread name (the idle twin's subtracted), ms per poll. */
  threads: Record<string, number>;
}

const { values } = parseArgs({
  options: {
    targets: { type: "string", default: "100000" },
    compression: { type: "string", default: "gzip,none" },
    // Extra daemon flags, for experiments (e.g. --daemon-arg=--decoder.memory-limit=1GiB).
    "daemon-arg": { type: "string", multiple: true, default: [] },
  },
});
const PERIOD_S = 15;
const CYCLES = 2;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Sleeps until `offset` seconds past a multiple of the poll period (the cron schedule's phase). */
async function untilPhase(offsetS: number): Promise<void> {
  const now = Date.now();
  const period = PERIOD_S * 1000;
  let next = Math.floor(now / period) * period + offsetS * 1000;
  if (next <= now) next += period;
  await sleep(next - now);
}

async function startDaemon(node: string, dir: string, name: string, url: string, compression: string) {
  const config = join(dir, `${name}.yml`);
  writeFileSync(
    config,
    `global: {schedule: "*/${PERIOD_S} * * * * *", timeout: 60s}\nsources:\n  - {name: s, kind: prometheus, url: "${url}", tsdb: {enabled: false}, compression: ${compression}}\n`,
  );
  const address = `127.0.0.1:${await freePort()}`;
  const args = ["dist/main.js", `--config.file=${config}`, `--web.listen-address=${address}`, ...values["daemon-arg"]];
  const child = spawn(node, args, {
    stdio: "ignore",
    env: { ...process.env, ...dockerfileEnv() }, // as the image runs it
  });
  return { child, address, pid: child.pid as number };
}

/** A gzip scrape, as Prometheus makes: the exposition is gzipped once per change. */
const scrape = (address: string) =>
  fetch(`http://${address}/metrics`, { headers: { "accept-encoding": "gzip" } }).then((r) => r.arrayBuffer());

async function jsonParseCpuMs(node: string, url: string): Promise<{ ms: number; bytes: number }> {
  const code = `const t=await (await fetch(${JSON.stringify(`${url}/api/v1/targets`)})).text();const ms=[];
for(let i=0;i<5;i++){const c=process.cpuUsage();JSON.parse(t);const d=process.cpuUsage(c);ms.push((d.user+d.system)/1000);}
ms.sort((a,b)=>a-b);console.log(JSON.stringify({ms:ms[2],bytes:Buffer.byteLength(t)}));`;
  const out = execFileSync(node, ["--input-type=module", "-e", code], { encoding: "utf8" });
  return JSON.parse(out) as { ms: number; bytes: number };
}

async function measure(node: string, targets: number, compression: "gzip" | "none"): Promise<WholePollRow> {
  const dir = mkdtempSync(join(tmpdir(), "promstatus-whole-"));
  const [full, empty] = await Promise.all([startUpstream(targets), startUpstream(0)]);
  const subject = await startDaemon(node, dir, "subject", full.url, compression);
  const twin = await startDaemon(node, dir, "twin", empty.url, compression);
  try {
    // Warm-up: one cycle (first allocations, code compiled).
    for (let i = 0; i < 1; i++) {
      await untilPhase(PERIOD_S - 3);
      await Promise.all([scrape(subject.address), scrape(twin.address)]);
    }
    await untilPhase(PERIOD_S - 2);
    const samplers = [threadCpuSampler(subject.pid), threadCpuSampler(twin.pid)];
    const start = [processCpuMs(subject.pid), processCpuMs(twin.pid)];
    for (let i = 0; i < CYCLES; i++) {
      await untilPhase(PERIOD_S - 3); // the poll at the start of this cycle is done by now
      await Promise.all([scrape(subject.address), scrape(twin.address)]);
    }
    await untilPhase(PERIOD_S - 2);
    const end = [processCpuMs(subject.pid), processCpuMs(twin.pid)];
    const [subjectThreads, twinThreads] = samplers.map((s) => s.stop()) as [Map<string, number>, Map<string, number>];
    const threads: Record<string, number> = {};
    for (const [name, ms] of subjectThreads) {
      const perPoll = Math.round((ms - (twinThreads.get(name) ?? 0)) / CYCLES);
      if (perPoll > 0) threads[name] = perPoll;
    }
    const pollCpuMs =
      ((end[0] as number) - (start[0] as number) - ((end[1] as number) - (start[1] as number))) / CYCLES;
    const peakRssMiB = processMemoryMiB(subject.pid, "VmHWM");
    const idleRssMiB = processMemoryMiB(twin.pid, "VmRSS");
    const betweenPollsRssMiB = processMemoryMiB(subject.pid, "VmRSS");
    // The baseline with the daemons gone, so that nothing else runs while it is measured.
    subject.child.kill("SIGKILL");
    twin.child.kill("SIGKILL");
    const parse = await jsonParseCpuMs(node, full.url);
    return {
      targets,
      compression,
      answerBytes: parse.bytes,
      jsonParseCpuMs: parse.ms,
      pollCpuMs,
      ratio: pollCpuMs / parse.ms,
      peakRssMiB,
      idleRssMiB,
      betweenPollsRssMiB,
      threads,
    };
  } finally {
    subject.child.kill("SIGKILL");
    twin.child.kill("SIGKILL");
    full.child.kill();
    empty.child.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main() {
  const node = nodeBinary(dockerfileNodeMajor());
  const targets = Number(values.targets);
  const rows: WholePollRow[] = [];
  for (const compression of values.compression.split(",") as ("gzip" | "none")[]) {
    process.stderr.write(`whole-poll: ${targets} targets, compression ${compression} ...\n`);
    rows.push(await measure(node, targets, compression));
  }
  const version = execFileSync(node, ["--version"], { encoding: "utf8" }).trim();
  process.stdout.write(`${JSON.stringify({ node: version, rows })}\n`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
