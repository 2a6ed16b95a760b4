// Sizing: the peak RSS of the built daemon (dist/main.js) on the image's Node.js, polling one or two
// sources whose targets answers have the given sizes, read from the kernel (VmHWM, the high-water mark
// of the whole process, worker threads included). Baseline: the same daemon polling one empty answer.
// Prints one JSON line. Usage: node --import tsx scripts/bench/sizing.ts
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { dockerfileEnv, dockerfileNodeFlags, dockerfileNodeMajor, nodeBinary } from "../test-matrix.mjs";
import { freePort, processMemoryMiB, startUpstream } from "./processes.js";

export interface SizingRow {
  targets: number;
  sources: number;
  peakRssMiB: number;
  /** What the sources' targets endpoint reported: 1 decoded, 0 refused (too_large). */
  up: number[];
}

const CASES: Array<[targets: number, sources: number]> = [
  [0, 1],
  [10_000, 1],
  [50_000, 1],
  [100_000, 1],
  [100_000, 2],
  [150_000, 1], // over what the default --decoder.memory-limit parses: refused before it takes memory
];

const POLLS_AFTER_FIRST = 4;

async function targetsUp(address: string, sources: number): Promise<number[] | undefined> {
  const text = await fetch(`http://${address}/metrics`).then(
    (r) => r.text(),
    () => "", // not listening yet
  );
  const up = [...text.matchAll(/^promstatus_up\{source="s\d+",endpoint="targets"\} (\d)$/gm)].map((m) => Number(m[1]));
  const failed = [
    ...text.matchAll(/^promstatus_poll_failures_total\{source="s\d+",endpoint="targets",reason="too_large"\} (\d+)$/gm),
  ];
  const refused = failed.filter((m) => Number(m[1]) > 0).length;
  return up.length === sources && up.filter((u) => u === 1).length + refused === sources ? up : undefined;
}

async function measure(node: string, targets: number, sources: number): Promise<SizingRow> {
  const dir = mkdtempSync(join(tmpdir(), "promstatus-sizing-"));
  const upstreams = await Promise.all(Array.from({ length: sources }, () => startUpstream(targets)));
  const config = join(dir, "exporter.yml");
  // One schedule for all sources, so that their answers are decoded at the same time, every 3 s.
  writeFileSync(
    config,
    `global: {schedule: "*/3 * * * * *", timeout: 30s}\nsources:\n${upstreams
      .map((u, i) => `  - {name: s${i}, kind: prometheus, url: "${u.url}", tsdb: {enabled: false}}`)
      .join("\n")}\n`,
  );
  const address = `127.0.0.1:${await freePort()}`;
  const daemon = spawn(
    node,
    [...dockerfileNodeFlags(), "dist/main.js", `--config.file=${config}`, `--web.listen-address=${address}`],
    {
      stdio: "ignore",
      env: { ...process.env, ...dockerfileEnv() }, // as the image runs it
    },
  );
  try {
    const deadline = Date.now() + 120_000;
    for (;;) {
      if (Date.now() > deadline) throw new Error(`sizing: ${targets}x${sources} not polled within 120 s`);
      await new Promise((r) => setTimeout(r, 250));
      const up = await targetsUp(address, sources);
      if (up) {
        await new Promise((r) => setTimeout(r, POLLS_AFTER_FIRST * 3000)); // GC timing varies from poll to poll
        return { targets, sources, peakRssMiB: processMemoryMiB(daemon.pid as number, "VmHWM"), up };
      }
    }
  } finally {
    daemon.kill("SIGKILL");
    for (const u of upstreams) u.child.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main() {
  const node = nodeBinary(dockerfileNodeMajor());
  const rows: SizingRow[] = [];
  for (const [targets, sources] of CASES) {
    process.stderr.write(`sizing: ${targets} targets x ${sources} source(s) ...\n`);
    rows.push(await measure(node, targets, sources));
  }
  const version = execFileSync(node, ["--version"], { encoding: "utf8" }).trim();
  process.stdout.write(`${JSON.stringify({ node: version, rows })}\n`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
