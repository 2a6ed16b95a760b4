import { DEFAULTS } from "./defaults.js";
import { parseDuration } from "./duration.js";
import type { RawConfig } from "./schema.js";
import { parseSize } from "./size.js";
import type { ExporterConfig, SourceConfig } from "./types.js";

/** Applies global settings and defaults to each source of a validated config. */
export function resolveConfig(raw: RawConfig): ExporterConfig {
  const globalSchedule = raw.global?.schedule ?? DEFAULTS.schedule;
  const globalTimeout = raw.global?.timeout ?? DEFAULTS.timeout;
  const globalMaxSize = raw.global?.max_response_size ?? DEFAULTS.maxResponseSize;
  const sources = raw.sources.map((s): SourceConfig => {
    const prometheus = s.kind === "prometheus" ? s : undefined;
    return {
      name: s.name,
      kind: s.kind,
      url: s.url.replace(/\/+$/, ""),
      labels: s.labels ?? {},
      schedule: s.schedule ?? globalSchedule,
      timeoutMs: parseDuration(s.timeout ?? globalTimeout) as number,
      maxResponseBytes: parseSize(s.max_response_size ?? globalMaxSize) as number,
      tsdb: { enabled: prometheus?.tsdb?.enabled ?? DEFAULTS.tsdb.enabled, limit: prometheus?.tsdb?.limit },
      targets: {
        enabled: prometheus?.targets?.enabled ?? DEFAULTS.targets.enabled,
        perTarget: prometheus?.targets?.per_target ?? DEFAULTS.targets.per_target,
      },
    };
  });
  return { sources };
}
