import { collectDefaultMetrics, Gauge, Registry } from "prom-client";

// prom-client names these gauges with a `_total` suffix, which the text format reserves for
// counters (promtool rejects them). Their per-type siblings without `_total` carry the same data.
const MISNAMED_GAUGES = [
  "nodejs_active_handles_total",
  "nodejs_active_requests_total",
  "nodejs_active_resources_total",
];

/** Registry with the process and Node.js metrics and the exporter's build info. */
export function createProcessRegistry(version: string): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  for (const name of MISNAMED_GAUGES) registry.removeSingleMetric(name);
  const buildInfo = new Gauge({
    name: "promstatus_exporter_build_info",
    help: "1, labelled with the exporter's version and the Node.js version running it.",
    labelNames: ["version", "node_version"],
    registers: [registry],
  });
  buildInfo.set({ version, node_version: process.version }, 1);
  return registry;
}
