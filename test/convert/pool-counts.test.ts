import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { TARGETS } from "../../src/catalogue/families.js";
import { PoolCounts, TARGET_HEALTHS } from "../../src/convert/pool-counts.js";
import { healthOf } from "../../src/convert/time.js";

const target = fc.record({
  scrapePool: fc.constantFrom("a", "b", "c"),
  health: fc.constantFrom("up", "up", "up", "down", "unknown", "starting", "weird"),
  lastError: fc.constantFrom("", "EOF", "context deadline exceeded"),
  lastScrape: fc.constantFrom("2026-11-26T17:00:00Z", "0001-01-01T00:00:00Z"),
});

describe("PoolCounts", () => {
  it("counts each pool's targets by health, whatever their order, every health named in the order first met", () => {
    fc.assert(
      fc.property(fc.array(target, { maxLength: 60 }), (targets) => {
        const counts = new PoolCounts();
        for (const t of targets) counts.add(t);
        const got = counts.samples(undefined, false).get(TARGETS.count.name);
        // What a count per target gives: every pool's known healths first (zero included), then others as met.
        const expected = new Map<string, Map<string, number>>();
        for (const t of targets) {
          const pool = expected.get(t.scrapePool) ?? new Map(TARGET_HEALTHS.map((h) => [h, 0]));
          expected.set(t.scrapePool, pool);
          const health = healthOf(t);
          pool.set(health, (pool.get(health) ?? 0) + 1);
        }
        const want = [...expected]
          .sort(([a], [b]) => (a < b ? -1 : 1))
          .flatMap(([pool, byHealth]) => [...byHealth].map(([health, n]) => [pool, health, n]));
        expect(got.map((s) => [s.labels.scrape_pool, s.labels.health, s.value])).toEqual(want);
        // Asking again counts nothing twice.
        expect(counts.samples(undefined, false).get(TARGETS.count.name)).toEqual(got);
      }),
      { numRuns: 300 },
    );
  });
});
