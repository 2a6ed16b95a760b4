import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bcryptCost, EqualCost } from "../../src/http/equal-cost.js";

const hashOf = (cost: number) => `$2y$${String(cost).padStart(2, "0")}$${".".repeat(53)}`;
const work = (hashes: string[]) => hashes.reduce((n, h) => n + 2 ** (bcryptCost(h) as number), 0);

describe("EqualCost", () => {
  it("pads any user's failed compare, and an unknown user's, to one compare at the highest cost", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 4, max: 31 }), { minLength: 1, maxLength: 6 }), (costs) => {
        const hashes = costs.map(hashOf);
        const plan = new EqualCost(hashes);
        const max = Math.max(...costs);
        expect(plan.max).toBe(max);
        for (const hash of hashes) expect(work([hash, ...plan.padding(hash)])).toBe(2 ** max);
        expect(work(plan.padding(undefined))).toBe(2 ** max);
      }),
    );
  });

  it("makes decoys bcrypt computes at their cost, the same one each time", () => {
    const plan = new EqualCost([hashOf(4), hashOf(7)]);
    const decoys = plan.padding(hashOf(4));
    expect(decoys.map(bcryptCost)).toEqual([4, 5, 6]);
    for (const decoy of decoys) expect(decoy).toMatch(/^\$2b\$\d\d\$[./A-Za-z0-9]{53}$/);
    expect(plan.padding(hashOf(4))).toEqual(decoys);
    expect(plan.padding(hashOf(7))).toEqual([]);
  });
});
