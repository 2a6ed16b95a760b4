import { describe, expect, it } from "vitest";
import { TargetsDecoder } from "../../src/poll/targets-fast-path.js";
import { decodeOptions } from "../helpers/decode-options.js";

// decoding.md's budget: "targets a streamed answer may list ... a scrape pool (active, or met only
// among the dropped targets, or named in droppedTargetCounts) counting as 32 targets ... reading stops,
// too_large". The pools named as keys of `droppedTargetCounts` (Prometheus 2.47+) were once not weighed:
// the reader took the whole object and pool-counts.ts made a series of every key. Measured in the daemon
// (Node 24): a 15 MB answer of 900,000 keys took the shared decoder thread ~14 s (2.9 s reading, 11.5 s
// finishing), pushed another scheduled source's polls past their timeout four times in a row, and ended
// the thread at 320 MiB.

const options = decodeOptions();

const answer = (pools: number) =>
  Buffer.from(
    JSON.stringify({
      status: "success",
      data: {
        activeTargets: [{ labels: { instance: "i" }, scrapePool: "p" }],
        droppedTargets: [],
        droppedTargetCounts: Object.fromEntries(Array.from({ length: pools }, (_, i) => [`pool-${i}`, 1])),
      },
    }),
  );

describe("TargetsDecoder: pools named only in droppedTargetCounts", () => {
  it("weighs them as the pools of a droppedTargets list: 20k of them are refused as too_large", () => {
    // The same 20k pools as a droppedTargets list are refused (targets-decoder.test.ts); as counts
    // they are served, 20k series.
    const decoder = new TargetsDecoder({ ...options, maxTargets: 200 });
    decoder.write(answer(20_000));
    const served = decoder.finish();
    expect(served?.series, "series served past the targets budget").toBeUndefined();
    expect(decoder.refusal()?.reason).toBe("too_large");
  });

  it("still serves a few pools' counts within the budget", () => {
    const decoder = new TargetsDecoder({ ...options, maxTargets: 200 });
    expect(decoder.write(answer(3))).toBe(true);
    expect(decoder.finish()?.series).toBeGreaterThan(3);
    expect(decoder.refusal()).toBeUndefined();
  });
});
