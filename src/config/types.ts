import type { ConfigWarning } from "./config-error.js";
import type { Flavor } from "./flavors.js";

/** How to reach a source (Prometheus http_config semantics). Secrets stay in files where given. */
export interface HttpClientConfig {
  basicAuth?: { username: string; password?: string; passwordFile?: string };
  authorization?: { type: string; credentials?: string; credentialsFile?: string };
  headers: Record<string, string>;
  tls: { caFile?: string; certFile?: string; keyFile?: string; serverName?: string; insecureSkipVerify: boolean };
  proxyUrl?: string;
  /** As Prometheus's follow_redirects (default true); credentials never follow to another origin. */
  followRedirects: boolean;
  /** Set for a probe module with allowed_targets: a redirect is followed only to an origin these take. */
  redirectTargets?: readonly RegExp[];
  /** Ask for gzipped answers; auto: not from a loopback address, yes otherwise. */
  compression: "auto" | "gzip" | "none";
}

/**
 * A node-cron expression (5 fields from minutes, or 6 from seconds), or a fixed interval (`interval` as
 * written, and in milliseconds).
 */
export type PollSchedule = string | { interval: string; intervalMs: number };

/** The config with every default applied: what the rest of the exporter works from. */
export interface SourceConfig {
  name: string;
  kind: "prometheus" | "alertmanager";
  /**
   * The server behind the API as configured (one that fits the kind); absent for auto: detected from its
   * answers (schedule/flavor-detection.ts).
   */
  flavor?: Flavor;
  /** Replica group: its members are compared with each other, and every series carries `group`. */
  group?: string;
  /** Base URL without trailing slash; a path prefix is kept. */
  url: string;
  labels: Record<string, string>;
  /** When the source is polled after its first poll at start. */
  schedule: PollSchedule;
  timeoutMs: number;
  /** Cap on an answer's size, counted after decompression. */
  maxResponseBytes: number;
  /** The most series one answer may give (sample_limit); past it the poll fails. 0: no limit. */
  seriesLimit: number;
  tsdb: { enabled: boolean; limit: number | undefined };
  /** `labels`: target labels added to the per-target series (`to` is the name served). */
  targets: { enabled: boolean; perTarget: boolean; labels: { from: string; to: string }[] };
  /** Prometheus's status endpoints of issue 22, each polled when enabled. */
  config: { enabled: boolean };
  rules: { enabled: boolean };
  /** `ignore`: flag names left out of the flag hash, on top of the built-in per-replica ones. */
  flags: { enabled: boolean; ignore: string[] };
  runtimeinfo: { enabled: boolean };
  buildinfo: { enabled: boolean };
  walreplay: { enabled: boolean };
  features: { enabled: boolean };
  /** `global.external_labels` left out of the config hash: what tells the replicas of a pair apart. */
  replicaLabels: string[];
  http: HttpClientConfig;
}

/** How /probe polls a target it is given (blackbox_exporter's modules): a source without a URL. */
export interface ModuleConfig {
  name: string;
  kind: SourceConfig["kind"];
  /** As a source's: absent for auto (a probe then detects it from its own answers, for its info series). */
  flavor?: Flavor;
  group?: string;
  timeoutMs: number;
  maxResponseBytes: number;
  seriesLimit: number;
  tsdb: SourceConfig["tsdb"];
  targets: SourceConfig["targets"];
  config: SourceConfig["config"];
  rules: SourceConfig["rules"];
  flags: SourceConfig["flags"];
  runtimeinfo: SourceConfig["runtimeinfo"];
  buildinfo: SourceConfig["buildinfo"];
  walreplay: SourceConfig["walreplay"];
  features: SourceConfig["features"];
  replicaLabels: string[];
  http: HttpClientConfig;
  /** Anchored patterns a target URL must match; empty means any target (a module without secrets). */
  allowedTargets: RegExp[];
  /** A probe within this long after the last one of the same target is served its result; 0: always poll. */
  minIntervalMs: number;
}

export interface ExporterConfig {
  sources: SourceConfig[];
  /** Configured modules plus the built-in `prometheus` and `alertmanager` where not configured. */
  modules: Map<string, ModuleConfig>;
  /** Said once when the config is loaded (and by --config.check); the config is used as it is. */
  warnings: ConfigWarning[];
}

/** Prometheus's status endpoints switched by a key of their own name (`config: {enabled: true}`). */
export const PROMETHEUS_STATUS_ENDPOINTS = [
  "config",
  "rules",
  "flags",
  "runtimeinfo",
  "buildinfo",
  "walreplay",
  "features",
] as const;

export type PrometheusStatusEndpoint = (typeof PROMETHEUS_STATUS_ENDPOINTS)[number];

/** The endpoints a source polls; also the `endpoint` label value. */
export type Endpoint = "tsdb" | "targets" | "status" | PrometheusStatusEndpoint;

export function endpointsOf(source: SourceConfig): Endpoint[] {
  if (source.kind === "alertmanager") return ["status"];
  const endpoints: Endpoint[] = [];
  if (source.tsdb.enabled) endpoints.push("tsdb");
  if (source.targets.enabled) endpoints.push("targets");
  for (const endpoint of PROMETHEUS_STATUS_ENDPOINTS) if (source[endpoint].enabled) endpoints.push(endpoint);
  return endpoints;
}

/** Prometheus's status endpoints all off and the default replica labels: a source of tsdb and targets only. */
export function statusEndpointsOff(): Pick<SourceConfig, PrometheusStatusEndpoint | "replicaLabels"> {
  const off = () => ({ enabled: false });
  return {
    config: off(),
    rules: off(),
    flags: { enabled: false, ignore: [] },
    runtimeinfo: off(),
    buildinfo: off(),
    walreplay: off(),
    features: off(),
    replicaLabels: ["replica", "prometheus_replica"],
  };
}
