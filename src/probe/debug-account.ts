import { type ModuleConfig, PROMETHEUS_STATUS_ENDPOINTS } from "../config/types.js";
import type { ProbeRun } from "./probe.js";

// The plain-text account of a probe that /probe?...&debug=true returns, as blackbox_exporter's
// debug output does: what was requested, what came back, how long it took, what went wrong.
// Only redacted URLs and the module's shape appear: never a password, token or header value. Nor what
// an upstream's body said (a /probe client may name any URL): a failure is its reason, status and
// PollError's detail, which holds no upstream text (upstream/poll-error.ts).

/** How a probe's answer was obtained. */
export type Served = { how: "polled" } | { how: "shared" } | { how: "cached"; ageSeconds: number };

const iso = (ms: number) => new Date(ms).toISOString();
const secs = (s: number) => `${s.toFixed(3)}s`;

function describeModule(m: ModuleConfig): string[] {
  const http = m.http;
  const auth = http.basicAuth ? "basic_auth" : http.authorization ? "authorization" : "none";
  const lines = [
    `  kind: ${m.kind}`,
    `  timeout: ${m.timeoutMs / 1000}s`,
    `  max_response_size: ${m.maxResponseBytes} bytes`,
    `  min_interval: ${m.minIntervalMs / 1000}s`,
    `  series_limit: ${m.seriesLimit === 0 ? "none" : m.seriesLimit}`,
    `  allowed_targets: ${m.allowedTargets.length === 0 ? "any" : m.allowedTargets.map((r) => r.source).join(", ")}`,
    `  credentials: ${auth}; headers: ${Object.keys(http.headers).join(", ") || "none"} (values not shown)`,
  ];
  if (m.kind === "prometheus") {
    lines.push(
      `  tsdb: ${m.tsdb.enabled ? `on${m.tsdb.limit === undefined ? "" : `, limit ${m.tsdb.limit}`}` : "off"}`,
    );
    lines.push(`  targets: ${m.targets.enabled ? `on, per_target ${m.targets.perTarget}` : "off"}`);
    const on = PROMETHEUS_STATUS_ENDPOINTS.filter((e) => m[e].enabled);
    lines.push(`  status endpoints: ${on.length === 0 ? "none" : on.join(", ")}`);
  }
  if (m.group !== undefined) lines.push(`  group: ${m.group}`);
  return lines;
}

/** The account without the metrics (what the probe history keeps). */
export function debugAccount(run: ProbeRun, served: Served): string {
  const lines = [
    `Probe of ${run.target} with module "${run.module.name}"`,
    `Started ${iso(run.startedAt)}, took ${secs(run.durationSeconds)}; budget ${secs(run.timeoutMs / 1000)} (${run.timeoutSource})`,
  ];
  if (served.how === "shared") lines.push("Served the result of an identical probe that was already running");
  if (served.how === "cached") {
    lines.push(
      `Served a result ${secs(served.ageSeconds)} old (module min_interval ${run.module.minIntervalMs / 1000}s): upstream not polled again`,
    );
  }
  for (const { endpoint, url, outcome } of run.endpoints) {
    lines.push("", `Endpoint ${endpoint}`, `  request: GET ${url}`);
    if (outcome.ok) {
      const r = outcome.received;
      const answer = r ? `HTTP ${r.statusCode}, ${r.bytes} bytes${r.encoding ? ` (${r.encoding})` : ""}` : "recognised";
      lines.push(`  result: success, ${answer}, ${outcome.series} series, ${secs(outcome.durationSeconds)}`);
      if (outcome.notice) lines.push(`  notice: ${outcome.notice}`);
    } else {
      const status = outcome.error.status === undefined ? "" : `, HTTP ${outcome.error.status}`;
      lines.push(`  result: failure, reason ${outcome.error.reason}${status}, ${secs(outcome.durationSeconds)}`);
      lines.push(`  error: ${outcome.error.message}`);
    }
  }
  lines.push("", `Module "${run.module.name}":`, ...describeModule(run.module));
  return `${lines.join("\n")}\n`;
}

/**
 * Metrics quoted by a debug answer, at most: each answer is a string of its own, held while its client
 * reads, so 25 slow readers of a 100k-series probe held 4.7 GB. The answer without debug has them all.
 */
export const DEBUG_METRICS_BYTES = 2 ** 20;

/** The debug answer: the account, then the metrics the probe serves, cut at a line end past `limit` bytes. */
export function debugAnswer(run: ProbeRun, served: Served, limit = DEBUG_METRICS_BYTES): string {
  const { exposition } = run;
  const head = `${debugAccount(run, served)}\nMetrics that would have been returned:\n`;
  if (exposition.byteLength <= limit) return head + exposition.toString("utf8");
  // Only the quoted part is turned into a string, never the whole exposition.
  const cut = exposition.lastIndexOf(0x0a, limit - 1) + 1;
  const left = exposition.byteLength - cut;
  return `${head}${exposition.toString("utf8", 0, cut)}# ... ${left} more bytes of metrics left out of this debug answer (the first ${cut} of ${exposition.byteLength} are above); the answer without debug=true has them all.\n`;
}
