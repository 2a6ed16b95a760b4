import { parse } from "yaml";
import { PROMETHEUS } from "../catalogue/families.js";
import type { PrometheusConfigResponse } from "../upstream/payloads.js";
import { InvalidPayloadError } from "./invalid-payload.js";
import { digestOf } from "./prometheus-digest.js";
import type { DigestFacts } from "./replica-facts.js";
import { SampleSet } from "./samples.js";
import { nestsTooDeeply, YAML_NESTING_LIMIT } from "./yaml-depth.js";

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * SHA-256 of a Prometheus's running configuration (`/api/v1/status/config`), the same for the two
 * halves of an HA pair: the YAML is parsed, the `global.external_labels` named in `replicaLabels` are
 * dropped (an emptied `external_labels` with them), and the rest is hashed as canonical JSON (keys
 * sorted), so neither key order nor formatting counts.
 */
export function prometheusConfigSha256(yaml: string, replicaLabels: readonly string[]): string {
  // Measured first: a deep enough text overflows the parser's stack, and on Node 20 aborts the process.
  if (nestsTooDeeply(yaml))
    throw new InvalidPayloadError(`data.yaml is nested more than ${YAML_NESTING_LIMIT} levels deep (not parsed)`);
  let doc: unknown;
  try {
    // logLevel "error": the parser's warnings would reach stderr, quoting the text, outside the logger.
    doc = parse(yaml, { logLevel: "error" });
  } catch {
    // The parser's message quotes the text: keep only a reason without it.
    throw new InvalidPayloadError("data.yaml is not valid YAML");
  }
  const global = isRecord(doc) ? doc.global : undefined;
  if (isRecord(global) && isRecord(global.external_labels)) {
    const labels = global.external_labels;
    for (const name of replicaLabels) delete labels[name];
    if (Object.keys(labels).length === 0) delete global.external_labels;
  }
  return digestOf(doc ?? null);
}

// The series and the facts of one answer share one parse (a large config's YAML is the costly part).
const hashed = new WeakMap<PrometheusConfigResponse, { labels: string; sha256: string }>();

function sha256Of(payload: PrometheusConfigResponse, replicaLabels: readonly string[]): string {
  const labels = replicaLabels.join("\0");
  const known = hashed.get(payload);
  if (known?.labels === labels) return known.sha256;
  const sha256 = prometheusConfigSha256(payload.data.yaml, replicaLabels);
  hashed.set(payload, { labels, sha256 });
  return sha256;
}

export function convertPrometheusConfig(
  payload: PrometheusConfigResponse,
  replicaLabels: readonly string[],
): SampleSet {
  return new SampleSet().add(PROMETHEUS.configInfo.name, { sha256: sha256Of(payload, replicaLabels) }, 1);
}

export function prometheusConfigFacts(
  payload: PrometheusConfigResponse,
  replicaLabels: readonly string[],
): DigestFacts {
  return { kind: "digest", value: sha256Of(payload, replicaLabels) };
}
