// What the published exposition costs the built daemon at one size: its memory over poll cycles (peak,
// between polls, against an idle twin polling an empty answer) and GET /metrics under load, plain and
// gzip, against a bare node:http server answering with the very bytes the daemon served. The daemon
// runs on the image's Node.js and environment, every flag at its default; 8 concurrent clients
// (bench/scrape-client.ts, in a process of its own). Prints one JSON line. A small run, not `npm run bench`:
//   npx tsc -p tsconfig.json --outDir .tmp/build/dist && cp package.json .tmp/build/
//   node --import tsx scripts/exposition-bench.ts --dist=.tmp/build/dist [--targets=100000] [--load=false]
// `--dist` is a build of any commit (its main.js, and package.json one level up), so two can be compared.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, get, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs, promisify } from "node:util";
import { freePort, processCpuMs, processMemoryMiB, startUpstream } from "./bench/processes.js";
import { scrapeLoadInChild } from "./bench/scrape-client.js";
import { dockerfileEnv, dockerfileNodeMajor, nodeBinary } from "./test-matrix.mjs";

const { values } = parseArgs({
  options: {
    dist: { type: "string", default: "dist" },
    targets: { type: "string", default: "100000" },
    seconds: { type: "string", default: "4" },
    period: { type: "string", default: "30" },
    cycles: { type: "string", default: "3" },
    load: { type: "string", default: "true" },
  },
});
const PERIOD_S = Number(values.period);
const SECONDS = Number(values.seconds);
const run = promisify(execFile);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Sleeps until `offset` seconds past a multiple of the poll period (the cron schedule's phase). */
async function untilPhase(offsetS: number): Promise<void> {
  const now = Date.now();
  const period = PERIOD_S * 1000;
  let next = Math.floor(now / period) * period + offsetS * 1000;
  if (next <= now) next += period;
  await sleep(next - now);
}

async function startDaemon(node: string, dir: string, name: string, url: string) {
  const config = join(dir, `${name}.yml`);
  writeFileSync(
    config,
    `global: {schedule: "*/${PERIOD_S} * * * * *", timeout: ${PERIOD_S - 5}s}\nsources:\n  - {name: s, kind: prometheus, url: "${url}", tsdb: {enabled: false}, compression: gzip}\n`,
  );
  const address = `127.0.0.1:${await freePort()}`;
  const main = resolve(values.dist, "main.js");
  const child = spawn(node, [main, `--config.file=${config}`, `--web.listen-address=${address}`], {
    stdio: "ignore",
    env: { ...process.env, ...dockerfileEnv() },
  });
  for (let i = 0; i < 3000; i++) {
    const ready = await fetch(`http://${address}/-/ready`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ready) return { child, address, pid: child.pid as number };
    await sleep(100);
  }
  throw new Error(`${name}: not ready within five minutes`);
}

/** A response's bytes as they came on the wire (fetch would decompress). */
function rawGet(url: string, encoding: string): Promise<{ body: Buffer; headers: IncomingHttpHeaders }> {
  return new Promise((done, fail) => {
    get(url, { headers: { "accept-encoding": encoding } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => done({ body: Buffer.concat(chunks), headers: res.headers }));
      res.on("error", fail);
    }).on("error", fail);
  });
}

interface Load {
  p50: number;
  p99: number;
  rps: number;
  /** CPU of the serving process per answer (ms): steadier than latency on a busy machine. */
  cpuPerRequestMs: number;
}

/** 8 concurrent clients for SECONDS; `cpuMs` reads the serving process's CPU. */
async function load(url: string, gzip: boolean, cpuMs: () => number): Promise<Load> {
  const cpu = cpuMs();
  const out = await scrapeLoadInChild(process.execPath, url, { connections: 8, seconds: SECONDS, gzip });
  const spent = cpuMs() - cpu;
  const cpuPerRequestMs = Math.round(spent / Math.max(1, out.answers));
  return { p50: out.p50, p99: out.p99, rps: out.rps, cpuPerRequestMs };
}

const ownCpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

/** Right after a poll: the daemon's bytes served by a bare server, then both under the same load. */
async function scrapeLoad(subject: { address: string; pid: number }) {
  await untilPhase(4);
  const url = `http://${subject.address}/metrics`;
  const [plain, zipped] = [await rawGet(url, "identity"), await rawGet(url, "gzip")];
  if (zipped.headers["content-encoding"] !== "gzip") throw new Error("the daemon's gzip was not ready");
  const bare = createServer((req, res) => {
    const gzip = /\bgzip\b/.test(String(req.headers["accept-encoding"]));
    const body = gzip ? zipped.body : plain.body;
    res.writeHead(200, {
      "content-type": "text/plain; version=0.0.4; charset=utf-8",
      "content-length": body.length,
      ...(gzip ? { "content-encoding": "gzip" } : {}),
    });
    res.end(body);
  });
  await new Promise<void>((r) => bare.listen(0, "127.0.0.1", r));
  const bareUrl = `http://127.0.0.1:${(bare.address() as AddressInfo).port}/metrics`;
  let rssMiB = 0;
  const sampler = setInterval(() => {
    rssMiB = Math.max(rssMiB, processMemoryMiB(subject.pid, "VmRSS"));
  }, 50);
  const rows: Record<string, { bodyBytes: number; bare: Load; exporter: Load; p50Ratio: number }> = {};
  for (const [encoding, body] of [
    ["plain", plain.body],
    ["gzip", zipped.body],
  ] as const) {
    const gzip = encoding === "gzip";
    const bareLoad = await load(bareUrl, gzip, ownCpuMs); // the bare server runs in this process
    const exporter = await load(url, gzip, () => processCpuMs(subject.pid));
    rows[encoding] = {
      bodyBytes: body.length,
      bare: bareLoad,
      exporter,
      p50Ratio: +(exporter.p50 / bareLoad.p50).toFixed(2),
    };
  }
  clearInterval(sampler);
  bare.close();
  return { rows, underLoadRssMiB: rssMiB };
}

async function main() {
  const node = nodeBinary(dockerfileNodeMajor());
  const targets = Number(values.targets);
  const dir = mkdtempSync(join(tmpdir(), "promstatus-exposition-"));
  const upstreams = await Promise.all([startUpstream(targets), startUpstream(0)]);
  const daemons: ChildProcess[] = [];
  try {
    const subject = await startDaemon(node, dir, "subject", upstreams[0].url);
    const twin = await startDaemon(node, dir, "twin", upstreams[1].url);
    daemons.push(subject.child, twin.child);
    // Each cycle: scraped (gzip) once the poll is done, as Prometheus would; RSS two seconds before the next poll.
    const between: number[] = [];
    let idle = 0;
    for (let i = 0; i < Number(values.cycles); i++) {
      await untilPhase(PERIOD_S - 4);
      await Promise.all([subject, twin].map((d) => rawGet(`http://${d.address}/metrics`, "gzip")));
      await untilPhase(PERIOD_S - 2);
      between.push(processMemoryMiB(subject.pid, "VmRSS"));
      idle = processMemoryMiB(twin.pid, "VmRSS");
    }
    const memory = {
      peakRssMiB: processMemoryMiB(subject.pid, "VmHWM"),
      betweenPollsRssMiB: between,
      idleRssMiB: idle,
    };
    const scrape = values.load === "true" ? await scrapeLoad(subject) : undefined;
    const version = (await run(node, ["--version"])).stdout.trim();
    process.stdout.write(`${JSON.stringify({ node: version, dist: values.dist, targets, memory, scrape })}\n`);
  } finally {
    for (const child of daemons) child.kill("SIGKILL");
    for (const up of upstreams) up.child.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
