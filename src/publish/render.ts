import { Counter, Gauge, Registry } from "prom-client";
import { POLL, SOURCE_FAMILIES } from "../convert/families.js";
import type { Labels } from "../convert/samples.js";
import type { SourceState } from "./source-state.js";

/**
 * Renders the source-derived families in the text format. A fresh registry per render means a series
 * absent from the current state is simply not emitted: staleness is handled by construction.
 */
export async function renderSources(sources: Iterable<SourceState>): Promise<string> {
  const list = [...sources];
  const staticKeys = [...new Set(list.flatMap((s) => Object.keys(s.config.labels)))].sort();
  const registry = new Registry();
  const gauges = new Map<string, Gauge>();
  const counters = new Map<string, Counter>();
  for (const def of SOURCE_FAMILIES) {
    const options = {
      name: def.name,
      help: def.help,
      labelNames: ["source", ...staticKeys, ...def.labels],
      registers: [registry],
    };
    if (def.type === "counter") counters.set(def.name, new Counter(options));
    else gauges.set(def.name, new Gauge(options));
  }
  const gauge = (name: string) => gauges.get(name) as Gauge;

  for (const { config, endpoints } of list) {
    const base: Labels = { source: config.name, ...config.labels };
    for (const [endpoint, state] of endpoints) {
      const labels = { ...base, endpoint };
      gauge(POLL.up.name).set(labels, state.up);
      gauge(POLL.duration.name).set(labels, state.durationSeconds);
      if (state.lastSuccessSeconds !== undefined) gauge(POLL.lastSuccess.name).set(labels, state.lastSuccessSeconds);
      for (const [reason, n] of state.failures)
        (counters.get(POLL.failures.name) as Counter).inc({ ...labels, reason }, n);
      if (!state.samples) continue;
      for (const [name, samples] of state.samples.families) {
        const g = gauge(name);
        for (const s of samples) g.set({ ...base, ...s.labels }, s.value);
      }
    }
  }
  return registry.metrics();
}
