// The built daemon (dist/main.js) as the benchmark runs it: on the image's Node.js and environment, with
// the default flags, its log kept so that a failure can be reported with the daemon's own words.
import { type ChildProcess, fork, spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { dockerfileEnv, dockerfileNodeFlags } from "../test-matrix.mjs";
import { ExpositionTally } from "./exposition-tally.js";
import { freePort } from "./processes.js";

export interface Daemon {
  child: ChildProcess;
  pid: number;
  address: string;
  /** The last lines the daemon wrote (stdout and stderr), oldest first. */
  log: string[];
  /** Set once the process has ended: how. */
  exit: string | undefined;
  stop(): void;
}

const LOG_LINES = 200;

/**
 * Starts `dist/main.js` polling one source. `schedule` is a cron expression; the config sets the
 * timeout and keeps tsdb off; nothing else is set, and the command line has only the config file and
 * the listen address (every flag at its default) unless `flags` add some.
 */
export async function startDaemon(opts: {
  node: string;
  dir: string;
  name: string;
  url: string;
  schedule: string;
  timeout: string;
  /** "gzip" or "none"; left out, the config's default (auto: plain on loopback). */
  compression?: string;
  flags?: string[];
}): Promise<Daemon> {
  const config = join(opts.dir, `${opts.name}.yml`);
  const compression = opts.compression ? `, compression: ${opts.compression}` : "";
  writeFileSync(
    config,
    `global: {schedule: "${opts.schedule}", timeout: ${opts.timeout}}\nsources:\n  - {name: s, kind: prometheus, url: "${opts.url}", tsdb: {enabled: false}${compression}}\n`,
  );
  const address = `127.0.0.1:${await freePort()}`;
  const args = [
    ...dockerfileNodeFlags(),
    "dist/main.js",
    `--config.file=${config}`,
    `--web.listen-address=${address}`,
    ...(opts.flags ?? []),
  ];
  const child = spawn(opts.node, args, {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...dockerfileEnv() }, // as the image runs it
  });
  const daemon: Daemon = {
    child,
    pid: child.pid as number,
    address,
    log: [],
    exit: undefined,
    stop: () => void child.kill("SIGKILL"),
  };
  for (const stream of [child.stdout, child.stderr]) {
    if (!stream) continue;
    createInterface({ input: stream }).on("line", (line) => {
      daemon.log.push(line);
      if (daemon.log.length > LOG_LINES) daemon.log.shift();
    });
  }
  child.once("exit", (code, signal) => {
    daemon.exit = signal ? `killed by ${signal}` : `exited with code ${code}`;
  });
  return daemon;
}

/**
 * What the daemon's log says went wrong: the lines at warn or above (pino levels ≥ 40), and the lines
 * that are not JSON and say an error (a usage error, a fatal error of V8 or Node.js on stderr; else the
 * first such line), the last `max` of them, shortened, each said once.
 */
export function logProblems(log: readonly string[], max = 3): string[] {
  const problems: string[] = [];
  let firstPlain: string | undefined;
  let plainTold = false;
  for (const line of log) {
    let entry: { level?: number; msg?: string; reason?: string; error?: string } | undefined;
    try {
      entry = JSON.parse(line) as typeof entry;
    } catch {
      entry = undefined;
    }
    if (entry === undefined || typeof entry !== "object" || entry === null) {
      const text = line.trim();
      if (!text) continue;
      firstPlain ??= text;
      if (/error|fatal|unknown|invalid|abort|out of memory|uncaught/i.test(text)) {
        problems.push(text);
        plainTold = true;
      }
      continue;
    }
    if ((entry.level ?? 0) < 40) continue;
    const detail = [entry.reason && `reason ${entry.reason}`, entry.error].filter(Boolean).join(": ");
    problems.push(`${entry.msg ?? "(no message)"}${detail ? ` (${detail})` : ""}`);
  }
  if (!plainTold && firstPlain !== undefined) problems.push(firstPlain);
  const shortened = problems.map((p) => (p.length > 300 ? `${p.slice(0, 297)}...` : p));
  // The same message repeated poll after poll is said once.
  return [...new Set(shortened)].slice(-max);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits for /-/ready (every source's first poll attempt done); throws if the daemon ends or takes too long. */
export async function waitReady(daemon: Daemon, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (daemon.exit) throw new Error(`the daemon ${daemon.exit} before its first poll was done`);
    if (Date.now() > deadline) throw new Error(`the daemon's first poll was not done within ${timeoutMs / 1000} s`);
    const status = await fetch(`http://${daemon.address}/-/ready`).then(
      (r) => r.arrayBuffer().then(() => r.status),
      () => 0, // not listening yet
    );
    if (status === 200) return;
    await sleep(200);
  }
}

/** Families a scrape keeps whole; the rest are counted. */
const KEPT = new Set([
  "promstatus_up",
  "promstatus_poll_duration_seconds",
  "promstatus_last_success_timestamp_seconds",
  "promstatus_poll_failures_total",
  "nodejs_eventloop_lag_max_seconds",
]);

/**
 * One scrape of /metrics as Prometheus makes it (gzip asked for; the daemon gzips once per change),
 * read as it streams in: series per family and the daemon's own figures.
 */
export async function scrape(address: string): Promise<ExpositionTally> {
  const res = await fetch(`http://${address}/metrics`, { headers: { "accept-encoding": "gzip" } });
  if (!res.ok || !res.body) throw new Error(`GET /metrics: ${res.status}`);
  const tally = new ExpositionTally(KEPT);
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) tally.push(chunk);
  return tally.end();
}

/**
 * A /-/healthy prober in a process of its own (so that the benchmark's own work never delays its
 * readings): each address asked every `everyMs`, each answer's latency kept with the time it was asked.
 */
export function startProber(addresses: string[], everyMs = 20) {
  const child = fork(new URL("./healthy-probe.ts", import.meta.url).pathname, [String(everyMs), ...addresses], {
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "ignore", "inherit", "ipc"],
  });
  const started = new Promise<void>((resolve, reject) => {
    child.once("message", () => resolve());
    child.once("exit", (code) => reject(new Error(`the /-/healthy prober exited with ${code}`)));
  });
  return {
    started,
    /** Stops probing; per address, [time asked (epoch ms), latency ms (Infinity: no answer)] pairs. */
    stop(): Promise<Record<string, [number, number][]>> {
      return new Promise((resolve, reject) => {
        child.once("message", (samples) => {
          child.kill();
          resolve(samples as Record<string, [number, number][]>);
        });
        child.once("exit", (code) => reject(new Error(`the /-/healthy prober exited with ${code}`)));
        child.send("stop");
      });
    },
    kill: () => void child.kill(),
  };
}
