import { pino } from "pino";
import { type AppDeps, createApp } from "../../src/http/app.js";
import { NO_WEB_CONFIG } from "../../src/http/web-config.js";
import { ProcessMetrics } from "../../src/publish/process-metrics.js";
import type { Exposition } from "../../src/publish/store.js";

/** The exporter's HTTP app serving a given exposition, everything else at its plainest. */
export function appServing(exposition: () => Exposition, overrides: Partial<AppDeps> = {}) {
  return createApp({
    log: pino({ level: "silent" }),
    telemetryPath: "/metrics",
    enableLifecycle: true,
    processMetrics: new ProcessMetrics("test"),
    sourcesExposition: exposition,
    isReady: () => true,
    reload: async () => undefined,
    landing: () => ({ version: "test", telemetryPath: "/metrics", sources: [], groups: [], probes: [] }),
    webConfig: () => NO_WEB_CONFIG,
    probe: async () => ({ status: 400, type: "text", body: "no probes here\n" }),
    probeAccount: () => undefined,
    ...overrides,
  });
}
