import { parseDuration } from "../config/duration.js";
// The text format's escaping makes the rendered pairs an unambiguous key (values are quoted and escaped).
import { labelPairs } from "../exposition/label-pairs.js";
import type { ActiveTarget, TargetsResponse } from "../upstream/payloads.js";
import { TARGETS } from "./families.js";
import type { Labels } from "./samples.js";
import { SampleSet } from "./samples.js";
import { classifyScrapeError, DOWN_REASONS } from "./scrape-error-reason.js";
import { stableOrder } from "./series-order.js";
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

/** One per-target series; targets that share every per-target label are merged into one. */
export interface TargetSeries {
  labels: Labels;
  /** The labels as the text format writes them, `scrape_pool="…",job="…",…`: also the series' key. */
  pairs: string;
  up: number;
  duration: number | undefined;
  lastScrape: number | undefined;
  interval: number | undefined;
  timeout: number | undefined;
}

interface PoolSummary {
  byHealth: Map<string, number>;
  downBy: Map<string, number>;
  collisions: number;
}

/** What a targets answer comes to: per-target series (when kept) and per-pool figures. */
export interface TargetsSummary {
  /** In a stable order (series-order.ts); empty when `perTarget` is off. */
  series: TargetSeries[];
  /** The per-pool families, as samples. */
  pools: SampleSet;
}

/** The per-target families, in the order convertTargets adds them for a series. */
export const PER_TARGET_FAMILIES = [
  { name: TARGETS.up.name, value: (s: TargetSeries) => s.up },
  { name: TARGETS.scrapeDuration.name, value: (s: TargetSeries) => s.duration },
  { name: TARGETS.lastScrape.name, value: (s: TargetSeries) => s.lastScrape },
  { name: TARGETS.scrapeInterval.name, value: (s: TargetSeries) => s.interval },
  { name: TARGETS.scrapeTimeout.name, value: (s: TargetSeries) => s.timeout },
] as const;

/**
 * Samples for a `/api/v1/targets` answer; `perTarget: false` keeps only the per-pool figures.
 * (poll/targets-fast-path.ts renders the same summary without the samples in between.)
 */
export function convertTargets(payload: TargetsResponse, options: TargetsOptions): SampleSet {
  const summariser = new TargetSummariser(options);
  for (const target of payload.data.activeTargets) summariser.add(target);
  const { series, pools } = summariser.finish(payload.data);
  const out = new SampleSet();
  for (const s of series) {
    for (const family of PER_TARGET_FAMILIES) {
      const value = family.value(s);
      if (value !== undefined) out.add(family.name, s.labels, value);
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
  private readonly series = new Map<string, TargetSeries>();

  constructor(private readonly options: TargetsOptions) {}

  add(target: ActiveTarget): void {
    const pool = poolSummary(this.pools, target.scrapePool);
    pool.byHealth.set(target.health, (pool.byHealth.get(target.health) ?? 0) + 1);
    if (target.health === "down") {
      const reason = classifyScrapeError(target.lastError);
      pool.downBy.set(reason, (pool.downBy.get(reason) ?? 0) + 1);
    }
    if (!this.options.perTarget) return;
    const labels = targetLabels(target, this.options.extraLabels);
    const pairs = labelPairs(labels);
    const seen = this.series.get(pairs);
    const next = targetSeries(target, labels, pairs);
    if (seen) {
      merge(seen, next);
      pool.collisions++;
    } else this.series.set(pairs, next);
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
    return { series: stableOrder([...this.series.values()]), pools: out };
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

function targetSeries(target: ActiveTarget, labels: Labels, pairs: string): TargetSeries {
  return {
    labels,
    pairs,
    up: target.health === "up" ? 1 : 0,
    duration: target.lastScrapeDuration,
    lastScrape: rfc3339Seconds(target.lastScrape),
    interval: durationSeconds(target.scrapeInterval),
    timeout: durationSeconds(target.scrapeTimeout),
  };
}

function merge(into: TargetSeries, other: TargetSeries): void {
  into.up = Math.min(into.up, other.up);
  into.duration = pick(into.duration, other.duration, Math.max);
  into.lastScrape = pick(into.lastScrape, other.lastScrape, Math.min);
  into.interval = pick(into.interval, other.interval, Math.min);
  into.timeout = pick(into.timeout, other.timeout, Math.min);
}

function pick(a: number | undefined, b: number | undefined, choose: (x: number, y: number) => number) {
  if (a === undefined) return b;
  return b === undefined ? a : choose(a, b);
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
  const { droppedTargetCounts, droppedTargets } = dropped;
  if (droppedTargetCounts) {
    for (const [pool, n] of Object.entries(droppedTargetCounts)) counts.set(pool, n);
    return counts;
  }
  for (const target of droppedTargets) {
    const pool = droppedTargetPool(target);
    counts.set(pool, (counts.get(pool) ?? 0) + 1);
  }
  return counts;
}

function droppedTargetPool(target: unknown): string {
  if (target === null || typeof target !== "object") return "";
  const { scrapePool, discoveredLabels } = target as { scrapePool?: unknown; discoveredLabels?: unknown };
  if (typeof scrapePool === "string") return scrapePool;
  const job = (discoveredLabels as { job?: unknown } | null | undefined)?.job;
  return typeof job === "string" ? job : "";
}
