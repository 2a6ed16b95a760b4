import { collectDefaultMetrics, Gauge, Registry } from "prom-client";

// prom-client names these gauges with a `_total` suffix, which the text format reserves for
// counters (promtool rejects them). Their per-type siblings without `_total` carry the same data.
const MISNAMED_GAUGES = [
  "nodejs_active_handles_total",
  "nodejs_active_requests_total",
  "nodejs_active_resources_total",
];

// Collecting the runtime's metrics reads /proc and waits a turn of the event loop (~2 ms of CPU):
// scrapes that arrive within a second of each other (Prometheus replicas, a load test) share one
// collection. Prometheus scrapes every 15 s or more, so no scrape sees an older figure than before.
const RUNTIME_MAX_AGE_MS = 1000;

/** What /metrics needs of the exporter's own metrics. */
export interface OwnMetrics {
  readonly contentType: string;
  /**
   * The text in two parts: the runtime's, the same string until it is collected again (at most once a
   * second, so /metrics can keep what it made of it), then the exporter's, new at every scrape.
   */
  metrics(): Promise<[runtime: string, own: string]>;
}

/**
 * The exporter's own metrics: the runtime's (process and Node.js, collected at most once a second)
 * and the exporter's (build info, reloads: `registry`, current at every scrape).
 */
export class ProcessMetrics implements OwnMetrics {
  /** Where the exporter's own metrics register; rendered at every scrape. */
  readonly registry = new Registry();
  private readonly runtime = new Registry();
  private collected: { at: number; text: Promise<string> } | undefined;

  constructor(
    version: string,
    private readonly runtimeMaxAgeMs = RUNTIME_MAX_AGE_MS,
  ) {
    collectDefaultMetrics({ register: this.runtime });
    for (const name of MISNAMED_GAUGES) this.runtime.removeSingleMetric(name);
    const buildInfo = new Gauge({
      name: "promstatus_exporter_build_info",
      help: "1, labelled with the exporter's version and the Node.js version running it.",
      labelNames: ["version", "node_version"],
      registers: [this.registry],
    });
    buildInfo.set({ version, node_version: process.version }, 1);
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  async metrics(): Promise<[runtime: string, own: string]> {
    const now = performance.now();
    if (this.collected === undefined || now - this.collected.at >= this.runtimeMaxAgeMs) {
      this.collected = { at: now, text: this.runtime.metrics() };
    }
    return Promise.all([this.collected.text, this.registry.metrics()]);
  }
}
