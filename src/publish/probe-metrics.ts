import { Counter, Gauge, type Registry } from "prom-client";

/**
 * How a /probe request ended: `success` and `failure` were answered 200 (polled, shared or cached),
 * `refused` was a bad request (400), `rejected` found --probe.max-concurrent reached (503).
 */
export const PROBE_RESULTS = ["success", "failure", "refused", "rejected"] as const;
export type ProbeResult = (typeof PROBE_RESULTS)[number];

/** What the prober reports to its metrics. */
export interface ProbeMetrics {
  /** `module` is a configured module's name, or "" when the request named none that is configured. */
  count(module: string, result: ProbeResult): void;
}

/**
 * The /probe metrics. Whoever can reach /probe chooses the module parameter, so `module` only ever
 * takes configured names (and ""): random names cannot create series.
 */
export function createProbeMetrics(
  registry: Registry,
  source: { pollsInFlight: () => number; modules: () => Iterable<string> },
): ProbeMetrics {
  new Gauge({
    name: "promstatus_probes_in_flight",
    help: "Probes polling an upstream now (those that share a poll or are served from min_interval are not counted).",
    registers: [registry],
    collect() {
      this.set(source.pollsInFlight());
    },
  });
  const total = new Counter({
    name: "promstatus_probes_total",
    help: 'Probes answered, by module and result: success or failure (200), refused (400, module "" when it is not configured), rejected (503, --probe.max-concurrent reached).',
    labelNames: ["module", "result"],
    registers: [registry],
    collect() {
      // Every configured module's results from zero, so rate() and increase() see the first probe.
      for (const module of source.modules()) for (const result of PROBE_RESULTS) this.inc({ module, result }, 0);
    },
  });
  return {
    count(module, result) {
      total.inc({ module, result });
    },
  };
}
