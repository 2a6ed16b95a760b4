import { ALERTMANAGER } from "../catalogue/families.js";
import type { AlertmanagerStatusResponse } from "../upstream/payloads.js";
import { summarizeAlertmanagerConfig } from "./alertmanager-config.js";
import { buildInfoLabels, infoLabels } from "./info-label.js";
import { SampleSet } from "./samples.js";
import { rfc3339Seconds } from "./time.js";

/** Cluster states Alertmanager reports; each gets a 0/1 series so PromQL can match on the current one. */
export const CLUSTER_STATUSES = ["ready", "settling", "disabled"] as const;

/** Samples for an Alertmanager `/api/v2/status` answer. */
export function convertAlertmanagerStatus(payload: AlertmanagerStatusResponse): SampleSet {
  const out = new SampleSet();
  const { cluster } = payload;

  out.add(ALERTMANAGER.peers.name, {}, cluster.peers.length);
  const statuses = new Set<string>([...CLUSTER_STATUSES, cluster.status]);
  for (const status of statuses)
    out.add(ALERTMANAGER.clusterStatus.name, { status }, status === cluster.status ? 1 : 0);
  for (const peer of cluster.peers) {
    out.add(ALERTMANAGER.peerInfo.name, infoLabels({ peer_name: peer.name, peer_address: peer.address }), 1);
  }

  const started = rfc3339Seconds(payload.uptime);
  if (started !== undefined) out.add(ALERTMANAGER.startTime.name, {}, started);

  const v = payload.versionInfo;
  if (v) {
    const labels = buildInfoLabels(v);
    out.add(ALERTMANAGER.buildInfo.name, labels, 1);
  }

  const config = summarizeAlertmanagerConfig(payload.config.original);
  out.add(ALERTMANAGER.receivers.name, {}, config.receivers);
  out.add(ALERTMANAGER.routes.name, {}, config.routes);
  out.add(ALERTMANAGER.inhibitRules.name, {}, config.inhibitRules);
  out.add(ALERTMANAGER.templates.name, {}, config.templates);
  out.add(ALERTMANAGER.configInfo.name, { config_sha256: config.sha256 }, 1);
  return out;
}
