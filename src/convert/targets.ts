import { parseDuration } from "../config/duration.js";
// The text format's escaping makes the rendered pairs an unambiguous key (values are quoted and escaped).
import { labelPairs, wellFormed } from "../exposition/label-pairs.js";
import type { ActiveTarget, TargetsResponse } from "../upstream/payloads.js";
import { TARGETS } from "./families.js";
import type { Labels } from "./samples.js";
import { SampleSet } from "./samples.js";
import { classifyScrapeError, DOWN_REASONS } from "./scrape-error-reason.js";
import { SERIES_VALUES, SeriesColumns } from "./series-columns.js";
import { rfc3339Seconds } from "./time.js";

/** Health values Prometheus reports; each pool gets a count for all of them, zeros included. */
export const TARGET_HEALTHS = ["up", "down", "unknown"] as const;

/** A target label copied onto the per-target series: `from` in the answer, `to` in the output. */
export interface TargetLabel {
  from: string;
  to: string;
}

export interface TargetsOptions {
  perTarget: boolean;
  /** Labels added to the per-target series after scrape_pool, job and instance. */
  extraLabels: readonly TargetLabel[];
}

interface PoolSummary {
  byHealth: Map<string, number>;
  downBy: Map<string, number>;
  collisions: number;
}

/** What a targets answer comes to: per-target series (when kept) and per-pool figures. */
export interface TargetsSummary {
  /** Empty when `perTarget` is off. */
  series: SeriesColumns;
  /** The series' indices in the order they are written (series-order.ts). */
  order: Uint32Array;
  /** The per-pool families, as samples. */
  pools: SampleSet;
}

/** The per-target families, one per value of a series (SERIES_VALUES), in the order they are written. */
export const PER_TARGET_FAMILIES = [
  TARGETS.up.name,
  TARGETS.scrapeDuration.name,
  TARGETS.lastScrape.name,
  TARGETS.scrapeInterval.name,
  TARGETS.scrapeTimeout.name,
] as const;

/**
 * Samples for a `/api/v1/targets` answer; `perTarget: false` keeps only the per-pool figures.
 * (poll/targets-fast-path.ts renders the same summary without the samples in between.)
 */
export function convertTargets(payload: TargetsResponse, options: TargetsOptions): SampleSet {
  const summariser = new TargetSummariser(options, { keepLabels: true });
  for (const target of payload.data.activeTargets) summariser.add(target);
  const { series, order, pools } = summariser.finish(payload.data);
  const out = new SampleSet();
  for (const i of order) {
    const labels = series.labels?.[i] as Labels;
    const key = series.pairs[i] as string; // labelPairs(labels), rendered once
    for (let v = 0; v < PER_TARGET_FAMILIES.length; v++) {
      const value = series.value(v, i);
      if (!Number.isNaN(value)) out.add(PER_TARGET_FAMILIES[v] as string, labels, value, key);
    }
  }
  for (const [name, samples] of pools.families) for (const { labels, value } of samples) out.add(name, labels, value);
  return out;
}

/**
 * Summarises active targets one at a time (a reader can hand them over as it meets them, keeping none),
 * then the dropped ones. Never two series with one name and label set: targets of a pool that agree on
 * every per-target label merge (up is the lowest, so a down target is never hidden; scrape duration the
 * largest; last scrape the oldest; interval and timeout the smallest) and are counted as collisions.
 */
export class TargetSummariser {
  private readonly pools = new Map<string, PoolSummary>();
  private readonly series: SeriesColumns;
  private readonly values = new Array<number>(SERIES_VALUES.length);

  /** Scrape pools met so far. */
  get poolCount(): number {
    return this.pools.size;
  }

  /**
   * The fewest series the answer gives, from what was met so far: each distinct target series has an
   * up, and each pool a count per health and per down reason, its dropped count and its collisions.
   */
  get seriesAtLeast(): number {
    const perPool = TARGET_HEALTHS.length + DOWN_REASONS.length + 1 + (this.options.perTarget ? 1 : 0);
    return this.series.size + this.pools.size * perPool;
  }

  /** `keepLabels`: each series' labels as an object too, for a converter that adds samples by them. */
  constructor(
    private readonly options: TargetsOptions,
    { keepLabels = false }: { keepLabels?: boolean } = {},
  ) {
    this.series = new SeriesColumns(keepLabels);
  }

  add(target: ActiveTarget): void {
    // Keyed as written: "\ud800" and "\ufffd" are one pool in the exposition, so one here.
    const pool = poolSummary(this.pools, wellFormed(target.scrapePool));
    const health = wellFormed(target.health);
    pool.byHealth.set(health, (pool.byHealth.get(health) ?? 0) + 1);
    if (target.health === "down") {
      const reason = classifyScrapeError(target.lastError);
      pool.downBy.set(reason, (pool.downBy.get(reason) ?? 0) + 1);
    }
    if (!this.options.perTarget) return;
    const labels = targetLabels(target, this.options.extraLabels);
    const values = this.values;
    values[0] = target.health === "up" ? 1 : 0;
    values[1] = target.lastScrapeDuration ?? Number.NaN;
    values[2] = rfc3339Seconds(target.lastScrape) ?? Number.NaN;
    values[3] = durationSeconds(target.scrapeInterval) ?? Number.NaN;
    values[4] = durationSeconds(target.scrapeTimeout) ?? Number.NaN;
    if (this.series.add(labelPairs(labels), target.scrapePool, labels, values)) pool.collisions++;
  }

  finish(dropped: DroppedTargets): TargetsSummary {
    const out = new SampleSet();
    // Pools by name and series in an order of their own, whatever order the answer listed them in.
    for (const [pool, summary] of [...this.pools].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      for (const [health, n] of summary.byHealth) out.add(TARGETS.count.name, { scrape_pool: pool, health }, n);
      for (const [reason, n] of summary.downBy) out.add(TARGETS.downByReason.name, { scrape_pool: pool, reason }, n);
      if (this.options.perTarget) out.add(TARGETS.collisions.name, { scrape_pool: pool }, summary.collisions);
    }
    const droppedCounts = [...droppedPerPool(dropped, this.pools.keys())].sort(([a], [b]) =>
      a < b ? -1 : a > b ? 1 : 0,
    );
    for (const [pool, n] of droppedCounts) out.add(TARGETS.dropped.name, { scrape_pool: pool }, n);
    return { series: this.series, order: this.series.order(), pools: out };
  }
}

type DroppedTargets = Pick<TargetsResponse["data"], "droppedTargets" | "droppedTargetCounts">;

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

function targetLabels(target: ActiveTarget, extra: readonly TargetLabel[]): Labels {
  const labels: Labels = {
    scrape_pool: target.scrapePool,
    job: labelValue(target.labels, "job"),
    instance: labelValue(target.labels, "instance"),
  };
  for (const { from, to } of extra) labels[to] = labelValue(target.labels, from);
  return labels;
}

/** A target's label, "" when it has none (own keys only: "constructor" is a valid label name). */
export function labelValue(labels: Record<string, string>, name: string): string {
  return Object.hasOwn(labels, name) ? (labels[name] as string) : "";
}

// A fleet has a handful of distinct scrape intervals and timeouts, written out once per target: parsed
// once each (the regular expression per target cost ~0.4 s per 100k targets).
const DURATIONS_KEPT = 256;
const durations = new Map<string, number | undefined>();

function durationSeconds(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (durations.has(text)) return durations.get(text);
  const ms = parseDuration(text);
  const seconds = ms === undefined ? undefined : ms / 1000;
  if (durations.size >= DURATIONS_KEPT) durations.clear();
  durations.set(text, seconds);
  return seconds;
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
