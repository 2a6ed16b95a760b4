import { isAbsolute, resolve } from "node:path";
import { DEFAULTS } from "./defaults.js";
import { parseDuration } from "./duration.js";
import type { Flavor } from "./flavors.js";
import { servedLabelName } from "./labels.js";
import type { RawConfig, RawModule, RawSource } from "./schema.js";
import { parseSize } from "./size.js";
import {
  type ExporterConfig,
  type HttpClientConfig,
  type ModuleConfig,
  type PollSchedule,
  PROMETHEUS_STATUS_ENDPOINTS,
  type PrometheusStatusEndpoint,
  type SourceConfig,
} from "./types.js";

/**
 * Applies global settings and defaults to each source of a validated config. Relative file paths
 * are taken relative to the config file's folder, as Prometheus does.
 */
export function resolveConfig(raw: RawConfig, baseDir: string): Omit<ExporterConfig, "warnings"> {
  const globalSchedule = pollSchedule(raw.global ?? {}) ?? DEFAULTS.schedule;
  const globalTimeout = raw.global?.timeout ?? DEFAULTS.timeout;
  const globalMaxSize = raw.global?.max_response_size ?? DEFAULTS.maxResponseSize;
  const globals: Globals = {
    flavor: raw.global?.flavor,
    timeout: globalTimeout,
    maxSize: globalMaxSize,
    replicaLabels: raw.global?.replica_labels ?? [...DEFAULTS.replicaLabels],
  };
  const sources = (raw.sources ?? []).map((s): SourceConfig => {
    return {
      name: s.name,
      url: s.url.replace(/\/+$/, ""),
      labels: s.labels ?? {},
      schedule: pollSchedule(s) ?? globalSchedule,
      ...pollSettings(s, globals, baseDir, s.group === undefined ? "source" : "groupedSource"),
      seriesLimit: s.series_limit ?? raw.global?.series_limit ?? DEFAULTS.seriesLimit,
    };
  });
  const modules = new Map<string, ModuleConfig>();
  for (const [name, m] of Object.entries(raw.modules ?? {})) {
    modules.set(name, {
      name,
      ...pollSettings(m, globals, baseDir, "module"),
      // Not global.series_limit, which is for sources: a module keeps its guard unless it sets its own.
      seriesLimit: m.series_limit ?? DEFAULTS.moduleSeriesLimit,
      allowedTargets: (m.allowed_targets ?? []).map((p) => new RegExp(`^(?:${p})$`)),
      minIntervalMs: m.min_interval === undefined ? 0 : (parseDuration(m.min_interval) as number),
    });
  }
  // Built-in modules, as blackbox has http_2xx: the defaults, no credentials, any target.
  const builtIn: RawModule[] = [{ kind: "prometheus" }, { kind: "alertmanager" }];
  for (const m of builtIn) {
    if (!modules.has(m.kind))
      modules.set(m.kind, {
        name: m.kind,
        ...pollSettings(m, globals, baseDir, "module"),
        seriesLimit: DEFAULTS.moduleSeriesLimit,
        allowedTargets: [],
        minIntervalMs: 0,
      });
  }
  return { sources, modules };
}

/** The schedule a level of the config sets, if it sets one (the schema allows one of the two). */
function pollSchedule(level: { schedule?: string; interval?: string }): PollSchedule | undefined {
  if (level.interval !== undefined)
    return { interval: level.interval, intervalMs: parseDuration(level.interval) as number };
  return level.schedule;
}

type RawHttpFields = Pick<
  RawSource,
  "headers" | "tls_config" | "proxy_url" | "follow_redirects" | "basic_auth" | "authorization" | "compression"
>;

interface Globals {
  /** For sources, as replicaLabels. */
  flavor: RawFlavor | undefined;
  timeout: string;
  maxSize: string;
  /** For sources; a module has its own or the default (global settings are for sources). */
  replicaLabels: string[];
}

type Poller = keyof typeof DEFAULTS.statusEndpoints;

type RawFlavor = NonNullable<NonNullable<RawConfig["global"]>["flavor"]>;

/** The configured flavor: the poller's own, else (sources only) global's; auto is left out. */
function flavorSetting(raw: RawSource | RawModule, globals: Globals, poller: Poller): { flavor?: Flavor } {
  const flavor = raw.flavor ?? (poller === "module" ? undefined : globals.flavor);
  // The schema let only flavors that fit the kind through (global's checked against each source).
  return flavor === undefined || flavor === "auto" ? {} : { flavor: flavor as Flavor };
}

/** Whether each of Prometheus's status endpoints is polled: as set, else the poller's default. */
function statusEndpoints(raw: RawSource | RawModule, poller: Poller) {
  const prometheus = raw.kind === "prometheus" ? raw : undefined;
  const enabled = (endpoint: PrometheusStatusEndpoint) => ({
    enabled:
      prometheus?.[endpoint]?.enabled ?? (raw.kind === "prometheus" && DEFAULTS.statusEndpoints[poller][endpoint]),
  });
  const settings = Object.fromEntries(PROMETHEUS_STATUS_ENDPOINTS.map((e) => [e, enabled(e)])) as Record<
    PrometheusStatusEndpoint,
    { enabled: boolean }
  >;
  return { ...settings, flags: { ...settings.flags, ignore: [...(prometheus?.flags?.ignore ?? [])] } };
}

/** What sources and probe modules share: kind, group, limits, endpoints and how to connect. */
function pollSettings(raw: RawSource | RawModule, globals: Globals, baseDir: string, poller: Poller) {
  const prometheus = raw.kind === "prometheus" ? raw : undefined;
  return {
    kind: raw.kind,
    ...flavorSetting(raw, globals, poller),
    ...(raw.group === undefined ? {} : { group: raw.group }),
    timeoutMs: parseDuration(raw.timeout ?? globals.timeout) as number,
    maxResponseBytes: parseSize(raw.max_response_size ?? globals.maxSize) as number,
    tsdb: { enabled: prometheus?.tsdb?.enabled ?? DEFAULTS.tsdb.enabled, limit: prometheus?.tsdb?.limit },
    targets: {
      enabled: prometheus?.targets?.enabled ?? DEFAULTS.targets.enabled,
      perTarget: prometheus?.targets?.per_target ?? DEFAULTS.targets.per_target,
      labels: (prometheus?.targets?.labels ?? []).map((from) => ({ from, to: servedLabelName(from) })),
    },
    // A grouped module asks what its members are compared by, as a grouped source does.
    ...statusEndpoints(raw, poller === "module" && raw.group !== undefined ? "groupedSource" : poller),
    replicaLabels: [
      // A module's own or the defaults; a grouped module's compared with sources, so global's as theirs.
      ...(prometheus?.replica_labels ??
        (poller === "module" && raw.group === undefined ? DEFAULTS.replicaLabels : globals.replicaLabels)),
    ],
    http: resolveHttp(raw, baseDir),
  };
}

function resolveHttp(s: RawHttpFields, baseDir: string): HttpClientConfig {
  const file = (path: string | undefined) => (path === undefined || isAbsolute(path) ? path : resolve(baseDir, path));
  const http: HttpClientConfig = {
    headers: s.headers ?? {},
    tls: {
      caFile: file(s.tls_config?.ca_file),
      certFile: file(s.tls_config?.cert_file),
      keyFile: file(s.tls_config?.key_file),
      serverName: s.tls_config?.server_name,
      insecureSkipVerify: s.tls_config?.insecure_skip_verify ?? false,
    },
    proxyUrl: s.proxy_url,
    followRedirects: s.follow_redirects ?? true,
    compression: s.compression ?? "auto",
  };
  if (s.basic_auth) {
    http.basicAuth = {
      username: s.basic_auth.username,
      password: s.basic_auth.password,
      passwordFile: file(s.basic_auth.password_file),
    };
  }
  if (s.authorization) {
    http.authorization = {
      type: s.authorization.type ?? "Bearer",
      credentials: s.authorization.credentials,
      credentialsFile: file(s.authorization.credentials_file),
    };
  }
  return http;
}
