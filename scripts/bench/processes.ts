// What the benchmark scripts share: the generated upstream in a process of its own, and readings of a
// process's CPU and memory from /proc.
import { type ChildProcess, fork } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

export { freePort } from "../../test/harness/processes.js";

/** scripts/bench/upstream.ts in its own process, so its memory is not counted; resolves with its URL. */
export function startUpstream(targets: number, limit = 10): Promise<{ url: string; child: ChildProcess }> {
  const child = fork(new URL("./upstream.ts", import.meta.url).pathname, [`--targets=${targets}`, `--limit=${limit}`], {
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "pipe", "inherit", "ipc"],
  });
  return new Promise((resolve, reject) => {
    child.stdout?.once("data", (d: Buffer) => resolve({ url: d.toString().trim(), child }));
    child.once("exit", (code) => reject(new Error(`upstream exited with ${code}`)));
  });
}

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** The name and utime + stime (ms) in a /proc stat line, of a process or of one of its threads. */
function readStat(path: string): { name: string; cpuMs: number } {
  const stat = readFileSync(path, "utf8");
  const close = stat.lastIndexOf(")"); // the name may hold spaces and parentheses
  const fields = stat.slice(close + 2).split(" ");
  const cpuMs = ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  return { name: stat.slice(stat.indexOf("(") + 1, close), cpuMs };
}

/** utime + stime of the whole process (every thread, ended ones included), in ms. */
export function processCpuMs(pid: number): number {
  return readStat(`/proc/${pid}/stat`).cpuMs;
}

/** A memory figure of /proc/<pid>/status (VmHWM: peak RSS, VmRSS: current), in KiB. */
function processMemoryKiB(pid: number, key: "VmHWM" | "VmRSS"): number {
  const kb = new RegExp(`${key}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
  if (kb === undefined) throw new Error(`/proc/${pid}/status: no ${key}`);
  return Number(kb);
}

/** A memory figure of /proc/<pid>/status (VmHWM: peak RSS, VmRSS: current), in MiB. */
export function processMemoryMiB(pid: number, key: "VmHWM" | "VmRSS"): number {
  return Math.round(processMemoryKiB(pid, key) / 1024);
}

/** The same in MB (10^6 bytes), one decimal: the unit the goals are stated in. */
export function processMemoryMB(pid: number, key: "VmHWM" | "VmRSS"): number {
  return Math.round((processMemoryKiB(pid, key) * 1024) / 1e5) / 10;
}

/**
 * CPU per thread name of a process over a window, by reading /proc/<pid>/task/* every 50 ms: threads
 * that end during it (a decoder worker) are counted up to their last reading. Names are Node's and
 * V8's: MainThread, WorkerThread (a worker's JavaScript), V8Worker (garbage collection and compilation
 * helpers), libuv-worker (the thread pool: zlib, fs).
 */
export function threadCpuSampler(pid: number): { stop(): Map<string, number> } {
  const first = new Map<string, number>();
  const last = new Map<string, { name: string; ms: number }>();
  const read = (initial: boolean) => {
    let tids: string[] = [];
    try {
      tids = readdirSync(`/proc/${pid}/task`);
    } catch {
      return;
    }
    for (const tid of tids) {
      try {
        const { name, cpuMs } = readStat(`/proc/${pid}/task/${tid}/stat`);
        if (!first.has(tid)) first.set(tid, initial ? cpuMs : 0);
        last.set(tid, { name, ms: cpuMs });
      } catch {
        // the thread ended between the listing and the read
      }
    }
  };
  read(true);
  const timer = setInterval(() => read(false), 50);
  return {
    stop() {
      clearInterval(timer);
      read(false);
      const byName = new Map<string, number>();
      for (const [tid, { name, ms }] of last) byName.set(name, (byName.get(name) ?? 0) + ms - (first.get(tid) ?? 0));
      return byName;
    },
  };
}
