import { describe, expect, it } from "vitest";
import { targetsAnswer } from "../../scripts/bench/generate.js";
import { seriesAtLeast } from "../../src/convert/pool-counts.js";
import { TargetsDecoder } from "../../src/poll/targets-fast-path.js";
import { decodeOptions } from "../helpers/decode-options.js";

// The decoder holds targets (copies of what the reader read) and adds them to its table 16 at a time
// (targets-fast-path.ts, TargetTable.warm). Held or not, an answer is refused on the same target, for
// the same reason, with the same counts, and every target is added from bytes still as they were read.

const options = decodeOptions();
/** The series of one pool, before any of its targets'. */
const pool = seriesAtLeast(0, 1, true, true);
const target = (instance: string, scrapePool = "p") =>
  JSON.stringify({ labels: { instance }, scrapePool, health: "up" });
const answer = (targets: string[]) => `{"status":"success","data":{"activeTargets":[${targets.join(",")}]}}`;
const refusedAt = (series: number, limit: number) => ({
  reason: "series_limit",
  message: `answer gives at least ${series} series, more than series_limit ${limit}`,
});

describe("targets held before they are added: refusals as each were added when read", () => {
  it("series_limit passed at the third target, not the targets budget passed at the sixth", () => {
    const decoder = new TargetsDecoder({ ...options, seriesLimit: pool + 2, maxTargets: 37 });
    decoder.write(Buffer.from(answer(Array.from({ length: 10 }, (_, i) => target(`i${i}`)))));
    expect(decoder.finish()).toBeUndefined();
    expect(decoder.refusal()).toEqual(refusedAt(pool + 3, pool + 2));
  });

  it("series_limit passed before the reader gives up on the rest (not JSON): still series_limit", () => {
    const notJson = '{"labels":{"instance":"x"},"scrapePool":"p",}';
    const decoder = new TargetsDecoder({ ...options, seriesLimit: pool + 2 });
    decoder.write(Buffer.from(answer([target("i0"), target("i1"), target("i2"), target("i3"), notJson])));
    expect(decoder.finish()).toBeUndefined();
    expect(decoder.refusal()?.reason).toBe("series_limit");
  });

  it("counts what was read up to the refusing target: not the pools of targets after it", () => {
    const decoder = new TargetsDecoder({ ...options, seriesLimit: pool + 2 });
    const targets = [target("i0"), target("i1"), target("i2"), target("i3", "q"), target("i4", "r")];
    decoder.write(Buffer.from(answer(targets)));
    expect(decoder.finish()).toBeUndefined();
    expect(decoder.refusal()).toEqual(refusedAt(pool + 3, pool + 2));
  });
});

describe("targets held before they are added: their bytes", () => {
  it("gives what one whole write gives, however the answer is cut and with another decoder's pieces in between", () => {
    const decode = (bytes: Buffer, prefix?: string) => {
      const decoder = new TargetsDecoder(prefix ? { ...options, labelPrefix: prefix } : options);
      decoder.write(bytes);
      return decoder.finish();
    };
    const a = Buffer.from(targetsAnswer(700));
    const b = Buffer.from(targetsAnswer(500).replaceAll('"job":"', '"job":"other-'));
    const wantA = decode(a);
    const wantB = decode(b, 'source="q"');
    expect(wantA?.series).toBeGreaterThan(700);
    for (const size of [13, 977, 4096, 65_537, 300_000]) {
      // Two decoders of one thread share the WebAssembly reader's window: their pieces taking turns.
      const da = new TargetsDecoder(options);
      const db = new TargetsDecoder({ ...options, labelPrefix: 'source="q"' });
      for (let at = 0; at < Math.max(a.length, b.length); at += size) {
        if (at < a.length) expect(da.write(a.subarray(at, at + size))).toBe(true);
        if (at < b.length) expect(db.write(b.subarray(at, at + size))).toBe(true);
      }
      expect(da.finish()).toEqual(wantA);
      expect(db.finish()).toEqual(wantB);
    }
  }, 120_000);
});
