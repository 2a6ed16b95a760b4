import { TARGETS } from "../catalogue/families.js";
import type { ActiveTarget, TargetsResponse } from "../upstream/payloads.js";
import { wellFormed } from "./label-pairs.js";
import { SampleSet } from "./samples.js";
import { classifyScrapeError, DOWN_REASONS } from "./scrape-error-reason.js";
import { healthOf } from "./time.js";

/** Health values Prometheus reports; each pool gets a count for all of them, zeros included. */
export const TARGET_HEALTHS = ["up", "down", "unknown"] as const;

/** What a targets answer says of one scrape pool. */
export interface PoolSummary {
  byHealth: Map<string, number>;
  downBy: Map<string, number>;
  /** Targets whose series merged with another's (the same labels). */
  collisions: number;
}

export type DroppedTargets = Pick<TargetsResponse["data"], "droppedTargets" | "droppedTargetCounts">;

/** What a target is counted by. */
export type CountedTarget = Pick<ActiveTarget, "scrapePool" | "health" | "lastError" | "lastScrape">;

/**
 * The fewest series an answer gives, from what was met so far: each distinct target series has an up,
 * and each pool a count per health and per down reason, its dropped count (where published) and its
 * collisions.
 */
export function seriesAtLeast(targetSeries: number, pools: number, perTarget: boolean, dropped = true): number {
  const perPool = TARGET_HEALTHS.length + DOWN_REASONS.length + (dropped ? 1 : 0) + (perTarget ? 1 : 0);
  return targetSeries + pools * perPool;
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The per-pool figures of a targets answer, counted one active target at a time. */
export class PoolCounts {
  private readonly pools = new Map<string, PoolSummary>();
  /** The pool of the last target, as the answer named it: an answer lists a pool's targets together. */
  private lastRaw: string | undefined;
  private last: PoolSummary | undefined;
  /**
   * Targets of the same pool and health in a row, not yet added to the pool's count: most of a pool's
   * targets are up, so a count is updated once per run rather than twice per target.
   */
  private run = 0;
  private runHealth = "";
  private runPool: PoolSummary | undefined;

  /** Pools met so far. */
  get size(): number {
    return this.pools.size;
  }

  /**
   * Counts one target; its pool's summary (keyed as written: "\ud800" and "\ufffd" are one pool). A
   * target not scraped yet counts as unknown whatever the server calls it (time.ts, targetHealth).
   */
  add(target: CountedTarget): PoolSummary {
    const { scrapePool, lastError } = target;
    const health = healthOf(target);
    let pool = this.last;
    if (pool === undefined || scrapePool !== this.lastRaw) {
      pool = poolSummary(this.pools, wellFormed(scrapePool));
      this.lastRaw = scrapePool;
      this.last = pool;
    }
    if (pool !== this.runPool || health !== this.runHealth) {
      this.countRun();
      this.runPool = pool;
      this.runHealth = health;
    }
    this.run++;
    if (health === "down") {
      const reason = classifyScrapeError(lastError);
      pool.downBy.set(reason, (pool.downBy.get(reason) ?? 0) + 1);
    }
    return pool;
  }

  private countRun(): void {
    const pool = this.runPool;
    if (pool && this.run > 0) {
      const written = wellFormed(this.runHealth);
      pool.byHealth.set(written, (pool.byHealth.get(written) ?? 0) + this.run);
    }
    this.run = 0;
  }

  /**
   * The per-pool families: pools by name, whatever order the answer listed them in. `dropped`
   * undefined: the server's list of dropped targets says nothing sure (VictoriaMetrics), none published.
   */
  samples(dropped: DroppedTargets | undefined, perTarget: boolean): SampleSet {
    this.countRun();
    const out = new SampleSet();
    for (const [pool, summary] of [...this.pools].sort(([a], [b]) => compare(a, b))) {
      for (const [health, n] of summary.byHealth) out.add(TARGETS.count.name, { scrape_pool: pool, health }, n);
      for (const [reason, n] of summary.downBy) out.add(TARGETS.downByReason.name, { scrape_pool: pool, reason }, n);
      if (perTarget) out.add(TARGETS.collisions.name, { scrape_pool: pool }, summary.collisions);
    }
    if (dropped === undefined) return out;
    const droppedCounts = [...droppedPerPool(dropped, this.pools.keys())].sort(([a], [b]) => compare(a, b));
    for (const [pool, n] of droppedCounts) out.add(TARGETS.dropped.name, { scrape_pool: pool }, n);
    return out;
  }
}

function poolSummary(pools: Map<string, PoolSummary>, name: string): PoolSummary {
  let pool = pools.get(name);
  if (!pool) {
    pool = {
      byHealth: new Map(TARGET_HEALTHS.map((h) => [h, 0])),
      downBy: new Map(DOWN_REASONS.map((r) => [r, 0])),
      collisions: 0,
    };
    pools.set(name, pool);
  }
  return pool;
}

/**
 * Dropped targets per pool. Where the server counts them (droppedTargetCounts, 2.47+) its counts are
 * complete even when keep_dropped_targets truncates the list; older servers only list them, with the
 * pool in `scrapePool` (3.x) or, before that, in the discovered `job` label. Every active pool gets a
 * figure, zero included.
 */
function droppedPerPool(dropped: DroppedTargets, activePools: Iterable<string>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const pool of activePools) counts.set(pool, 0);
  // Pools named alike once written (a lone surrogate and U+FFFD) are one pool: their counts add up.
  const add = (pool: string, n: number) => counts.set(wellFormed(pool), (counts.get(wellFormed(pool)) ?? 0) + n);
  const { droppedTargetCounts, droppedTargets } = dropped;
  if (droppedTargetCounts) for (const [pool, n] of Object.entries(droppedTargetCounts)) add(pool, n);
  else for (const target of droppedTargets) add(droppedTargetPool(target), 1);
  return counts;
}

function droppedTargetPool(target: unknown): string {
  if (target === null || typeof target !== "object") return "";
  const { scrapePool, discoveredLabels } = target as { scrapePool?: unknown; discoveredLabels?: unknown };
  if (typeof scrapePool === "string") return scrapePool;
  const job = (discoveredLabels as { job?: unknown } | null | undefined)?.job;
  return typeof job === "string" ? job : "";
}
