import { PROMETHEUS } from "../catalogue/families.js";
import type { PrometheusFlagsResponse } from "../upstream/payloads.js";
import { digestOf } from "./prometheus-digest.js";
import type { DigestFacts } from "./replica-facts.js";
import { SampleSet } from "./samples.js";

/**
 * Flags that say where a replica is and where its files are, not what it does: the two halves of an HA
 * pair differ in them by design. Read from cmd/prometheus/main.go at v2.42.0 and v3.14.0 (every flag
 * registered there and by the toolkits it calls is in /api/v1/status/flags, its value as text):
 * - web.listen-address, web.external-url: each replica's own address and URL;
 * - web.route-prefix: defaults to the external URL's path (main.go), so it follows web.external-url;
 * - storage.tsdb.path, storage.agent.path: each replica's own data directory;
 * - storage.tsdb.delay-compact-file.path (3.x): a file beside that directory (Thanos shipper's meta);
 * - config.file: where the config is read from; what it says is compared by the config hash;
 * - web.config.file: TLS and auth settings, with each replica's own certificate.
 * Everything else (retention, --enable-feature, query limits, timeouts, ...) is the same on replicas
 * that behave alike; log.level and such a config can leave out with `flags.ignore`.
 */
export const PER_REPLICA_FLAGS: readonly string[] = [
  "web.listen-address",
  "web.external-url",
  "web.route-prefix",
  "storage.tsdb.path",
  "storage.agent.path",
  "storage.tsdb.delay-compact-file.path",
  "config.file",
  "web.config.file",
];

/** SHA-256 of the flags and their values, the per-replica ones and those in `ignore` left out. */
export function prometheusFlagsSha256(payload: PrometheusFlagsResponse, ignore: readonly string[] = []): string {
  const left = new Set([...PER_REPLICA_FLAGS, ...ignore]);
  const flags: Record<string, string> = {};
  for (const [name, value] of Object.entries(payload.data)) if (!left.has(name)) flags[name] = value;
  return digestOf(flags);
}

export function convertPrometheusFlags(payload: PrometheusFlagsResponse, ignore?: readonly string[]): SampleSet {
  return new SampleSet().add(PROMETHEUS.flagsInfo.name, { sha256: prometheusFlagsSha256(payload, ignore) }, 1);
}

export function prometheusFlagsFacts(payload: PrometheusFlagsResponse, ignore?: readonly string[]): DigestFacts {
  return { kind: "digest", value: prometheusFlagsSha256(payload, ignore) };
}
