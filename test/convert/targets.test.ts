import { describe, expect, it } from "vitest";
import { TARGETS } from "../../src/convert/families.js";
import { convertTargets } from "../../src/convert/targets.js";
import { targetsResponse } from "../../src/upstream/payloads.js";
import { fixtureJson, upstreamFixture } from "../helpers/fixtures.js";
import { sampleValue } from "../helpers/samples.js";

const real = upstreamFixture("prometheus-targets.json", targetsResponse);
type RawTarget = {
  labels: { job: string; instance: string };
  scrapePool: string;
  health: string;
  lastScrape: string;
  lastScrapeDuration: number;
};
const rawTargets = (
  fixtureJson("upstream/prometheus-targets.json") as { data: { activeTargets: RawTarget[]; droppedTargets: unknown[] } }
).data;
const find = (health: string) => rawTargets.activeTargets.find((t) => t.health === health) as RawTarget;
const labelsOf = (t: RawTarget) => ({ scrape_pool: t.scrapePool, job: t.labels.job, instance: t.labels.instance });

describe("convertTargets", () => {
  it("captured a payload with up, down and unknown targets and a dropped one", () => {
    expect(new Set(rawTargets.activeTargets.map((t) => t.health))).toEqual(new Set(["up", "down", "unknown"]));
    expect(rawTargets.droppedTargets.length).toBeGreaterThan(0);
  });

  it("maps health to 1 for up and 0 for down and unknown", () => {
    const out = convertTargets(real, true);
    expect(sampleValue(out, TARGETS.up.name, labelsOf(find("up")))).toBe(1);
    expect(sampleValue(out, TARGETS.up.name, labelsOf(find("down")))).toBe(0);
    expect(sampleValue(out, TARGETS.up.name, labelsOf(find("unknown")))).toBe(0);
    expect(out.get(TARGETS.up.name)).toHaveLength(rawTargets.activeTargets.length);
  });

  it("reports scrape duration and last scrape time, and no time for a target never scraped", () => {
    const out = convertTargets(real, true);
    const up = find("up");
    expect(sampleValue(out, TARGETS.scrapeDuration.name, labelsOf(up))).toBe(up.lastScrapeDuration);
    expect(sampleValue(out, TARGETS.lastScrape.name, labelsOf(up))).toBeCloseTo(Date.parse(up.lastScrape) / 1000, 2);
    const unknown = find("unknown");
    expect(unknown.lastScrape).toBe("0001-01-01T00:00:00Z");
    expect(out.get(TARGETS.lastScrape.name).filter((s) => s.labels.instance === unknown.labels.instance)).toEqual([]);
  });

  it("counts targets per pool and health, zeros included, and the dropped targets", () => {
    const out = convertTargets(real, true);
    for (const pool of new Set(rawTargets.activeTargets.map((t) => t.scrapePool))) {
      for (const health of ["up", "down", "unknown"]) {
        const expected = rawTargets.activeTargets.filter((t) => t.scrapePool === pool && t.health === health).length;
        expect(sampleValue(out, TARGETS.count.name, { scrape_pool: pool, health })).toBe(expected);
      }
    }
    expect(sampleValue(out, TARGETS.dropped.name)).toBe(rawTargets.droppedTargets.length);
  });

  it("keeps only the counts when per_target is off", () => {
    const out = convertTargets(real, false);
    expect(out.get(TARGETS.up.name)).toEqual([]);
    expect(out.get(TARGETS.scrapeDuration.name)).toEqual([]);
    expect(out.get(TARGETS.lastScrape.name)).toEqual([]);
    expect(out.get(TARGETS.count.name).length).toBeGreaterThan(0);
  });

  it("handles an answer without targets", () => {
    const out = convertTargets(
      targetsResponse.parse({ status: "success", data: { activeTargets: [], droppedTargets: [] } }),
      true,
    );
    expect(out.get(TARGETS.count.name)).toEqual([]);
    expect(sampleValue(out, TARGETS.dropped.name)).toBe(0);
  });
});
