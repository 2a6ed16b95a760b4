import { type HttpClientConfig, type SourceConfig, statusEndpointsOff } from "../../src/config/types.js";

/** A resolved source config for tests, defaults as the loader would fill them. */
export function sourceConfig(overrides: Partial<SourceConfig> = {}): SourceConfig {
  return {
    name: "prom",
    kind: "prometheus",
    url: "http://127.0.0.1:1",
    labels: {},
    schedule: "*/30 * * * * *",
    timeoutMs: 2000,
    maxResponseBytes: 256 * 2 ** 20,
    seriesLimit: 0,
    tsdb: { enabled: true, limit: undefined },
    targets: { enabled: true, perTarget: true, labels: [] },
    // Prometheus's other status endpoints off (a test names those it polls); otherwise as the loader fills them.
    ...statusEndpointsOff(),
    http: { headers: {}, tls: { insecureSkipVerify: false }, followRedirects: true, compression: "gzip" },
    ...overrides,
  };
}

/** An upstream client's settings for tests: no auth, TLS verified, redirects followed, no compression. */
export const httpConfig = (more: Partial<HttpClientConfig> = {}): HttpClientConfig => ({
  headers: {},
  tls: { insecureSkipVerify: false },
  followRedirects: true,
  compression: "none",
  ...more,
});
