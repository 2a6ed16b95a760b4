import { parentPort } from "node:worker_threads";
import { type DecodeJob, decodeAnswer } from "./decode.js";

// Worker thread entry: decodes answers off the main event loop, so a 76 MB JSON.parse never stalls
// scrapes. Result buffers are transferred back, not copied.
parentPort?.on("message", ({ id, job }: { id: number; job: DecodeJob }) => {
  const result = decodeAnswer(job);
  const transfer = result.ok ? result.families.map(([, lines]) => lines.buffer as ArrayBuffer) : [];
  parentPort?.postMessage({ id, result }, transfer);
});
