import { describe, expect, it } from "vitest";
import { startDecoderThread } from "../../src/poll/worker-thread.js";

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
