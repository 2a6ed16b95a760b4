import { ALERTMANAGER, POLL, PROMETHEUS, TARGETS, TSDB } from "../catalogue/families.js";
import type { Endpoint } from "../config/types.js";
import type { SampleSet } from "./samples.js";

// A few figures of one answer for the status page, read from the samples it converts to: both decode
// paths of an endpoint give the same samples for these families (the streaming reader its pool counts),
// so they give the same summary. Small and bounded, whatever the size of the answer.

/** Peer names kept for the status page; the rest are only counted. */
export const PEER_NAMES_KEPT = 10;

export interface EndpointSummary {
  /** Active targets by health (a targets answer); `total` counts every health, unknown included. */
  targets?: { up: number; down: number; total: number };
  /** Series in the TSDB head (a tsdb answer). */
  headSeries?: number;
  /** The Alertmanager's cluster as it sees it: status, peers (itself included), the first names sorted. */
  cluster?: { status: string; peers: number; peerNames: string[] };
  /** Whether the Prometheus's last config reload succeeded (a runtimeinfo answer). */
  configReloadSuccessful?: boolean;
  /** The server answered that it lacks the endpoint (promstatus_endpoint_supported 0). */
  unsupported?: true;
}

/**
 * The summary of an endpoint's answer from its samples; undefined when they hold none of the summarised
 * families. A targets answer always has its counts (an answer of no targets has no pool's samples).
 */
export function summarizeSamples(samples: SampleSet, endpoint: Endpoint): EndpointSummary | undefined {
  const summary: EndpointSummary = {};
  if (endpoint === "targets") {
    const targets = { up: 0, down: 0, total: 0 };
    for (const { labels, value } of samples.get(TARGETS.count.name)) {
      targets.total += value;
      if (labels.health === "up") targets.up += value;
      else if (labels.health === "down") targets.down += value;
    }
    summary.targets = targets;
  }
  const head = samples.families.get(TSDB.headSeries.name)?.[0];
  if (head) summary.headSeries = head.value;
  const peers = samples.families.get(ALERTMANAGER.peers.name)?.[0];
  if (peers) {
    const status = samples.get(ALERTMANAGER.clusterStatus.name).find((s) => s.value === 1)?.labels.status ?? "";
    const names = samples.get(ALERTMANAGER.peerInfo.name).map((s) => s.labels.peer_name ?? "");
    summary.cluster = { status, peers: peers.value, peerNames: names.sort().slice(0, PEER_NAMES_KEPT) };
  }
  if (samples.get(POLL.supported.name).some((s) => s.value === 0)) summary.unsupported = true;
  const reload = samples.families.get(PROMETHEUS.reloadSuccess.name)?.[0];
  if (reload) summary.configReloadSuccessful = reload.value === 1;
  return Object.keys(summary).length > 0 ? summary : undefined;
}
