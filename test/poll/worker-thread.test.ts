import { describe, expect, it } from "vitest";
import { startDecoderThread, threadFailure } from "../../src/poll/worker-thread.js";

describe("startDecoderThread", () => {
  it("caps the old generation at the memory limit and keeps the young generation small", async () => {
    const worker = startDecoderThread(320 * 2 ** 20);
    try {
      // Node reports the limits the thread's isolate was actually given.
      const limits = worker.resourceLimits;
      expect(limits?.maxOldGenerationSizeMb).toBe(320);
      // Without a cap V8 lets a thread reading a large answer commit up to 3 x 64 MiB of young generation
      // for garbage that dies at once.
      expect(limits?.maxYoungGenerationSizeMb).toBeGreaterThan(0);
      expect(limits?.maxYoungGenerationSizeMb).toBeLessThanOrEqual(32);
    } finally {
      await worker.terminate();
    }
  });
});

describe("threadFailure", () => {
  it("names a failed thread's error without its message, which goes to the operator's text only", () => {
    const err = Object.assign(new SyntaxError('Unexpected token in JSON at "DB_PASSWORD=hunter2"'), {
      code: undefined,
    });
    const result = threadFailure(err, 320 * 2 ** 20);
    expect(result).toMatchObject({ ok: false, reason: "invalid_payload", message: "decoder failed (SyntaxError)" });
    expect(JSON.stringify(result.ok ? {} : result.message)).not.toContain("hunter2");
    expect(result.ok ? undefined : result.upstreamText).toContain("DB_PASSWORD=hunter2");
  });

  it("says a thread out of memory is too large, naming the flag to raise", () => {
    const err = Object.assign(new Error("worker ran out of memory"), { code: "ERR_WORKER_OUT_OF_MEMORY" });
    expect(threadFailure(err, 320 * 2 ** 20)).toEqual({
      ok: false,
      reason: "too_large",
      message: "decoding the answer needed more than --decoder.memory-limit=320MiB",
    });
  });
});
