import { fiveFieldCronWarning } from "./cron-meaning.js";
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
  (raw.sources ?? []).forEach((s, i) => {
    cron(["sources", i], s.schedule);
    const url = baseUrlHint(s.url);
    if (url) warnings.push({ path: ["sources", i, "url"], message: url });
    const thanos = thanosInGroup(s, raw.global?.flavor);
    if (thanos) warnings.push({ path: ["sources", i, ...thanos.key], message: thanos.message });
  });
  return warnings;
}

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
