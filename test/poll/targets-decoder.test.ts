import { describe, expect, it } from "vitest";
import { targetsAnswer } from "../../scripts/bench/generate.js";
import { DecodePool } from "../../src/poll/decode-pool.js";
import { TargetsDecoder } from "../../src/poll/targets-fast-path.js";
import { decodeOptions } from "../helpers/decode-options.js";

const options = decodeOptions();

describe("TargetsDecoder: the targets budget", () => {
  it("refuses an answer listing more targets than it may keep, and stops reading there", () => {
    const bytes = Buffer.from(targetsAnswer(200));
    const decoder = new TargetsDecoder({ ...options, maxTargets: 50 });
    let accepted = 0;
    for (let at = 0; at < bytes.length; at += 1000) if (decoder.write(bytes.subarray(at, at + 1000))) accepted += 1000;
    // Stopped once the 51st target was met, not at the end of the answer.
    expect(accepted).toBeLessThan(bytes.length / 2);
    expect(decoder.finish()).toBeUndefined();
    expect(decoder.refusal()).toEqual({
      reason: "too_large",
      message:
        "answer lists more than 50 active targets (a scrape pool counting as 32), the most a decoder keeps with its --decoder.memory-limit",
    });
  });

  it("counts a scrape pool as many targets: an answer of many pools is refused sooner", () => {
    const targets = Array.from({ length: 40 }, (_, i) => ({
      labels: { instance: `i${i}` },
      scrapePool: `pool-${i}`,
      health: "up",
    }));
    const answer = Buffer.from(JSON.stringify({ status: "success", data: { activeTargets: targets } }));
    const decoder = new TargetsDecoder({ ...options, maxTargets: 200 });
    decoder.write(answer);
    expect(decoder.finish()).toBeUndefined();
    expect(decoder.refusal()?.reason).toBe("too_large");
    // The same 40 targets in one pool fit.
    const onePool = Buffer.from(answer.toString().replace(/pool-\d+/g, "p"));
    const fits = new TargetsDecoder({ ...options, maxTargets: 200 });
    fits.write(onePool);
    expect(fits.finish()?.series).toBeGreaterThan(40);
  });

  it("counts dropped targets by pool, each pool weighing as an active one's: many dropped in few pools fit", () => {
    const answer = (pools: number) =>
      Buffer.from(
        JSON.stringify({
          status: "success",
          data: {
            activeTargets: [{ labels: { instance: "i" }, scrapePool: "p" }],
            droppedTargets: Array.from({ length: 20_000 }, (_, i) => ({
              discoveredLabels: { job: `pool-${i % pools}` },
            })),
          },
        }),
      );
    // 20k dropped targets in 3 pools: nothing but 3 counts kept, well within 200.
    const few = new TargetsDecoder({ ...options, maxTargets: 200 });
    expect(few.write(answer(3))).toBe(true);
    const served = few.finish();
    expect(served?.series).toBeGreaterThan(3);
    const dropped = served?.families.find(([name]) => name === "promstatus_targets_dropped")?.[1];
    expect(Buffer.from(dropped ?? []).toString()).toContain('scrape_pool="pool-0"} 6667\n');
    // In 20k pools they are 20k counts to keep: refused, and reading stopped there.
    const many = new TargetsDecoder({ ...options, maxTargets: 200 });
    expect(many.write(answer(20_000))).toBe(false);
    expect(many.finish()).toBeUndefined();
    expect(many.refusal()?.reason).toBe("too_large");
  });

  it("serves an answer within the budget", () => {
    const decoder = new TargetsDecoder({ ...options, maxTargets: 200 + 8 * 32 }); // 200 targets in 8 pools
    expect(decoder.write(Buffer.from(targetsAnswer(200)))).toBe(true);
    expect(decoder.finish()?.series).toBeGreaterThan(200);
    expect(decoder.refusal()).toBeUndefined();
  });

  it("is set by the pool from its threads' heap: a streamed answer over it fails as too_large, not left to the reference path", async () => {
    const pool = new DecodePool({ size: 1, memoryLimitBytes: 32 * 2 ** 20 }); // 32 MiB: about 84k targets
    const stream = pool.openStream("targets", options);
    const bytes = Buffer.from(targetsAnswer(90_000));
    for (let at = 0; at < bytes.length; at += 2 ** 20) {
      if (!(await stream.write(bytes.subarray(at, at + 2 ** 20)))) break;
      await new Promise((resolve) => setImmediate(resolve));
    }
    const end = await stream.end(60_000);
    expect(end.gaveUp).toBe(false);
    if (!end.gaveUp) expect(end.result).toMatchObject({ ok: false, reason: "too_large" });
    if (!end.gaveUp && !end.result.ok) expect(end.result.message).toMatch(/more than 83886 active targets/);
  }, 60_000);
});
