// What the exporter's poll costs the server it watches: a real Prometheus (Debian's, or PROMETHEUS_BIN)
// holding 20,000 targets from a file_sd file (all on one loopback server that answers at once, scraped
// once an hour so their scrapes hardly load it), polled at /api/v1/targets as the exporter polls it,
// with and without gzip. The Prometheus process's CPU is read from /proc/<pid>/stat during back-to-back
// polls, minus its own idle CPU over windows of the same length measured around them. Prints one JSON line.
// Usage: node --import tsx scripts/bench/watched-server.ts [--targets=20000]
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer as createHttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { findBinaries } from "../../test/harness/binaries.js";
import { freePort, processCpuMs } from "./processes.js";

export interface WatchedServerRow {
  targets: number;
  encoding: "gzip" | "identity";
  answerBytes: number;
  prometheusCpuMsPerPoll: number;
  wallMsPerPoll: number;
}

const { values } = parseArgs({ options: { targets: { type: "string", default: "20000" } } });
const POLLS = 5;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Idle CPU of the process over `ms`, in ms. */
async function idleCpu(pid: number, ms: number): Promise<number> {
  const before = processCpuMs(pid);
  await sleep(ms);
  return processCpuMs(pid) - before;
}

async function main() {
  const targets = Number(values.targets);
  const dir = mkdtempSync(join(tmpdir(), "promstatus-watched-"));
  const metrics = createHttpServer((_req, res) => res.writeHead(200, { "content-type": "text/plain" }).end("x 1\n"));
  await new Promise<void>((resolve) => metrics.listen(0, "127.0.0.1", resolve));
  const metricsAddress = `127.0.0.1:${(metrics.address() as AddressInfo).port}`;
  // Distinct targets on one address: each has its own instance label.
  writeFileSync(
    join(dir, "targets.json"),
    JSON.stringify([
      ...Array.from({ length: targets }, (_, i) => ({
        targets: [metricsAddress],
        labels: { instance: `target-${i}`, pool: `pool-${i % 8}` },
      })),
    ]),
  );
  writeFileSync(
    join(dir, "prometheus.yml"),
    `global: {scrape_interval: 1h, scrape_timeout: 10s}\nscrape_configs:\n  - job_name: fleet\n    file_sd_configs: [{files: ["${join(dir, "targets.json")}"]}]\n`,
  );
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const prometheus: ChildProcess = spawn(
    findBinaries().prometheus,
    [
      `--config.file=${join(dir, "prometheus.yml")}`,
      `--storage.tsdb.path=${join(dir, "data")}`,
      `--web.listen-address=127.0.0.1:${port}`,
    ],
    { stdio: "ignore" },
  );
  const pid = prometheus.pid as number;
  try {
    const deadline = Date.now() + 120_000;
    for (;;) {
      if (Date.now() > deadline) throw new Error("watched-server: targets not discovered within 120 s");
      await sleep(1000);
      const text = await fetch(`${url}/api/v1/targets?state=active`).then(
        (r) => r.text(),
        () => "",
      );
      if ((text.match(/"scrapePool":"fleet"/g) ?? []).length === targets) break;
    }
    await sleep(5000); // let discovery and the first scrapes settle
    const rows: WatchedServerRow[] = [];
    for (const encoding of ["gzip", "identity"] as const) {
      const poll = async () => {
        const res = await fetch(`${url}/api/v1/targets`, { headers: { "accept-encoding": encoding } });
        return (await res.arrayBuffer()).byteLength;
      };
      await poll(); // warm
      const started = performance.now();
      const before = processCpuMs(pid);
      let bytes = 0;
      for (let i = 0; i < POLLS; i++) bytes = await poll();
      const busy = processCpuMs(pid) - before;
      const wall = performance.now() - started;
      const idle = ((await idleCpu(pid, wall)) + (await idleCpu(pid, wall))) / 2;
      rows.push({
        targets,
        encoding,
        // fetch decodes gzip, so this is the answer's JSON size either way.
        answerBytes: bytes,
        prometheusCpuMsPerPoll: (busy - idle) / POLLS,
        wallMsPerPoll: wall / POLLS,
      });
    }
    const info = JSON.parse(await fetch(`${url}/api/v1/status/buildinfo`).then((r) => r.text())) as {
      data: { version: string };
    };
    process.stdout.write(`${JSON.stringify({ prometheus: info.data.version, rows })}\n`);
  } finally {
    prometheus.kill("SIGKILL");
    metrics.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
