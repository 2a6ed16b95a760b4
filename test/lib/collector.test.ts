import { setTimeout as sleep } from "node:timers/promises";
import { runInNewContext } from "node:vm";
import { Worker } from "node:worker_threads";
import { describe, expect, it } from "vitest";
import { type Collect, takeCollector } from "../../src/lib/collector.js";

const arrayBufferMB = () => process.memoryUsage().arrayBuffers / 2 ** 20;

/**
 * Memory (MB) of ArrayBuffers while 4 MiB more of them, made young (just after a collection of the
 * young generation), are reachable. They are made and dropped in here, so that no register of the
 * caller's frame still holds them: as an answer's read pieces are.
 */
function withYoungBuffers(collect: Collect): number {
  collect({ type: "minor" });
  const pieces = Array.from({ length: 64 }, () => new Uint8Array(64 * 1024).fill(1));
  const mb = arrayBufferMB();
  return pieces.length > 0 ? mb : 0;
}

/** What `typeof gc` is in the main context of a new worker thread. */
function gcInNewWorker(): Promise<string> {
  const worker = new Worker("require('node:worker_threads').parentPort.postMessage(typeof gc)", { eval: true });
  return new Promise((resolve) =>
    worker.once("message", (seen: string) => {
      resolve(seen);
      void worker.terminate();
    }),
  );
}

const MODULE = new URL("../../src/lib/collector.ts", import.meta.url).href;
const TSX = import.meta.resolve("tsx/esm/api");

/**
 * Threads that each take a collector at the same moment (released together once all are ready), as
 * decoder threads started together may: what each got (`typeof` its collector).
 */
async function takenTogether(threads: number): Promise<string[]> {
  const go = new SharedArrayBuffer(4);
  const code = `
    const { parentPort, workerData } = require("node:worker_threads");
    import(${JSON.stringify(TSX)}).then(async (tsx) => {
      tsx.register();
      const { takeCollector } = await import(${JSON.stringify(MODULE)});
      parentPort.postMessage("ready");
      Atomics.wait(new Int32Array(workerData), 0, 0);
      parentPort.postMessage(typeof takeCollector());
    });`;
  const workers = Array.from({ length: threads }, () => new Worker(code, { eval: true, workerData: go }));
  try {
    const messages = workers.map((worker) => {
      const seen: string[] = [];
      return {
        ready: new Promise<void>((resolve) => worker.once("message", () => resolve())),
        got: new Promise<string>((resolve) =>
          worker.on("message", (m: string) => {
            seen.push(m);
            if (seen.length === 2) resolve(m);
          }),
        ),
      };
    });
    await Promise.all(messages.map((m) => m.ready));
    Atomics.store(new Int32Array(go), 0, 1);
    Atomics.notify(new Int32Array(go), 0);
    return await Promise.all(messages.map((m) => m.got));
  } finally {
    await Promise.all(workers.map((worker) => worker.terminate()));
  }
}

describe("takeCollector", () => {
  it("gives a collector of the calling thread's young generation, and no gc to code made later", async () => {
    const collect = takeCollector() as Collect;
    expect(collect).toBeTypeOf("function");
    expect((globalThis as { gc?: unknown }).gc).toBeUndefined();
    expect(runInNewContext("typeof gc")).toBe("undefined");
    expect(await gcInNewWorker()).toBe("undefined");
    const withPieces = withYoungBuffers(collect);
    collect({ type: "minor" });
    // Their memory is freed by a sweeper that may finish after the collection returns.
    for (let i = 0; i < 50 && withPieces - arrayBufferMB() < 3; i++) await sleep(10);
    expect(withPieces - arrayBufferMB()).toBeGreaterThanOrEqual(3);
  });

  // The flag is the process's: one thread unsetting it could leave another, between setting it and
  // making its context, without (16 of 80 threads released four at a time, before the retries).
  it("gives every thread a collector when several take theirs at the same moment", async () => {
    const got: string[] = [];
    for (let round = 0; round < 3; round++) got.push(...(await takenTogether(4)));
    expect(got).toEqual(Array(12).fill("function"));
    expect(runInNewContext("typeof gc")).toBe("undefined");
  }, 60_000);
});
