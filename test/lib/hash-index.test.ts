import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { HashIndex } from "../../src/lib/hash-index.js";

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
});
