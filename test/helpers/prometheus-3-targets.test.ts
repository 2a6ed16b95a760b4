import { describe, expect, it } from "vitest";
import { type ModelServer, type ModelTarget, prometheus3Targets } from "./prometheus-3-targets.js";

// The Prometheus 3.x model answers as the server does from one request to the next (its comments
// say where in Prometheus's code): the same targets with the same bytes, pools sorted, each pool's
// targets in a new order, scrape times one interval later.

interface Answered {
  discoveredLabels: Record<string, string>;
  labels: Record<string, string>;
  scrapePool: string;
  scrapeUrl: string;
  globalUrl: string;
  lastError: string;
  lastScrape: string;
  lastScrapeDuration: number;
  health: string;
  scrapeInterval: string;
}

// Pools configured unsorted; one target never scraped, one with a fixed duration, two intervals.
const active: ModelTarget[] = ["zeta", "alpha", "mid"].flatMap((pool) =>
  Array.from(
    { length: 20 },
    (_, i): ModelTarget => ({
      scrapePool: pool,
      labels: { job: pool, instance: `${pool}-${i}:9100`, az: `z${i % 3}` },
      health: i === 0 ? "unknown" : i % 5 === 0 ? "down" : "up",
      ...(i % 5 === 0 && i > 0 ? { lastError: "connection refused" } : {}),
      ...(i === 1 ? { lastScrapeDuration: 0.25 } : {}),
      scrapeInterval: pool === "mid" ? "1m30s" : "15s",
    }),
  ),
);
const server: ModelServer = {
  active,
  pools: ["zeta", "alpha"].map((name) => ({ name, keptDropped: [{ job: name, __address__: "x:1" }], droppedCount: 3 })),
};
const request = () =>
  (
    JSON.parse(prometheus3Targets(server, new URLSearchParams())) as {
      data: {
        activeTargets: Answered[];
        droppedTargets: { discoveredLabels: Record<string, string>; scrapePool: string }[];
        droppedTargetCounts: Record<string, number>;
      };
    }
  ).data;
const [first, second] = [request(), request()] as const;
const identity = (t: Answered) =>
  JSON.stringify([t.discoveredLabels, t.labels, t.scrapePool, t.scrapeUrl, t.globalUrl, t.scrapeInterval]);

describe("the Prometheus 3.x model over time", () => {
  it("lists the same targets with the same labels, pool and URLs in two consecutive answers", () => {
    expect(first.activeTargets).toHaveLength(active.length);
    expect(new Set(second.activeTargets.map(identity))).toEqual(new Set(first.activeTargets.map(identity)));
    expect(new Set(first.activeTargets.map(identity)).size).toBe(active.length);
  });

  it("lists pools sorted, each pool's targets together, label names sorted", () => {
    for (const answer of [first, second]) {
      const runs = answer.activeTargets.map((t) => t.scrapePool).filter((p, i, all) => i === 0 || all[i - 1] !== p);
      expect(runs).toEqual(["alpha", "mid", "zeta"]);
      expect(answer.droppedTargets.map((t) => t.scrapePool)).toEqual(["alpha", "zeta"]);
      expect(Object.keys(answer.droppedTargetCounts)).toEqual(["alpha", "zeta"]);
      for (const t of answer.activeTargets) expect(Object.keys(t.labels)).toEqual(["az", "instance", "job"]);
      for (const t of answer.droppedTargets) expect(Object.keys(t.discoveredLabels)).toEqual(["__address__", "job"]);
    }
  });

  it("lists each pool's targets in a new order on every request", () => {
    for (const pool of ["alpha", "mid", "zeta"]) {
      const order = (answer: typeof first) =>
        answer.activeTargets.filter((t) => t.scrapePool === pool).map((t) => t.labels.instance);
      expect(order(second)).not.toEqual(order(first));
      expect([...order(second)].sort()).toEqual([...order(first)].sort());
    }
  });

  it("moves lastScrape on by the target's interval; the duration changes unless the model fixes it", () => {
    const later = new Map(second.activeTargets.map((t) => [t.scrapeUrl, t]));
    for (const t of first.activeTargets) {
      const next = later.get(t.scrapeUrl) as Answered;
      expect([next.health, next.lastError]).toEqual([t.health, t.lastError]);
      if (t.health === "unknown") {
        expect([t.lastScrape, next.lastScrape, t.lastScrapeDuration, next.lastScrapeDuration]).toEqual([
          "0001-01-01T00:00:00Z",
          "0001-01-01T00:00:00Z",
          0,
          0,
        ]);
        continue;
      }
      expect(t.lastScrape).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d*[1-9]Z$/); // Go's RFC 3339 with nanoseconds
      const interval = t.scrapePool === "mid" ? 90_000 : 15_000;
      expect(Date.parse(next.lastScrape) - Date.parse(t.lastScrape)).toBe(interval);
      expect(next.lastScrape.slice(19)).toBe(t.lastScrape.slice(19));
      if (t.labels.instance?.endsWith("-1:9100"))
        expect([t.lastScrapeDuration, next.lastScrapeDuration]).toEqual([0.25, 0.25]);
      else expect(next.lastScrapeDuration).not.toBe(t.lastScrapeDuration);
    }
  });

  it("counts requests per server: a new server starts again at its first answer", () => {
    const again: ModelServer = { active, pools: server.pools };
    expect(prometheus3Targets(again, new URLSearchParams())).toBe(JSON.stringify({ status: "success", data: first }));
  });
});
