import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type GetOptions, httpGet } from "./http-get.js";

const running = new Set<ChildProcess>();
// Last resort if a test run dies without its afterAll: never leave a server behind.
process.once("exit", () => {
  for (const child of running) child.kill("SIGKILL");
});

export interface Managed {
  child: ChildProcess;
  logFile: string;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves with the exit code (null if killed). */
  stop(graceMs?: number): Promise<number | null>;
  exited: Promise<number | null>;
}

export function tempDir(prefix: string): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), `${prefix}-`));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** Starts a process with its output in a log file; tracked so that it is always stopped. */
export function startProcess(
  command: string,
  args: string[],
  logFile: string,
  env?: NodeJS.ProcessEnv,
  cwd?: string,
): Managed {
  const out = openSync(logFile, "a");
  const child = spawn(command, args, { stdio: ["ignore", out, out], env: env ?? process.env, cwd });
  running.add(child);
  const exited = new Promise<number | null>((resolve) => {
    child.once("exit", (code) => {
      running.delete(child);
      resolve(code);
    });
  });
  return {
    child,
    logFile,
    exited,
    async stop(graceMs = 5000) {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

export function logTail(file: string, lines = 20): string {
  try {
    return readFileSync(file, "utf8").trimEnd().split("\n").slice(-lines).join("\n");
  } catch {
    return "(no log)";
  }
}

// Ports for the servers tests start come from below the kernel's ephemeral range, one slice per
// vitest worker: a port handed out and released can otherwise be taken before its server binds it,
// by any outgoing connection or any listen(0) in the suite ("address already in use" in CI).
const SLICE = 1000;
const SLICES = 16;
const FIRST_PORT = 12_000;
let nextInSlice = Math.floor(Math.random() * SLICE);

function ephemeralLow(): number {
  try {
    return Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
  } catch {
    return 32_768;
  }
}

async function bindable(port: number): Promise<boolean> {
  const server = createServer();
  const bound = await new Promise<boolean>((resolve) => {
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => resolve(true));
  });
  if (bound) await new Promise<void>((resolve) => server.close(() => resolve()));
  return bound;
}

async function kernelPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (!address || typeof address === "string") throw new Error("no port");
  return address.port;
}

/** A TCP port on 127.0.0.1 that no other test worker hands out and no outgoing connection takes. */
export async function freePort(): Promise<number> {
  const slice = (Number(process.env.VITEST_POOL_ID ?? 0) || 0) % SLICES;
  const start = FIRST_PORT + slice * SLICE;
  // A machine whose ephemeral range reaches down here gets the kernel's choice, as before.
  if (FIRST_PORT + SLICES * SLICE > ephemeralLow()) return kernelPort();
  for (let tries = 0; tries < SLICE; tries++) {
    const port = start + (nextInSlice++ % SLICE);
    if (await bindable(port)) return port;
  }
  throw new Error(`no free port in ${start}-${start + SLICE - 1}`);
}

/** Polls until `check` returns a value (not undefined) or the time is up. */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined>,
  timeoutMs = 30_000,
  everyMs = 200,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (err) {
      lastError = err;
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`timed out waiting for ${what}${lastError ? `: ${String(lastError)}` : ""}`);
}

/** Waits until GET `url` answers 200, or fails with the tail of the process's log. */
export async function waitForHttp(
  url: string,
  managed: Managed,
  timeoutMs = 30_000,
  options: GetOptions = {},
): Promise<void> {
  try {
    await waitFor(
      url,
      async () => {
        if (managed.child.exitCode !== null) throw new Error(`process exited with ${managed.child.exitCode}`);
        const res = await httpGet(url, { ...options, timeoutMs: 2000 });
        return res.status === 200 ? true : undefined;
      },
      timeoutMs,
    );
  } catch (err) {
    throw new Error(`${(err as Error).message}\n--- ${managed.logFile} ---\n${logTail(managed.logFile)}`);
  }
}
