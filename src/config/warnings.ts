import { fiveFieldCronWarning } from "./cron-meaning.js";
import { DEFAULTS } from "./defaults.js";
import { parseDuration } from "./duration.js";
import type { RawConfig } from "./schema.js";
import { baseUrlHint } from "./url-hint.js";

export interface RawWarning {
  path: (string | number)[];
  message: string;
}

/**
 * What a valid config probably does not mean: said at load and by --config.check, never refused. Each
 * is about a key as written, so a global setting is named once, not once per source that takes it.
 */
export function configWarnings(raw: RawConfig): RawWarning[] {
  const warnings: RawWarning[] = [];
  const cron = (path: (string | number)[], schedule: string | undefined) => {
    const message = schedule === undefined ? undefined : fiveFieldCronWarning(schedule);
    if (message) warnings.push({ path: [...path, "schedule"], message });
  };
  cron(["global"], raw.global?.schedule);
  const global = raw.global ?? {};
  const globalOverrun = overrun(global, {});
  if (globalOverrun) warnings.push({ path: ["global", global.timeout ? "timeout" : "interval"], ...globalOverrun });
  const groupSizes = new Map<string, number>();
  for (const { group } of raw.sources ?? [])
    if (group !== undefined) groupSizes.set(group, (groupSizes.get(group) ?? 0) + 1);
  // A module of the group adds the members it probes: the source is not alone.
  for (const m of Object.values(raw.modules ?? {}))
    if (m.group !== undefined) groupSizes.set(m.group, (groupSizes.get(m.group) ?? 0) + 2);
  (raw.sources ?? []).forEach((s, i) => {
    cron(["sources", i], s.schedule);
    // Said at the source only where it sets its own timing; global's is said once, above.
    const own = s.timeout !== undefined || s.interval !== undefined || s.schedule !== undefined;
    const sourceOverrun = own ? overrun(s, global) : undefined;
    if (sourceOverrun) warnings.push({ path: ["sources", i, s.timeout ? "timeout" : "interval"], ...sourceOverrun });
    const url = baseUrlHint(s.url);
    if (url) warnings.push({ path: ["sources", i, "url"], message: url });
    const thanos = thanosInGroup(s, raw.global?.flavor);
    if (thanos) warnings.push({ path: ["sources", i, ...thanos.key], message: thanos.message });
    if (s.group !== undefined && groupSizes.get(s.group) === 1)
      warnings.push({ path: ["sources", i, "group"], message: loneGroupMessage(s.group) });
  });
  return warnings;
}

/** A group's one source compares with nothing (promstatus_group_sources 1), most often a misspelt name. */
const loneGroupMessage = (group: string) =>
  `group ${JSON.stringify(group)} has this source only: a replica group compares two or more sources of one service, so its series compare nothing (is another source's group spelt differently?)`;

interface Timing {
  interval?: string | undefined;
  schedule?: string | undefined;
  timeout?: string | undefined;
}

/**
 * A timeout longer than the time between polls (Prometheus refuses a scrape_timeout above its
 * scrape_interval): polls never overlap, so one that runs that long skips those due meanwhile. Known
 * only where the time between polls is plain: an interval, or the default schedule (every 30 s); a cron
 * schedule of one's own says nothing here.
 */
function overrun(own: Timing, global: Timing): { message: string } | undefined {
  const timeout = own.timeout ?? global.timeout ?? DEFAULTS.timeout;
  // The default schedule only where neither level sets a schedule or an interval (an interval of 30s is one's own).
  const byDefault = [own.interval, own.schedule, global.interval, global.schedule].every((v) => v === undefined);
  const interval =
    own.interval ??
    (own.schedule !== undefined ? undefined : (global.interval ?? (byDefault ? DEFAULT_SCHEDULE_PERIOD : undefined)));
  if (interval === undefined) return undefined;
  const timeoutMs = parseDuration(timeout);
  const intervalMs = parseDuration(interval);
  if (timeoutMs === undefined || intervalMs === undefined || timeoutMs <= intervalMs) return undefined;
  const between = byDefault ? `${interval} between polls (the default schedule)` : `interval ${interval}`;
  return {
    message: `timeout ${timeout} is longer than the ${between}: polls never overlap, so one that runs that long skips those due meanwhile (Prometheus refuses a scrape_timeout above its scrape_interval)`,
  };
}

/** The time between two polls of DEFAULTS.schedule (every 30 seconds, on the half minute). */
const DEFAULT_SCHEDULE_PERIOD = "30s";

/**
 * Thanos Query in a replica group: it deduplicates its stores' replicas into one answer (down wins), so
 * the group compares merged views, not the replicas, and their disagreement never shows. Said at the
 * flavor key that makes it Thanos (the source's, or its group when it takes global's).
 */
export function thanosInGroup(
  source: { group?: string | undefined; flavor?: string | undefined },
  globalFlavor: string | undefined,
): { key: string[]; message: string } | undefined {
  if (source.group === undefined) return undefined;
  const own = source.flavor !== undefined;
  if ((own ? source.flavor : globalFlavor) !== "thanos") return undefined;
  return {
    key: [own ? "flavor" : "group"],
    message: `${own ? "" : "this source takes global.flavor thanos: "}${THANOS_IN_GROUP}`,
  };
}

/** Also logged when a grouped source is detected as Thanos Query. */
export const THANOS_IN_GROUP =
  "Thanos Query deduplicates its replicas' answers (a target down on one replica is down once), so a replica group of Thanos Queries compares merged views and hides the replicas' disagreement; poll the Prometheus replicas directly as the group's members";
