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
  });
  return warnings;
}
