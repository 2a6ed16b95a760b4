import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { TARGETS } from "../../src/catalogue/families.js";
import { DOWN_REASONS } from "../../src/convert/scrape-error-reason.js";
import { convertTargets, type TargetsOptions } from "../../src/convert/targets.js";
import { targetsResponse } from "../../src/upstream/payloads.js";
import { fixtureJson, upstreamFixture } from "../helpers/fixtures.js";
import { type ModelTarget, prometheus3Targets } from "../helpers/prometheus-3-targets.js";
import { sampleValue } from "../helpers/samples.js";

const real = upstreamFixture("prometheus-targets.json", targetsResponse);
type RawTarget = {
  labels: { job: string; instance: string };
  scrapePool: string;
  health: string;
  lastScrape: string;
  lastScrapeDuration: number;
  scrapeInterval: string;
  scrapeTimeout: string;
};
const rawTargets = (
  fixtureJson("upstream/prometheus-targets.json") as {
    data: { activeTargets: RawTarget[]; droppedTargets: { discoveredLabels: { job: string } }[] };
  }
).data;
const find = (health: string) => rawTargets.activeTargets.find((t) => t.health === health) as RawTarget;
const labelsOf = (t: RawTarget) => ({ scrape_pool: t.scrapePool, job: t.labels.job, instance: t.labels.instance });
const perTarget: TargetsOptions = { perTarget: true, extraLabels: [] };

/** A targets answer as Prometheus 3.x gives it for these targets (all states shown). */
function answer(active: ModelTarget[], pools = [...new Set(active.map((t) => t.scrapePool))]) {
  const json = prometheus3Targets(
    { active, pools: pools.map((name) => ({ name, keptDropped: [], droppedCount: 0 })) },
    new URLSearchParams(),
  );
  return targetsResponse.parse(JSON.parse(json));
}

describe("convertTargets", () => {
  it("captured a payload with up, down and unknown targets and a dropped one", () => {
    expect(new Set(rawTargets.activeTargets.map((t) => t.health))).toEqual(new Set(["up", "down", "unknown"]));
    expect(rawTargets.droppedTargets.length).toBeGreaterThan(0);
  });

  it("maps health to 1 for up and 0 for down; a target not scraped yet has no up and no duration", () => {
    const out = convertTargets(real, perTarget);
    expect(sampleValue(out, TARGETS.up.name, labelsOf(find("up")))).toBe(1);
    expect(sampleValue(out, TARGETS.up.name, labelsOf(find("down")))).toBe(0);
    const never = find("unknown");
    const unknown = labelsOf(never);
    const of = (name: string) => out.get(name).filter((s) => s.labels.instance === unknown.instance);
    expect(of(TARGETS.up.name)).toEqual([]);
    expect(of(TARGETS.scrapeDuration.name)).toEqual([]);
    // Interval and timeout are configuration: known before the first scrape.
    expect([never.scrapeInterval, never.scrapeTimeout]).toEqual(["1h", "500ms"]);
    expect(sampleValue(out, TARGETS.scrapeInterval.name, unknown)).toBe(3600);
    expect(sampleValue(out, TARGETS.scrapeTimeout.name, unknown)).toBe(0.5);
    const scraped = rawTargets.activeTargets.filter((t) => t.health !== "unknown").length;
    expect(out.get(TARGETS.up.name)).toHaveLength(scraped);
    expect(out.get(TARGETS.scrapeDuration.name)).toHaveLength(scraped);
    expect(out.get(TARGETS.scrapeInterval.name)).toHaveLength(rawTargets.activeTargets.length);
  });

  it("gives a target VictoriaMetrics or vmagent has not scraped yet (down, no error, the epoch) no up and no duration", () => {
    const target = (instance: string, health: string, lastError: string, lastScrape: string) => ({
      labels: { job: "node", instance },
      scrapePool: "node",
      health,
      lastError,
      lastScrape,
      lastScrapeDuration: 0,
    });
    const out = convertTargets(
      targetsResponse.parse({
        status: "success",
        data: {
          activeTargets: [
            target("never:9100", "down", "", "1970-01-01T00:00:00Z"),
            target("refused:9100", "down", "connect: connection refused", "1970-01-01T00:00:00Z"),
            target("quiet:9100", "down", "", "2026-11-21T05:16:23Z"),
          ],
          droppedTargets: [],
        },
      }),
      perTarget,
    );
    const of = (name: string, instance: string) => out.get(name).filter((s) => s.labels.instance === instance);
    expect(of(TARGETS.up.name, "never:9100")).toEqual([]);
    expect(of(TARGETS.scrapeDuration.name, "never:9100")).toEqual([]);
    expect(of(TARGETS.lastScrape.name, "never:9100")).toEqual([]);
    // Down with an error, or down after a scrape: down.
    expect(sampleValue(out, TARGETS.up.name, { instance: "refused:9100" })).toBe(0);
    expect(sampleValue(out, TARGETS.scrapeDuration.name, { instance: "refused:9100" })).toBe(0);
    expect(sampleValue(out, TARGETS.up.name, { instance: "quiet:9100" })).toBe(0);
    expect(sampleValue(out, TARGETS.count.name, { scrape_pool: "node", health: "unknown" })).toBe(1);
    expect(sampleValue(out, TARGETS.count.name, { scrape_pool: "node", health: "down" })).toBe(2);
  });

  it("reports scrape duration, interval, timeout and last scrape time, and no time for a target never scraped", () => {
    const out = convertTargets(real, perTarget);
    const up = find("up");
    expect(sampleValue(out, TARGETS.scrapeDuration.name, labelsOf(up))).toBe(up.lastScrapeDuration);
    expect(sampleValue(out, TARGETS.lastScrape.name, labelsOf(up))).toBeCloseTo(Date.parse(up.lastScrape) / 1000, 2);
    // What the capture's Prometheus was configured with for this job.
    expect([up.scrapeInterval, up.scrapeTimeout]).toEqual(["1s", "500ms"]);
    expect(sampleValue(out, TARGETS.scrapeInterval.name, labelsOf(up))).toBe(1);
    expect(sampleValue(out, TARGETS.scrapeTimeout.name, labelsOf(up))).toBe(0.5);
    const unknown = find("unknown");
    expect(unknown.lastScrape).toBe("0001-01-01T00:00:00Z");
    expect(out.get(TARGETS.lastScrape.name).filter((s) => s.labels.instance === unknown.labels.instance)).toEqual([]);
  });

  it("counts targets per pool and health, zeros included, and dropped targets per pool from a 2.42 list", () => {
    const out = convertTargets(real, perTarget);
    for (const pool of new Set(rawTargets.activeTargets.map((t) => t.scrapePool))) {
      for (const health of ["up", "down", "unknown"]) {
        const expected = rawTargets.activeTargets.filter((t) => t.scrapePool === pool && t.health === health).length;
        expect(sampleValue(out, TARGETS.count.name, { scrape_pool: pool, health })).toBe(expected);
      }
      // 2.42 lists dropped targets without scrapePool: the discovered job label names the pool.
      const dropped = rawTargets.droppedTargets.filter((t) => t.discoveredLabels.job === pool).length;
      expect(sampleValue(out, TARGETS.dropped.name, { scrape_pool: pool })).toBe(dropped);
    }
    const total = out.get(TARGETS.dropped.name).reduce((n, s) => n + s.value, 0);
    expect(total).toBe(rawTargets.droppedTargets.length);
  });

  it("takes dropped counts per pool from droppedTargetCounts, complete where keep_dropped_targets cut the list", () => {
    const json = prometheus3Targets(
      {
        active: [{ scrapePool: "node", labels: { job: "node", instance: "a:9100" }, health: "up" }],
        pools: [
          { name: "node", keptDropped: [{ __address__: "x:1" }], droppedCount: 7 },
          { name: "kube", keptDropped: [], droppedCount: 0 },
        ],
      },
      new URLSearchParams(),
    );
    const out = convertTargets(targetsResponse.parse(JSON.parse(json)), perTarget);
    expect(sampleValue(out, TARGETS.dropped.name, { scrape_pool: "node" })).toBe(7);
    expect(sampleValue(out, TARGETS.dropped.name, { scrape_pool: "kube" })).toBe(0);
  });

  it("keeps only the per-pool figures when per_target is off", () => {
    const out = convertTargets(real, { perTarget: false, extraLabels: [] });
    for (const f of [TARGETS.up, TARGETS.scrapeDuration, TARGETS.lastScrape, TARGETS.collisions])
      expect(out.get(f.name)).toEqual([]);
    expect(out.get(TARGETS.count.name).length).toBeGreaterThan(0);
    expect(out.get(TARGETS.downByReason.name).length).toBeGreaterThan(0);
  });

  it("handles an answer without targets", () => {
    const out = convertTargets(
      targetsResponse.parse({ status: "success", data: { activeTargets: [], droppedTargets: [] } }),
      perTarget,
    );
    expect(out.get(TARGETS.count.name)).toEqual([]);
    expect(out.get(TARGETS.dropped.name)).toEqual([]);
  });
});

describe("colliding targets", () => {
  // A blackbox job probing one target with two modules: same pool, job and instance.
  const probes: ModelTarget[] = [
    {
      scrapePool: "blackbox",
      labels: { job: "blackbox", instance: "https://shop", module: "http_2xx" },
      health: "up",
      lastScrapeDuration: 0.2,
      scrapeTimeout: "10s",
    },
    {
      scrapePool: "blackbox",
      labels: { job: "blackbox", instance: "https://shop", module: "tcp" },
      health: "down",
      lastError: "context deadline exceeded",
      lastScrapeDuration: 5,
      scrapeTimeout: "5s",
    },
    { scrapePool: "blackbox", labels: { job: "blackbox", instance: "https://cart", module: "tcp" }, health: "up" },
  ];

  it("merge into one series that is down if any of them is down, counted as collisions", () => {
    const out = convertTargets(answer(probes), perTarget);
    const shop = { scrape_pool: "blackbox", job: "blackbox", instance: "https://shop" };
    expect(sampleValue(out, TARGETS.up.name, shop)).toBe(0);
    expect(sampleValue(out, TARGETS.scrapeDuration.name, shop)).toBe(5);
    expect(sampleValue(out, TARGETS.scrapeTimeout.name, shop)).toBe(5);
    expect(out.get(TARGETS.up.name)).toHaveLength(2);
    expect(sampleValue(out, TARGETS.collisions.name, { scrape_pool: "blackbox" })).toBe(1);
    // The counts still see every target.
    expect(sampleValue(out, TARGETS.count.name, { scrape_pool: "blackbox", health: "up" })).toBe(2);
  });

  it("merge with a target not scraped yet adding nothing: up with an up one, down with a down one", () => {
    const never: ModelTarget = {
      scrapePool: "blackbox",
      labels: { job: "blackbox", instance: "https://new", module: "icmp" },
      health: "unknown",
    };
    const scraped = (health: "up" | "down", lastScrapeDuration: number): ModelTarget => ({
      scrapePool: "blackbox",
      labels: { job: "blackbox", instance: "https://new", module: "http_2xx" },
      health,
      lastScrapeDuration,
      ...(health === "down" ? { lastError: "context deadline exceeded" } : {}),
    });
    const target = { scrape_pool: "blackbox", job: "blackbox", instance: "https://new" };
    for (const [other, up] of [
      [scraped("up", 0.2), 1],
      [scraped("down", 5), 0],
    ] as const) {
      for (const targets of [
        [never, other],
        [other, never],
      ]) {
        const out = convertTargets(answer(targets), perTarget);
        expect(sampleValue(out, TARGETS.up.name, target)).toBe(up);
        expect(sampleValue(out, TARGETS.scrapeDuration.name, target)).toBe(other.lastScrapeDuration);
        expect(sampleValue(out, TARGETS.collisions.name, { scrape_pool: "blackbox" })).toBe(1);
      }
    }
    // Two targets not scraped yet: one series, with its interval and timeout, no up.
    const out = convertTargets(answer([never, { ...never, labels: { ...never.labels, module: "tcp" } }]), perTarget);
    expect(out.get(TARGETS.up.name)).toEqual([]);
    expect(out.get(TARGETS.scrapeDuration.name)).toEqual([]);
    expect(sampleValue(out, TARGETS.scrapeInterval.name, target)).toBe(15);
    expect(sampleValue(out, TARGETS.collisions.name, { scrape_pool: "blackbox" })).toBe(1);
  });

  it("merge the same whichever comes first", () => {
    const a = convertTargets(answer(probes), perTarget);
    const b = convertTargets(answer([...probes].reverse()), perTarget);
    expect(b.get(TARGETS.up.name).sort(byInstance)).toEqual(a.get(TARGETS.up.name).sort(byInstance));
    expect(b.get(TARGETS.scrapeDuration.name).sort(byInstance)).toEqual(
      a.get(TARGETS.scrapeDuration.name).sort(byInstance),
    );
  });

  it("are told apart by targets.labels", () => {
    const out = convertTargets(answer(probes), { perTarget: true, extraLabels: [{ from: "module", to: "module" }] });
    expect(out.get(TARGETS.up.name)).toHaveLength(3);
    expect(sampleValue(out, TARGETS.up.name, { instance: "https://shop", module: "tcp" })).toBe(0);
    expect(sampleValue(out, TARGETS.up.name, { instance: "https://shop", module: "http_2xx" })).toBe(1);
    expect(sampleValue(out, TARGETS.collisions.name, { scrape_pool: "blackbox" })).toBe(0);
  });

  it("copy a UTF-8 target label under its served name, and an absent one as an empty value", () => {
    const targets: ModelTarget[] = [
      { scrapePool: "k", labels: { job: "k", instance: "a", "app.kubernetes.io/name": "shop" }, health: "up" },
      { scrapePool: "k", labels: { job: "k", instance: "b" }, health: "up" },
    ];
    const extraLabels = [{ from: "app.kubernetes.io/name", to: "app_kubernetes_io_name" }];
    const out = convertTargets(answer(targets), { perTarget: true, extraLabels });
    expect(sampleValue(out, TARGETS.up.name, { instance: "a", app_kubernetes_io_name: "shop" })).toBe(1);
    expect(sampleValue(out, TARGETS.up.name, { instance: "b", app_kubernetes_io_name: "" })).toBe(1);
  });

  it("never yield two series with one name and label set, and never hide a down target (property)", () => {
    const value = fc.constantFrom("a", "b", "", 'q"\\', "ü");
    const target = fc.record({
      scrapePool: fc.constantFrom("p1", "p2"),
      labels: fc.record({ job: value, instance: value, module: value }, { requiredKeys: [] }),
      health: fc.constantFrom("up", "down", "unknown") as fc.Arbitrary<ModelTarget["health"]>,
      lastScrapeDuration: fc.double({ min: 0, max: 30, noNaN: true }),
    });
    fc.assert(
      fc.property(fc.array(target, { maxLength: 40 }), fc.boolean(), (targets, withModule) => {
        const extraLabels = withModule ? [{ from: "module", to: "module" }] : [];
        const out = convertTargets(answer(targets), { perTarget: true, extraLabels });
        for (const [name, samples] of out.families) {
          const keys = samples.map((s) => JSON.stringify(Object.entries(s.labels).sort()));
          expect(new Set(keys).size, name).toBe(keys.length);
        }
        // Merged away plus published is every target (every series has an interval).
        const collisions = out.get(TARGETS.collisions.name).reduce((n, s) => n + s.value, 0);
        expect(out.get(TARGETS.scrapeInterval.name).length + collisions).toBe(targets.length);
        const behind = (s: { labels: Record<string, string> }) =>
          targets.filter(
            (t) =>
              t.scrapePool === s.labels.scrape_pool &&
              (t.labels.job ?? "") === s.labels.job &&
              (t.labels.instance ?? "") === s.labels.instance &&
              (!withModule || (t.labels.module ?? "") === s.labels.module),
          );
        // A series has an up when a target behind it was scraped, and is up only if every scraped one is up.
        const ups = new Set(out.get(TARGETS.up.name).map((s) => JSON.stringify(s.labels)));
        for (const s of out.get(TARGETS.scrapeInterval.name)) {
          const scraped = behind(s).filter((t) => t.health !== "unknown");
          expect(behind(s).length).toBeGreaterThan(0);
          expect(ups.has(JSON.stringify(s.labels))).toBe(scraped.length > 0);
        }
        for (const s of out.get(TARGETS.up.name)) {
          const scraped = behind(s).filter((t) => t.health !== "unknown");
          expect(scraped.length).toBeGreaterThan(0);
          expect(s.value).toBe(scraped.every((t) => t.health === "up") ? 1 : 0);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe("what one target can get wrong", () => {
  it("a target without job or instance is published with empty values, the others unharmed", () => {
    const json = JSON.parse(
      prometheus3Targets(
        {
          active: [
            { scrapePool: "node", labels: { job: "node", instance: "a:9100" }, health: "up" },
            { scrapePool: "node", labels: { instance: "b:9100" }, health: "up" },
            { scrapePool: "node", labels: {}, health: "down" },
          ],
          pools: [],
        },
        new URLSearchParams(),
      ),
    );
    // Fields a buggy or older server might leave out or mistype. Targets are found by their instance:
    // a server lists a pool's targets in a new order on every request.
    const target = (instance?: string) =>
      json.data.activeTargets.find((t: { labels: { instance?: string } }) => t.labels.instance === instance);
    delete target("a:9100").lastScrape;
    target("b:9100").lastScrapeDuration = "fast";
    target(undefined).health = null;
    json.data.activeTargets.push(null, "garbage");
    const parsed = targetsResponse.safeParse(json);
    expect(parsed.success).toBe(true);
    if (!parsed.success) return;
    const out = convertTargets(parsed.data, perTarget);
    expect(sampleValue(out, TARGETS.up.name, { job: "node", instance: "a:9100" })).toBe(1);
    expect(sampleValue(out, TARGETS.up.name, { job: "", instance: "b:9100" })).toBe(1);
    // A health that is no string counts as unknown: no up, as for a target not scraped yet.
    expect(out.get(TARGETS.up.name).filter((s) => s.labels.instance === "")).toEqual([]);
    expect(sampleValue(out, TARGETS.scrapeInterval.name, { job: "", instance: "" })).toBe(15);
    expect(sampleValue(out, TARGETS.count.name, { scrape_pool: "node", health: "unknown" })).toBe(1);
    expect(out.get(TARGETS.lastScrape.name)).toHaveLength(2);
    // a:9100's; b:9100's is no number, and the unknown one has none.
    expect(out.get(TARGETS.scrapeDuration.name)).toHaveLength(1);
  });
});

describe("down targets by reason", () => {
  it("classify every down target's error per pool, every class present with zeros", () => {
    const down = (lastError: string): ModelTarget => ({
      scrapePool: "app",
      labels: { job: "app", instance: lastError.slice(0, 20) },
      health: "down",
      lastError,
    });
    const out = convertTargets(
      answer([
        down('Get "http://10.0.0.1:8080/metrics": context deadline exceeded'),
        down('Get "http://10.0.0.2:8080/metrics": dial tcp 10.0.0.2:8080: connect: connection refused'),
        down("server returned HTTP status 503 Service Unavailable"),
        { scrapePool: "app", labels: { job: "app", instance: "ok" }, health: "up", lastError: "" },
      ]),
      perTarget,
    );
    const by = (reason: string) => sampleValue(out, TARGETS.downByReason.name, { scrape_pool: "app", reason });
    expect(by("timeout")).toBe(1);
    expect(by("connection_refused")).toBe(1);
    expect(by("http_status")).toBe(1);
    expect(out.get(TARGETS.downByReason.name)).toHaveLength(DOWN_REASONS.length);
    expect(out.get(TARGETS.downByReason.name).reduce((n, s) => n + s.value, 0)).toBe(3);
  });
});

const byInstance = (a: { labels: Record<string, string> }, b: { labels: Record<string, string> }) =>
  (a.labels.instance ?? "").localeCompare(b.labels.instance ?? "");
