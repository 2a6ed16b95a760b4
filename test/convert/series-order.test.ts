import { describe, expect, it } from "vitest";
import { rng, targetsAnswer } from "../../scripts/bench/generate.js";
import { stableOrder } from "../../src/convert/series-order.js";
import { type DecodeOptions, decodeAnswer } from "../../src/poll/decode.js";

const options: DecodeOptions = {
  replicaFacts: false,
  perTarget: true,
  limit: undefined,
  targetLabels: [{ from: "namespace", to: "namespace" }],
  labelPrefix: 'source="s"',
  maxBytes: 2 ** 28,
};

function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

/** The rendered families of an answer, fast path and reference path, as text. */
function rendered(text: string, reference: boolean) {
  const result = decodeAnswer(
    { endpoint: "targets", body: Buffer.from(text), encoding: undefined, options },
    { reference },
  );
  if (!result.ok) throw new Error(result.message);
  return result.families.map(([name, lines]) => [name, Buffer.from(lines).toString()]);
}

describe("series order", () => {
  it("renders the same bytes for the same targets listed in any order, pools and targets alike", () => {
    const answer = JSON.parse(targetsAnswer(400)) as { data: { activeTargets: { scrapePool: string }[] } };
    const original = JSON.stringify(answer);
    const random = rng(7);
    const expected = rendered(original, false);
    expect(expected.length).toBeGreaterThan(5);
    for (let round = 0; round < 5; round++) {
      answer.data.activeTargets = shuffled(answer.data.activeTargets, random);
      const reordered = JSON.stringify(answer);
      expect(reordered).not.toBe(original);
      expect(rendered(reordered, false)).toEqual(expected);
      expect(rendered(reordered, true)).toEqual(expected);
    }
  });

  it("orders series by pool, and series whose label hashes are equal by their labels", () => {
    // Two label sets with the same 32-bit FNV-1a hash, found by brute force.
    const seen = new Map<number, string>();
    let pair: [string, string] | undefined;
    for (let i = 0; !pair; i++) {
      const pairs = `instance="i${i}"`;
      let h = 0x811c9dc5;
      for (let k = 0; k < pairs.length; k++) h = Math.imul(h ^ pairs.charCodeAt(k), 0x01000193);
      const other = seen.get(h >>> 0);
      if (other !== undefined) pair = [other, pairs];
      else seen.set(h >>> 0, pairs);
    }
    const a = [`b/${pair[0]}`, "a/x", `b/${pair[1]}`, "a/y"];
    const orders = [a, [...a].reverse(), shuffled(a, rng(1)), shuffled(a, rng(2))].map((list) => {
      const pools = list.map((s) => s.slice(0, 1));
      const pairs = list.map((s) => s.slice(2));
      return [...stableOrder(pairs, pools)].map((i) => list[i]);
    });
    for (const order of orders) expect(order).toEqual(orders[0]);
    const first = orders[0] as string[];
    expect(first.slice(0, 2).every((s) => s.startsWith("a/"))).toBe(true);
    expect(first.slice(2)).toEqual([`b/${[...pair].sort()[0]}`, `b/${[...pair].sort()[1]}`]);
  });
});
