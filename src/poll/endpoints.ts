import { POLL, PROMETHEUS } from "../catalogue/families.js";
import type { Flavor } from "../config/flavors.js";
import type { Endpoint, SourceConfig } from "../config/types.js";
import { SampleSet } from "../convert/samples.js";
import { agentModeSamples, VICTORIAMETRICS_MAX_TOP_N } from "../convert/tsdb.js";
import type { PollError } from "../upstream/poll-error.js";
import { isReadinessGate } from "../upstream/readiness-gate.js";
import type { ChunkDecoder, DecodeOptions, DecoderMemory } from "./decode-types.js";
import { TargetsDecoder } from "./targets-fast-path.js";

export type { ChunkDecoder, ConvertOptions, FastDecoded } from "./decode-types.js";

/** A refusal that is an answer: the server says what it is, rather than that something failed. */
export interface Recognised {
  samples: SampleSet;
  /** Said in the log once per source, with what to do about it. */
  notice: string;
  /**
   * Recognised from a bare 404, which any web server gives: the server is taken to lack the endpoint
   * only if another endpoint of the same poll answers (none-answered.ts).
   */
  notFound?: true;
}

/** How one endpoint is asked for and read as it streams (its reference path: reference.ts). */
export interface EndpointSpec {
  path: string;
  /**
   * The query the endpoint is asked with. `flavor`: the flavor in effect (configured or detected, as in
   * ConvertOptions.flavor); absent: the source's configured one, if any.
   */
  searchParams(source: SourceConfig, flavor?: Flavor): Record<string, string> | undefined;
  /**
   * A streaming way from the answer's bytes to its rendered lines, for its common shape: chunks are read
   * as they arrive, and the result is that of the reference path (JSON.parse, schema, convert, facts,
   * renderSampleSet), or undefined to let that path decide (its result or error stands).
   */
  stream?(options: DecodeOptions, memory?: DecoderMemory): ChunkDecoder;
  /** Error answers that tell something about the server; undefined for a real failure. */
  recognise?(error: PollError): Recognised | undefined;
  /**
   * The exporter's own bound on the bytes read of one answer, decompressed, whatever max_response_size
   * and the decoder's memory allow: the answer's size is the server's to choose, its cost is ours.
   * Absent: those two alone bound it.
   */
  maxBytes?: number;
}

// web/api/v1/api.go (2.32 through 3.x): in agent mode the tsdb status and the rules are wrapped by
// wrapAgent, which answers errorExec "unavailable with Prometheus Agent", and errorExec maps to HTTP 422.
const AGENT_REFUSAL = /unavailable with Prometheus Agent/;
const agentRefusal = (error: PollError) => error.status === 422 && AGENT_REFUSAL.test(error.upstreamText ?? "");
/** The endpoints wrapAgent refuses (the others answer in agent mode too). */
const AGENT_REFUSED: ReadonlySet<Endpoint> = new Set(["tsdb", "rules"]);

// vmagent has neither a TSDB nor a buildinfo route: lib/httpserver/httpserver.go answers any path it
// does not serve with HTTP 400 `unsupported path requested: "<path>"` (a text/plain line), up to
// v1.121 after `remoteAddr: "<addr>"; requestURI: <uri>; ` (from v1.122.0 that goes to its log only).
// Captured from Debian's vmagent 1.79.5 (test/fixtures/backends/victoriametrics-1.79/vmagent-tsdb.txt).
const vmagentRefusal = (error: PollError, path: string) =>
  error.status === 400 &&
  /(?:^|; )unsupported path requested: "([^"]*)"/.exec(error.upstreamText ?? "")?.[1]?.endsWith(path) === true;

const vmagentNotice = (endpoint: Endpoint, path: string) =>
  `this server has no ${path} (HTTP 400 "unsupported path requested", as VictoriaMetrics and vmagent answer ` +
  `a path they do not serve); its targets are still polled. Set \`${endpoint}: {enabled: false}\` for this source to stop asking.`;

const NOT_READY_NOTICE =
  "this Prometheus is not ready (starting up, replaying its WAL, or stopping): its API answers 503 until it is. " +
  "promstatus_prometheus_ready is 0 and promstatus_prometheus_wal_replay_progress shows the replay; " +
  "its other endpoints fail (HTTP 503) until then.";

/** `promstatus_endpoint_supported{endpoint}`: 1 beside every answer, 0 for an endpoint the server lacks. */
export function supportedSample(endpoint: Endpoint, supported: boolean, samples = new SampleSet()): SampleSet {
  return samples.add(POLL.supported.name, { endpoint }, supported ? 1 : 0);
}

/** Which Prometheus first has the endpoint, for the notice when a server lacks it. */
const SINCE: Partial<Record<Endpoint, string>> = {
  config: "2.0",
  rules: "2.4",
  flags: "2.2",
  runtimeinfo: "2.14",
  buildinfo: "2.14",
  walreplay: "2.28",
  features: "3.9",
};

/**
 * A status endpoint that an older server lacks (HTTP 404: Go's router answers "404 page not found") or
 * that agent mode refuses (422), said once and published as unsupported; and the readiness gate's 503,
 * runtimeinfo's answer too: the server is there and not ready yet.
 */
function statusEndpointRecogniser(endpoint: Endpoint, path: string) {
  return (error: PollError): Recognised | undefined => {
    // The gate's 503 is an answer from runtimeinfo only, which publishes ready 0: the other endpoints of a
    // server that is not ready fail as any 503 does, so one that never gets ready does not read as up.
    if (endpoint === "runtimeinfo" && isReadinessGate(error))
      return { samples: new SampleSet().add(PROMETHEUS.ready.name, {}, 0), notice: NOT_READY_NOTICE };
    const setting = `Set \`${endpoint}: {enabled: false}\` for this source to stop asking.`;
    if (vmagentRefusal(error, path))
      return { samples: supportedSample(endpoint, false), notice: vmagentNotice(endpoint, path) };
    if (AGENT_REFUSED.has(endpoint) && agentRefusal(error))
      return {
        samples: supportedSample(endpoint, false),
        notice: `this Prometheus runs in agent mode, which has no ${path} (HTTP 422). ${setting}`,
      };
    if (error.status === 404)
      return {
        samples: supportedSample(endpoint, false),
        notice: `this server has no ${path} (HTTP 404; Prometheus has it since ${SINCE[endpoint]}). ${setting}`,
        notFound: true,
      };
    return undefined;
  };
}

const statusEndpoint = (endpoint: Endpoint, path: string, maxBytes: number): EndpointSpec => ({
  path,
  searchParams: () => undefined,
  recognise: statusEndpointRecogniser(endpoint, path),
  maxBytes,
});

const KiB = 1024;
const MiB = 1024 * KiB;

// Per-endpoint bounds (see EndpointSpec.maxBytes): a real answer's size with 50x headroom or more, so
// no real server meets them and one hostile answer costs little (read whole on the main thread, then
// parsed). What real servers answer, measured on Debian's 2.42 and upstream's code at v3.9.0:
/** buildinfo: six short strings (version, revision, branch, buildUser, buildDate, goVersion), ~250 bytes. */
const BUILDINFO_MAX_BYTES = 64 * KiB;
/** runtimeinfo: 10-13 scalars and short strings (paths, GOMAXPROCS, storage retention), ~300-450 bytes. */
const RUNTIMEINFO_MAX_BYTES = 64 * KiB;
/** walreplay: three numbers (min, max, current segment), ~80 bytes. */
const WALREPLAY_MAX_BYTES = 64 * KiB;
/** flags: every command-line flag and its value, ~2 KB for 2.42's 54; long values (URLs, paths) stay far below. */
const FLAGS_MAX_BYTES = 1 * MiB;
/** features (3.9+): feature names in a dozen categories, 223 names and ~6 KB at 3.9. */
const FEATURES_MAX_BYTES = 1 * MiB;
/**
 * config: the loaded YAML as one JSON string, a few KB to a few MB (an operator-generated config of
 * thousands of jobs with their relabelings, or static targets inlined); 32 MiB holds several times the
 * largest seen.
 */
const CONFIG_MAX_BYTES = 32 * MiB;
/**
 * rules: every group and rule with its query, labels and annotations and, for alerting rules, their
 * active alerts (each alert's labels and annotations: the bulk of a large answer during an outage, as
 * servers before 2.49 cannot be asked to leave them out). Thousands of rules are a few MB; 64 MiB
 * leaves room for tens of thousands of alerts firing at once.
 */
const RULES_MAX_BYTES = 64 * MiB;

const TSDB_PATH = "/api/v1/status/tsdb";

/**
 * Prometheus reads `limit` (2.45+; older ones list 10 and the converter cuts); VictoriaMetrics ignores
 * it and reads `topN` (default 10, capped at 1000: app/vmselect/prometheus/prometheus.go, v1.79.5
 * through v1.150.0; the capture of `?limit=3` lists 10). Only the parameter the server reads is sent.
 */
function tsdbParams(source: SourceConfig, flavor = source.flavor): Record<string, string> | undefined {
  const { limit } = source.tsdb;
  if (limit === undefined) return undefined;
  if (flavor === "victoriametrics") return { topN: String(Math.min(limit, VICTORIAMETRICS_MAX_TOP_N)) };
  return { limit: String(limit) };
}

export const ENDPOINTS: Record<Endpoint, EndpointSpec> = {
  tsdb: {
    path: "/api/v1/status/tsdb",
    searchParams: tsdbParams,
    recognise: (error) => {
      // Not agent mode's samples: vmagent is no Prometheus, and promstatus_prometheus_agent_mode says one.
      if (vmagentRefusal(error, TSDB_PATH))
        return { samples: supportedSample("tsdb", false), notice: vmagentNotice("tsdb", TSDB_PATH) };
      if (agentRefusal(error))
        return {
          samples: supportedSample("tsdb", false, agentModeSamples()),
          notice:
            "this Prometheus runs in agent mode and has no TSDB status; its targets are still polled. " +
            "Set `tsdb: {enabled: false}` for this source to stop asking.",
        };
      return undefined;
    },
  },
  targets: {
    path: "/api/v1/targets",
    // No `state`: 2.47-3.x fill droppedTargetCounts only when dropped targets are shown as well
    // (web/api/v1/api.go, showDropped), so asking for active targets only would lose the counts.
    searchParams: () => undefined,
    stream: (options, memory) => new TargetsDecoder(options, memory),
  },
  status: {
    path: "/api/v2/status",
    searchParams: () => undefined,
  },
  config: statusEndpoint("config", "/api/v1/status/config", CONFIG_MAX_BYTES),
  rules: {
    ...statusEndpoint("rules", "/api/v1/rules", RULES_MAX_BYTES),
    // Neither the counts nor the rule-set hash read the alerts: 2.49+ leave them out when asked (an
    // alerting rule's "alerts": null; web/api/v1/api.go, parseExcludeAlerts, v2.49.0 through v3.5.0);
    // older servers ignore the parameter.
    searchParams: () => ({ exclude_alerts: "true" }),
  },
  flags: statusEndpoint("flags", "/api/v1/status/flags", FLAGS_MAX_BYTES),
  runtimeinfo: statusEndpoint("runtimeinfo", "/api/v1/status/runtimeinfo", RUNTIMEINFO_MAX_BYTES),
  buildinfo: statusEndpoint("buildinfo", "/api/v1/status/buildinfo", BUILDINFO_MAX_BYTES),
  // Not behind the readiness gate (api.go registers serveWALReplayStatus bare): it answers during the replay.
  walreplay: statusEndpoint("walreplay", "/api/v1/status/walreplay", WALREPLAY_MAX_BYTES),
  features: statusEndpoint("features", "/api/v1/features", FEATURES_MAX_BYTES),
};

/** The URL an endpoint's poll requests, query included (for accounts of a poll, not for fetching). */
export function requestUrl(source: SourceConfig, endpoint: Endpoint, flavor?: Flavor): string {
  const spec = ENDPOINTS[endpoint];
  const params = spec.searchParams(source, flavor);
  return `${source.url}${spec.path}${params ? `?${new URLSearchParams(params)}` : ""}`;
}
