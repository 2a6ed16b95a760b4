import type { Flavor } from "../config/flavors.js";

/** What a server has said, as far as it is known: any subset (each field is read only when present). */
export interface FlavorEvidence {
  /** Headers of any of its answers (names in any case; Node gives them lower-cased). */
  headers?: Readonly<Record<string, string | readonly string[] | undefined>>;
  /** The parsed body of a 200 answer to `/api/v1/status/buildinfo`. */
  buildinfo?: unknown;
  /** An error answer of a status endpoint: its HTTP status and body text. */
  refusal?: { status: number; body: string };
  /** The parsed body of a 200 answer to `/api/v1/targets`. */
  targets?: unknown;
  /** The parsed body of a 200 answer to `/api/v1/status/tsdb`. */
  tsdb?: unknown;
  /** The parsed body of a 200 answer to Alertmanager's `/api/v2/status`. */
  alertmanagerStatus?: unknown;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const dataOf = (body: unknown) => (isRecord(body) && isRecord(body.data) ? body.data : undefined);

// lib/httpserver/httpserver.go (VictoriaMetrics 1.79 through 1.150): every answer, unless
// -http.header.disableServerHostname is set. Neither Prometheus, Thanos nor Mimir sends it.
const VM_HEADER = "x-server-hostname";
// lib/httpserver/httpserver.go: a path the process does not route. VictoriaMetrics single node routes
// both of these; vmagent neither (1.79 prefixes the text with `remoteAddr: …; requestURI: …; `).
const VMAGENT_REFUSAL = /unsupported path requested: "[^"]*\/api\/v1\/status\/(tsdb|buildinfo)"/;
// web/api/v1/api.go (Prometheus 2.32 through 3.x): agent mode refuses the tsdb status with HTTP 422.
const AGENT_REFUSAL = /unavailable with Prometheus Agent/;
// dskit middleware.AuthenticateUser (user.ErrNoOrgID): Mimir without X-Scope-OrgID, HTTP 401.
const NO_TENANT = /^no org id\n?$/;

/**
 * The flavour of a server from what it said, or undefined when that does not decide it (a caller
 * may then ask `/api/v1/status/buildinfo`, which tells every flavour apart). Pure: no I/O.
 */
export function detectFlavor(evidence: FlavorEvidence): Flavor | undefined {
  const said = [
    fromBuildinfo(evidence.buildinfo),
    fromAlertmanagerStatus(evidence.alertmanagerStatus),
    fromRefusal(evidence.refusal),
    fromTsdb(evidence.tsdb),
    fromTargets(evidence.targets),
  ];
  for (const clue of said) if (clue !== undefined && clue !== "vm-family") return clue;
  return undefined;
}

type Clue = Flavor | "vm-family" | undefined;

/**
 * buildinfo: Mimir adds `application` (pkg/util/version/info_handler.go); VictoriaMetrics answers
 * `{}` (1.79) or a fixed `{"version":"2.24.0"}` (1.96+, app/vmselect/main.go); Thanos has
 * Prometheus's keys with its own 0.x version (pkg/api/api.go ThanosVersion); Prometheus 1.x-3.x.
 */
function fromBuildinfo(body: unknown): Clue {
  const data = dataOf(body);
  if (data === undefined) return undefined;
  if (typeof data.application === "string" && /mimir/i.test(data.application)) return "mimir";
  const keys = Object.keys(data);
  if (keys.length === 0 || (keys.length === 1 && data.version === "2.24.0")) return "victoriametrics";
  if (typeof data.version !== "string" || typeof data.revision !== "string") return undefined;
  const major = /^v?(\d+)\./.exec(data.version)?.[1];
  if (major === "0") return "thanos";
  return major === undefined ? undefined : "prometheus";
}

/**
 * Mimir builds each tenant's Alertmanager API on a NilPeer (pkg/alertmanager/alertmanager.go):
 * status "ready" with no name and no peers. A real Alertmanager is "ready" or "settling" only inside a
 * gossip cluster, which always has a name and lists itself among the peers; without one it says
 * "disabled" (api/v2/api.go getStatusHandler).
 */
function fromAlertmanagerStatus(body: unknown): Clue {
  if (!isRecord(body) || !isRecord(body.cluster)) return undefined;
  const { name, status, peers } = body.cluster;
  if (typeof status !== "string") return undefined;
  if (peers !== undefined && peers !== null && !Array.isArray(peers)) return undefined;
  const named = typeof name === "string" && name !== "";
  return fromCluster({ status, peers: Array.isArray(peers) ? peers.length : 0, named });
}

/**
 * The same from the few figures kept of a status answer (its cluster status and peer count):
 * `named` when the name is known; a peer count of one or more means a gossip cluster, which has one.
 */
export function fromCluster(cluster: { status: string; peers: number; named?: boolean }): Flavor | undefined {
  const named = cluster.named ?? cluster.peers > 0;
  if (cluster.status === "ready" && !named && cluster.peers === 0) return "mimir";
  if (cluster.status === "disabled" || ((cluster.status === "ready" || cluster.status === "settling") && named))
    return "prometheus";
  return undefined;
}

function fromRefusal(refusal: FlavorEvidence["refusal"]): Clue {
  if (refusal === undefined) return undefined;
  if (refusal.status === 400 && VMAGENT_REFUSAL.test(refusal.body)) return "vmagent";
  if (refusal.status === 422 && AGENT_REFUSAL.test(refusal.body)) return "prometheus";
  if (refusal.status === 401 && NO_TENANT.test(refusal.body)) return "mimir";
  return undefined;
}

/** VictoriaMetrics' tsdb status has one day's `totalSeries` and no `headStats` (tsdb_status_response.qtpl). */
function fromTsdb(body: unknown): Clue {
  const data = dataOf(body);
  if (data === undefined) return undefined;
  return typeof data.totalSeries === "number" && data.headStats === undefined ? "victoriametrics" : undefined;
}

/**
 * Only Thanos Query puts `warnings` beside a targets answer (pkg/api/api.go Respond). VictoriaMetrics
 * and vmagent write `lastSamplesScraped` (lib/promscrape/targetstatus.go), but both do: no verdict.
 */
function fromTargets(body: unknown): Clue {
  if (!isRecord(body)) return undefined;
  if (Array.isArray(body.warnings)) return "thanos";
  const active = dataOf(body)?.activeTargets;
  const first = Array.isArray(active) ? active[0] : undefined;
  return isRecord(first) && "lastSamplesScraped" in first ? "vm-family" : undefined;
}

/** Whether the headers come from VictoriaMetrics or vmagent (which of the two they do not say). */
export function fromVictoriaMetricsFamily(evidence: FlavorEvidence): boolean {
  const headers = evidence.headers ?? {};
  if (Object.keys(headers).some((name) => name.toLowerCase() === VM_HEADER)) return true;
  return fromTargets(evidence.targets) === "vm-family";
}
