import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { HashIndex, MAX_PROBE_STEPS, ProbeLimitError } from "../../src/lib/hash-index.js";

describe("HashIndex", () => {
  it("finds every entry added under its hash, through growth and equal hashes, and nothing else", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), { maxLength: 3000 }), (hashes) => {
        const index = new HashIndex((e) => hashes[e] as number);
        for (const [e, h] of hashes.entries()) index.add(e, h);
        const found = (h: number) => {
          const out: number[] = [];
          for (let at = index.first(h); index.entry(at) >= 0; at = index.next(at))
            if (hashes[index.entry(at)] === h) out.push(index.entry(at));
          return out.sort((a, b) => a - b);
        };
        for (const h of new Set(hashes)) {
          expect(found(h)).toEqual(hashes.flatMap((x, e) => (x === h ? [e] : [])));
        }
        expect(found(12345678).every((e) => hashes[e] === 12345678)).toBe(true);
        // At most half full: a probe sequence always ends.
        expect(index.bytes).toBeGreaterThanOrEqual(2 * 4 * hashes.length);
      }),
      { numRuns: 200 },
    );
  });

  it("finds every entry under its new number after renumber, and grows on from the new numbers", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), { minLength: 1, maxLength: 2000 }).chain((hashes) =>
          fc.tuple(
            fc.constant(hashes),
            fc.shuffledSubarray(
              hashes.map((_, e) => e),
              { minLength: hashes.length },
            ),
          ),
        ),
        ([hashes, order]) => {
          // Entry e becomes renumbered[e]; the hashes follow their entries.
          const renumbered = new Int32Array(hashes.length);
          for (const [k, e] of order.entries()) renumbered[e] = k;
          const now = new Array<number>(hashes.length);
          for (const [e, h] of hashes.entries()) now[renumbered[e] as number] = h;
          let hashOf = (e: number) => hashes[e] as number;
          const index = new HashIndex((e) => hashOf(e));
          for (const [e, h] of hashes.entries()) index.add(e, h);
          index.renumber(renumbered);
          hashOf = (e) => now[e] as number;
          index.add(hashes.length, 99); // grows on from the new numbers
          now.push(99);
          for (const [e, h] of now.entries()) {
            const found: number[] = [];
            for (let at = index.first(h); index.entry(at) >= 0; at = index.next(at)) found.push(index.entry(at));
            expect(found).toContain(e);
          }
        },
      ),
      { numRuns: 100 },
    );
  });

  it("never walks a probe sequence past MAX_PROBE_STEPS: hashes chosen to collide throw, random ones do not", () => {
    const walk = (index: HashIndex, h: number) => {
      let steps = 0;
      for (let at = index.first(h); index.entry(at) >= 0; at = index.next(at)) steps++;
      return steps;
    };
    // One hash for every entry (a flooding upstream): the lookups walk all entries before, so the bound is met.
    const flooded = new HashIndex(() => 7);
    expect(() => {
      for (let e = 0; e < 4 * MAX_PROBE_STEPS; e++) {
        walk(flooded, 7);
        flooded.add(e, 7);
      }
    }).toThrow(ProbeLimitError);
    // As many entries as the bound, then one step further: exactly where it throws.
    const full = new HashIndex(() => 7);
    for (let e = 0; e < MAX_PROBE_STEPS; e++) full.add(e, 7);
    expect(walk(full, 7)).toBe(MAX_PROBE_STEPS);
    full.add(MAX_PROBE_STEPS, 7);
    expect(() => walk(full, 7)).toThrow(ProbeLimitError);
    // 500,000 entries of hashes nobody chose (a mixing function of the entry): every lookup well within the bound.
    const mixed = (e: number) => {
      let h = Math.imul(e ^ 0x5bd1e995, 0x85ebca6b);
      h ^= h >>> 13;
      h = Math.imul(h, 0xc2b2ae35);
      return h ^ (h >>> 16);
    };
    const random = new HashIndex(mixed);
    let longest = 0;
    for (let e = 0; e < 500_000; e++) {
      longest = Math.max(longest, walk(random, mixed(e)));
      random.add(e, mixed(e));
    }
    expect(longest).toBeLessThan(MAX_PROBE_STEPS / 4);
  });
});
