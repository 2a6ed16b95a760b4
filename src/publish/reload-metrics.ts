import { Gauge, type Registry } from "prom-client";

/** The reload gauges every Prometheus component has, so a refused config can be alerted on. */
export function createReloadMetrics(registry: Registry) {
  const successful = new Gauge({
    name: "promstatus_config_last_reload_successful",
    help: "1 if the last config (re)load succeeded, 0 if the new config was refused.",
    registers: [registry],
  });
  const timestamp = new Gauge({
    name: "promstatus_config_last_reload_success_timestamp_seconds",
    help: "Unix time of the last successful config (re)load.",
    registers: [registry],
  });
  return {
    succeeded(): void {
      successful.set(1);
      timestamp.set(Date.now() / 1000);
    },
    failed(): void {
      successful.set(0);
    },
  };
}
