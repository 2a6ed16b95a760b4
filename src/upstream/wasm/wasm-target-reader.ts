import { compiledOnce, instantiate } from "../../lib/wasm-module.js";
import { TARGETS_SCAN_MODULE } from "./targets-scan-module.js";

// The WebAssembly half of the targets reader (assembly/targets-scan.ts): it reads an active target in
// the common shape about three times as fast as the JavaScript scanner (16 bytes at a time through the
// strings and the fields nobody reads), and leaves every other target to it. The layout of its memory
// is the source's; the numbers below must stay equal to those there.

const TARGET_KEYS = 1024;
const LABEL_KEYS = 1536;
const KEY_BYTES = 2048;
const KEY_BYTES_END = 8192;
const WINDOW = 8192;
/** Memory the caller lays out ends where the module's own begins (memoryBase, scripts/build-wasm.mjs). */
const MEMORY_AFTER_WINDOW = 327680 - WINDOW;
/** Keys a table has room for (its first 400 bytes: a count, two i32 per key), and their longest. */
const MAX_LABEL_KEYS = 48;
const MAX_KEY_BYTES = 63;
/** Where a table's first key of each length starts, and its next key of the same length after each. */
const FIRST_OF_LENGTH = 400;
const NEXT_OF_LENGTH = 464;

/**
 * Record slots: the target's identity hash (convert/identity-hash.ts), then a span's start (-1: absent),
 * end and flags, relative to the window.
 */
export const RECORD = {
  identity: 0,
  pool: 1,
  health: 4,
  error: 7,
  scrape: 10,
  duration: 13,
  interval: 15,
  timeout: 18,
  labels: 21,
} as const;

interface Exports {
  memory: { buffer: ArrayBuffer };
  target(p: number, n: number): number;
}

/** The module, compiled once per thread; null where WebAssembly (or its SIMD) is not available. */
const targetsScanModule = compiledOnce(TARGETS_SCAN_MODULE);

/**
 * Instances by the keys they read, one per thread for each set: a reader uses its instance only inside
 * its own write() (the window holds one piece while it is read, nothing after), so readers of the same
 * keys share one. Each instance is a WebAssembly memory, which V8 reserves gigabytes of address space
 * for: one per answer read would pile them up until a collection, and past its limit an instance
 * cannot be made at all. At most MAX_SHARED sets, the least recently asked for let go first (a reader
 * holding it goes on using it).
 */
const shared = new Map<string, WasmTargetReader>();
const MAX_SHARED = 16;

/** An instance's memory holds the window the JavaScript reader copies each piece into. */
export class WasmTargetReader {
  /** The window, at least `windowBytes` long, in the module's memory. */
  readonly window: Buffer;
  /** The record of the last target read (i32 slots, RECORD). */
  readonly record: Int32Array;
  /** Whether a reader is inside its write() with this instance's window (TargetsAnswerReader). */
  busy = false;
  readonly target: (p: number, n: number) => number;

  private constructor(exports: Exports, windowBytes: number) {
    this.window = Buffer.from(exports.memory.buffer, WINDOW, windowBytes);
    this.record = new Int32Array(exports.memory.buffer, 0, RECORD.labels + 3 * MAX_LABEL_KEYS);
    this.target = exports.target;
  }

  /**
   * An instance reading targets with these fields and label keys (as TargetRead numbers them), its
   * window `windowBytes` long; undefined where the module cannot run or the keys do not fit.
   */
  static create(
    targetKeys: readonly string[],
    labelKeys: readonly string[],
    windowBytes: number,
  ): WasmTargetReader | undefined {
    const key = JSON.stringify([targetKeys, labelKeys, windowBytes]);
    const known = shared.get(key);
    if (known !== undefined) {
      shared.delete(key);
      shared.set(key, known);
      return known;
    }
    let made: WasmTargetReader | undefined;
    try {
      made = WasmTargetReader.instantiate(targetKeys, labelKeys, windowBytes);
    } catch {
      // No memory for an instance (address space, a limit on memories): the scanner reads every target.
      return undefined;
    }
    if (made === undefined) return undefined;
    if (shared.size >= MAX_SHARED) shared.delete(shared.keys().next().value as string);
    shared.set(key, made);
    return made;
  }

  private static instantiate(
    targetKeys: readonly string[],
    labelKeys: readonly string[],
    windowBytes: number,
  ): WasmTargetReader | undefined {
    const module = targetsScanModule();
    // 16 bytes past a piece's end are read at once, a zero byte ending every loop before them.
    if (!module || windowBytes + 16 > MEMORY_AFTER_WINDOW || labelKeys.length > MAX_LABEL_KEYS) return undefined;
    const exports = instantiate<Exports>(module);
    const bytes = new Uint8Array(exports.memory.buffer);
    const view = new DataView(exports.memory.buffer);
    let at = KEY_BYTES;
    for (const [table, keys] of [
      [TARGET_KEYS, targetKeys],
      [LABEL_KEYS, labelKeys],
    ] as const) {
      view.setInt32(table, keys.length, true);
      bytes.fill(-1, table + FIRST_OF_LENGTH, table + FIRST_OF_LENGTH + MAX_KEY_BYTES + 1);
      // Chained from the last key to the first, so the first of equal keys is found, as a list search finds it.
      for (let k = keys.length - 1; k >= 0; k--) {
        const encoded = Buffer.from(keys[k] as string, "utf8");
        // A key the table cannot find: every target is the scanner's (a label name may be any length).
        if (encoded.length > MAX_KEY_BYTES || at + encoded.length > KEY_BYTES_END) return undefined;
        bytes.set(encoded, at);
        view.setInt32(table + 4 + 8 * k, at, true);
        view.setInt32(table + 8 + 8 * k, encoded.length, true);
        view.setInt8(table + NEXT_OF_LENGTH + k, view.getInt8(table + FIRST_OF_LENGTH + encoded.length));
        view.setInt8(table + FIRST_OF_LENGTH + encoded.length, k);
        at += encoded.length;
      }
    }
    return new WasmTargetReader(exports, windowBytes);
  }
}
