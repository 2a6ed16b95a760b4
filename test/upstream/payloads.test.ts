import { readdirSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { activeTargetReference, normaliseActiveTarget, targetsResponse } from "../../src/upstream/payloads.js";
import { fixtureText } from "../helpers/fixtures.js";

// The hand-written target check must give what the zod schema (the reference) gives, for every input.

const FIELDS = [
  "labels",
  "scrapePool",
  "health",
  "lastError",
  "lastScrape",
  "lastScrapeDuration",
  "scrapeInterval",
  "scrapeTimeout",
  "discoveredLabels",
  "scrapeUrl",
];
/** Targets as JSON.parse can produce them: the real fields with values of any JSON type, or none. */
const anyValue = fc.oneof(
  fc.jsonValue(),
  fc.string(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.dictionary(fc.string(), fc.oneof(fc.string(), fc.jsonValue())),
  fc.dictionary(fc.constantFrom("job", "instance", "__proto__", "constructor", "toString"), fc.string()),
);
const target = fc.oneof(
  fc.dictionary(fc.constantFrom(...FIELDS), anyValue),
  fc.record({
    labels: fc.dictionary(fc.string(), fc.string()),
    scrapePool: fc.string(),
    health: fc.constantFrom("up", "down", "unknown"),
    lastError: fc.string(),
    lastScrape: fc.string(),
    lastScrapeDuration: fc.double({ noNaN: true, noDefaultInfinity: true }),
  }),
  fc.jsonValue(),
);

describe("normaliseActiveTarget", () => {
  it("agrees with the zod reference on random targets (types, missing fields, unknown fields, odd keys)", () => {
    fc.assert(
      fc.property(target, (input) => {
        // Through JSON, as real answers arrive (own "__proto__" keys included).
        const parsed: unknown = JSON.parse(JSON.stringify(input) ?? "null");
        expect(normaliseActiveTarget(parsed)).toEqual(activeTargetReference.parse(parsed));
      }),
      { numRuns: 5000 },
    );
  });

  it("agrees with the reference on every target of the recorded answers", () => {
    const names = [
      "upstream/prometheus-targets.json",
      ...readdirSync(new URL("../fixtures/upstream/groups/", import.meta.url))
        .filter((f) => f.includes("targets"))
        .map((f) => `upstream/groups/${f}`),
    ];
    let checked = 0;
    for (const name of names) {
      const answer = JSON.parse(fixtureText(name)) as { data: { activeTargets: unknown[] } };
      for (const t of answer.data.activeTargets) {
        expect(normaliseActiveTarget(t)).toEqual(activeTargetReference.parse(t));
        checked++;
      }
      expect(targetsResponse.parse(answer).data.activeTargets).toHaveLength(answer.data.activeTargets.length);
    }
    expect(checked).toBeGreaterThan(3);
  });
});
