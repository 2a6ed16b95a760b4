import { getHeapStatistics } from "node:v8";
import { parentPort } from "node:worker_threads";
import { type DecodeJob, type DecodeResult, decodeAnswer } from "./decode.js";
import { ownMemory, transferList } from "./transferable.js";

/** The result's large buffers, moved to the main thread rather than copied. */
function resultBuffers(result: DecodeResult & { ok: true }): Uint8Array[] {
  const buffers: Uint8Array[] = result.families.map(([, lines]) => lines);
  if (result.facts?.kind === "prometheus") {
    const { targets, health } = result.facts;
    buffers.push(new Uint8Array(targets.buffer, targets.byteOffset, targets.byteLength), health);
  }
  return buffers;
}

// Worker thread entry: decodes answers off the main event loop, so a 76 MB JSON.parse never stalls
// scrapes. Result buffers are moved back, not copied; small ones from Node's shared pool are copied
// into memory of their own first (a newer Node.js refuses to transfer the pool).
parentPort?.on("message", ({ job }: { job: DecodeJob }) => {
  let result: DecodeResult;
  try {
    result = decodeAnswer(job);
    if (result.ok) result.families = result.families.map(([name, lines]) => [name, ownMemory(lines)]);
  } catch (error) {
    // decodeAnswer reports what it expects; anything else must still answer this job, not kill the worker.
    result = { ok: false, reason: "invalid_payload", message: `decoder failed: ${String(error)}` };
  }
  // The heap this job left behind: the pool keeps a small worker warm and ends a large one.
  const heapBytes = getHeapStatistics().total_heap_size;
  try {
    parentPort?.postMessage({ result, heapBytes }, result.ok ? transferList(resultBuffers(result)) : []);
  } catch (error) {
    parentPort?.postMessage({
      result: { ok: false, reason: "invalid_payload", message: `decoder failed: ${String(error)}` },
      heapBytes,
    });
  }
});
