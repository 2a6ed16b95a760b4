import { hash } from "node:crypto";
import type { ActiveTarget, AlertmanagerStatusResponse, TargetsResponse } from "../upstream/payloads.js";
import { configSha256 } from "./alertmanager-config.js";
import { infoLabel } from "./info-label.js";
import { labelValue, type TargetLabel } from "./targets.js";
import { healthOf } from "./time.js";

// What one member of a replica group said, kept between polls so the members can be compared: a few
// strings for an Alertmanager, a compact identity per target for a Prometheus (never the answer itself).

export interface AlertmanagerFacts {
  kind: "alertmanager";
  /** The member's own peer name (`cluster.name`); empty when clustering is off. */
  peerName: string;
  /** Peer names the member sees, sorted, itself included (as Alertmanager lists it). */
  peers: string[];
  configSha256: string;
  version: string;
}

/** Health codes of `PrometheusFacts.health`. */
export const HEALTH = { unknown: 0, up: 1, down: 2 } as const;

export interface PrometheusFacts {
  kind: "prometheus";
  /** One 48-bit hash per distinct target identity (scrape pool and per-target labels), ascending. */
  targets: Float64Array;
  /** HEALTH code of each entry of `targets`; targets sharing an identity: down wins, then up. */
  health: Uint8Array;
}

/**
 * One value a Prometheus's replicas are compared by, from one endpoint's answer: the SHA-256 of its
 * config, rule set or flags, or its version (buildinfo).
 */
export interface DigestFacts {
  kind: "digest";
  value: string;
}

export type ReplicaFacts = AlertmanagerFacts | PrometheusFacts | DigestFacts;

export function alertmanagerFacts(payload: AlertmanagerStatusResponse): AlertmanagerFacts {
  return {
    kind: "alertmanager",
    // Bounded as the peer_info and build_info labels are: the status page shows them.
    peerName: infoLabel(payload.cluster.name ?? ""),
    peers: payload.cluster.peers.map((p) => infoLabel(p.name)).sort(),
    configSha256: configSha256(payload.config.original),
    version: infoLabel(payload.versionInfo?.version ?? ""),
  };
}

const HEALTH_BITS = 4; // room for a HEALTH code below the identity hash in one float64 (48 + 2 bits < 53)

/** A target's identity: the labels its per-target series carry, so replicas match as dashboards do. */
function identity(target: ActiveTarget, extra: readonly TargetLabel[]): number {
  let key = `${target.scrapePool}\0${labelValue(target.labels, "job")}\0${labelValue(target.labels, "instance")}`;
  for (const { from } of extra) key += `\0${labelValue(target.labels, from)}`;
  // One-shot hash (Node 20.12+): half the cost of a Hash object per target.
  return hash("sha1", key, "buffer").readUIntBE(0, 6);
}

function healthCode(health: string): number {
  return health === "up" ? HEALTH.up : health === "down" ? HEALTH.down : HEALTH.unknown;
}

/** Identities and health of a Prometheus's active targets, whether or not per-target series are served. */
export function prometheusFacts(payload: TargetsResponse, extraLabels: readonly TargetLabel[]): PrometheusFacts {
  const list = payload.data.activeTargets;
  // Identity and health packed in one number, so one numeric sort orders both.
  const packed = new Float64Array(list.length);
  for (let i = 0; i < list.length; i++) {
    const target = list[i] as ActiveTarget;
    // A target not scraped yet is unknown, as it is counted (time.ts: VictoriaMetrics calls it down).
    const health = healthOf(target);
    packed[i] = identity(target, extraLabels) * HEALTH_BITS + healthCode(health);
  }
  packed.sort();
  const targets = new Float64Array(packed.length);
  const health = new Uint8Array(packed.length);
  let n = -1;
  for (const value of packed) {
    const id = Math.floor(value / HEALTH_BITS);
    const code = value - id * HEALTH_BITS;
    if (n >= 0 && targets[n] === id) {
      if (code === HEALTH.down || (code === HEALTH.up && health[n] === HEALTH.unknown)) health[n] = code;
      continue;
    }
    n++;
    targets[n] = id;
    health[n] = code;
  }
  return { kind: "prometheus", targets: targets.slice(0, n + 1), health: health.slice(0, n + 1) };
}
