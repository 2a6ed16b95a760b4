import { Counter, Gauge, type Registry } from "prom-client";

/** What the telemetry path reports (http/request-limit.ts). */
export interface ScrapeMetrics {
  /** Requests of the telemetry path being served now. */
  inFlight(count: number): void;
  /** A request's HTTP status, once its response closed. */
  answered(status: number): void;
}

/**
 * The telemetry path's own requests, under the names, help and initial codes of client_golang's
 * promhttp.InstrumentMetricHandler (prometheus/promhttp/http.go, v1.24.1), which node_exporter and
 * most Go exporters serve. As there, the gauge counts the scrape that reads it, and a scrape is
 * counted once its response closed.
 */
export function createScrapeMetrics(registry: Registry): ScrapeMetrics {
  const inFlight = new Gauge({
    name: "promhttp_metric_handler_requests_in_flight",
    help: "Current number of scrapes being served.",
    registers: [registry],
  });
  const total = new Counter({
    name: "promhttp_metric_handler_requests_total",
    help: "Total number of scrapes by HTTP status code.",
    labelNames: ["code"],
    registers: [registry],
  });
  // From zero, so rate() and increase() see the first of each.
  for (const code of ["200", "500", "503"]) total.inc({ code }, 0);
  return {
    inFlight(count) {
      inFlight.set(count);
    },
    answered(status) {
      total.inc({ code: String(status) });
    },
  };
}
