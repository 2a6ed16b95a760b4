import { TARGETS } from "../catalogue/families.js";
import { parseDuration } from "../config/duration.js";
import type { Flavor } from "../config/flavors.js";
import type { ActiveTarget, TargetsResponse } from "../upstream/payloads.js";
import { addWarningCount, warningTexts } from "./answer-warnings.js";
// The text format's escaping makes the rendered pairs an unambiguous key (values are quoted and escaped).
import { labelPairs, wellFormed } from "./label-pairs.js";
import { type DroppedTargets, PoolCounts } from "./pool-counts.js";
import type { Labels } from "./samples.js";
import { SampleSet } from "./samples.js";
import { SERIES_VALUES, SeriesColumns, type TargetSeries } from "./series-columns.js";
import { healthOf, lastScrapeSeconds } from "./time.js";

export { TARGET_HEALTHS } from "./pool-counts.js";

/** A target label copied onto the per-target series: `from` in the answer, `to` in the output. */
export interface TargetLabel {
  from: string;
  to: string;
}

export interface TargetsOptions {
  perTarget: boolean;
  /** Labels added to the per-target series after scrape_pool, job and instance. */
  extraLabels: readonly TargetLabel[];
  /** The server behind the API, when known (ConvertOptions.flavor). */
  flavor?: Flavor | undefined;
}

/**
 * Whether dropped targets are published: VictoriaMetrics and vmagent give no counts, and their list
 * says nothing sure: cut at -promscrape.maxDroppedTargets (10000 by default), and empty with
 * -promscrape.dropOriginalLabels since v1.96.0 (lib/promscrape/targetstatus.go, droppedTargets.Register).
 */
export function publishesDropped(flavor: Flavor | undefined): boolean {
  return flavor !== "victoriametrics" && flavor !== "vmagent";
}

/**
 * The figures of the answer beyond its targets, as both paths publish them: the per-pool families, then
 * the count of its warnings (answer-warnings.ts).
 */
export function answerSamples(
  pools: PoolCounts,
  data: DroppedTargets,
  warnings: number,
  options: Pick<TargetsOptions, "perTarget" | "flavor">,
): SampleSet {
  const out = pools.samples(publishesDropped(options.flavor) ? data : undefined, options.perTarget);
  return addWarningCount(out, "targets", warnings, options.flavor);
}

/** What a targets answer comes to: per-target series (when kept) and per-pool figures. */
export interface TargetsSummary {
  /** Empty when `perTarget` is off. */
  series: TargetSeries;
  /** The series' indices in the order they are written (series-order.ts). */
  order: Uint32Array;
  /** The per-pool families, as samples. */
  pools: SampleSet;
  /**
   * Whether family v (an index into PER_TARGET_FAMILIES) is written as the same bytes as by the
   * summary of the source's previous answer: the same series in the same order with the same values.
   */
  sameAsLast?(v: number): boolean;
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
 * What a target's series holds, in SERIES_VALUES order, written into `values` (NaN where it has none).
 * A target not scraped yet (healthOf: unknown) has no up and no scrape duration, as Prometheus's own
 * `up` does not exist before a target's first scrape; its interval and timeout are configuration.
 */
export function targetValues(
  values: number[],
  target: Pick<
    ActiveTarget,
    "health" | "lastError" | "lastScrape" | "lastScrapeDuration" | "scrapeInterval" | "scrapeTimeout"
  >,
  /** lastScrapeSeconds of the target's lastScrape (the streaming reader has it without a string). */
  lastScrape: number | undefined,
): number[] {
  // healthOf reads lastScrape only for a down target without an error (the fast path decodes it then).
  const health = healthOf(target);
  const scraped = health !== "unknown";
  values[0] = scraped ? (health === "up" ? 1 : 0) : Number.NaN;
  values[1] = scraped ? (target.lastScrapeDuration ?? Number.NaN) : Number.NaN;
  values[2] = lastScrape ?? Number.NaN;
  values[3] = durationSeconds(target.scrapeInterval) ?? Number.NaN;
  values[4] = durationSeconds(target.scrapeTimeout) ?? Number.NaN;
  return values;
}

/**
 * Samples for a `/api/v1/targets` answer; `perTarget: false` keeps only the per-pool figures.
 * (poll/targets-fast-path.ts renders the same summary without the samples in between.)
 */
export function convertTargets(payload: TargetsResponse, options: TargetsOptions): SampleSet {
  const summariser = new TargetSummariser(options, { keepLabels: true });
  for (const target of payload.data.activeTargets) summariser.add(target);
  const { series, order, pools } = summariser.finish(payload.data, warningTexts(payload.warnings).length);
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
 * largest; last scrape the oldest; interval and timeout the smallest; a target not scraped yet adds no
 * up, duration or last scrape) and are counted as collisions.
 */
export class TargetSummariser {
  private readonly pools = new PoolCounts();
  private readonly series: SeriesColumns;
  private readonly values = new Array<number>(SERIES_VALUES.length);

  /** `keepLabels`: each series' labels as an object too, for a converter that adds samples by them. */
  constructor(
    private readonly options: TargetsOptions,
    { keepLabels = false }: { keepLabels?: boolean } = {},
  ) {
    this.series = new SeriesColumns(keepLabels);
  }

  add(target: ActiveTarget): void {
    const pool = this.pools.add(target);
    if (!this.options.perTarget) return;
    const labels = targetLabels(target, this.options.extraLabels);
    const values = targetValues(this.values, target, lastScrapeSeconds(target.lastScrape));
    // Ordered by the pool's name as written, as its series' labels carry it.
    if (this.series.add(labelPairs(labels), wellFormed(target.scrapePool), labels, values)) pool.collisions++;
  }

  finish(dropped: DroppedTargets, warnings = 0): TargetsSummary & { series: SeriesColumns } {
    return {
      series: this.series,
      order: this.series.order(),
      pools: answerSamples(this.pools, dropped, warnings, this.options),
    };
  }
}

/** The labels of a target's series (scrape_pool, job, instance, then the extra ones). */
export function targetLabels(
  target: Pick<ActiveTarget, "scrapePool" | "labels">,
  extra: readonly TargetLabel[],
): Labels {
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

export function durationSeconds(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (durations.has(text)) return durations.get(text);
  const ms = parseDuration(text);
  const seconds = ms === undefined ? undefined : ms / 1000;
  if (durations.size >= DURATIONS_KEPT) durations.clear();
  durations.set(text, seconds);
  return seconds;
}
