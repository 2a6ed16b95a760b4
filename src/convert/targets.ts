import type { TargetsResponse } from "../upstream/payloads.js";
import { TARGETS } from "./families.js";
import { SampleSet } from "./samples.js";
import { rfc3339Seconds } from "./time.js";

/** Health values Prometheus reports; each pool gets a count for all of them, zeros included. */
export const TARGET_HEALTHS = ["up", "down", "unknown"] as const;

/** Samples for a `/api/v1/targets` answer; `perTarget: false` keeps only the counts. */
export function convertTargets(payload: TargetsResponse, perTarget: boolean): SampleSet {
  const out = new SampleSet();
  const counts = new Map<string, Map<string, number>>();
  for (const target of payload.data.activeTargets) {
    const pool = target.scrapePool;
    let byHealth = counts.get(pool);
    if (!byHealth) {
      byHealth = new Map(TARGET_HEALTHS.map((h) => [h, 0]));
      counts.set(pool, byHealth);
    }
    byHealth.set(target.health, (byHealth.get(target.health) ?? 0) + 1);
    if (!perTarget) continue;

    const labels = { scrape_pool: pool, job: target.labels.job, instance: target.labels.instance };
    out.add(TARGETS.up.name, labels, target.health === "up" ? 1 : 0);
    if (target.lastScrapeDuration !== undefined)
      out.add(TARGETS.scrapeDuration.name, labels, target.lastScrapeDuration);
    const last = rfc3339Seconds(target.lastScrape);
    if (last !== undefined) out.add(TARGETS.lastScrape.name, labels, last);
  }
  for (const [pool, byHealth] of counts) {
    for (const [health, n] of byHealth) out.add(TARGETS.count.name, { scrape_pool: pool, health }, n);
  }
  const { droppedTargets, droppedTargetCounts } = payload.data;
  const dropped = droppedTargetCounts
    ? Object.values(droppedTargetCounts).reduce((n, c) => n + c, 0)
    : droppedTargets.length;
  out.add(TARGETS.dropped.name, {}, dropped);
  return out;
}
