import { compiledOnce, instantiate } from "../lib/wasm-module.js";
import { DEFLATE_LINES_MODULE } from "./deflate-lines-module.js";
import { deflateSegmentSync } from "./gzip-stream.js";

// A family's lines compressed by assembly/deflate-lines.ts: each line matched against the two before
// it only. On the two families of a 100k-target answer written every poll (27 MB of lines, Node 24):
// ~36 ms against ~51 for zlib's level 1, and 2.19 MB against 2.28. The data is of the kind zlib's
// deflateRaw makes with a sync flush, so the members join as before (gzip-stream.ts). Where WebAssembly
// is not there (node --jitless), and for more bytes than the module takes, zlib does it.

/** Where the module reads its input and writes its output; the same numbers as its source's. */
const INPUT = 65536;
const MAX_INPUT = 2 ** 20;
const TOKENS = INPUT + MAX_INPUT + 65536;
const OUTPUT = TOKENS + MAX_INPUT * 4;

interface Exports {
  memory: { buffer: ArrayBuffer };
  deflate(n: number): number;
}

const compiled = compiledOnce(DEFLATE_LINES_MODULE);
/** The thread's instance (one: a call runs to its end before the next begins); null where none can be made. */
let instance: Exports | null | undefined;

function compressor(): Exports | null {
  if (instance === undefined) {
    const module = compiled();
    try {
      instance = module ? instantiate<Exports>(module) : null;
    } catch {
      instance = null;
    }
  }
  return instance;
}

/** Lines as raw deflate data ending in a sync flush, in a buffer of their own. */
export function deflateLinesSync(lines: Uint8Array): Buffer {
  const wasm = lines.length <= MAX_INPUT ? compressor() : null;
  if (!wasm) return deflateSegmentSync(lines);
  new Uint8Array(wasm.memory.buffer, INPUT, lines.length).set(lines);
  const length = wasm.deflate(lines.length);
  return Buffer.from(new Uint8Array(wasm.memory.buffer, OUTPUT, length));
}
