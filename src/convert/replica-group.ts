import { GROUP } from "../catalogue/families.js";
import type { Flavor } from "../config/flavors.js";
import { type AlertmanagerFacts, HEALTH, type PrometheusFacts, type ReplicaFacts } from "./replica-facts.js";
import { SampleSet } from "./samples.js";

/** What a Prometheus's replicas are compared by besides their targets, and the endpoint each comes from. */
export const DIGESTS = {
  config: { endpoint: "config", family: GROUP.prometheusConfigVersions.name, differs: "config" },
  rules: { endpoint: "rules", family: GROUP.prometheusRuleVersions.name, differs: "rules" },
  flags: { endpoint: "flags", family: GROUP.prometheusFlagVersions.name, differs: "flags" },
  version: { endpoint: "buildinfo", family: GROUP.prometheusVersions.name, differs: "versions" },
} as const;

export type DigestName = keyof typeof DIGESTS;

/** A member of a replica group as the comparison sees it. */
export interface GroupMember {
  source: string;
  /** Its last poll of every enabled endpoint succeeded. */
  up: boolean;
  /** From its last successful poll of the compared endpoint; undefined if that poll failed. */
  facts: ReplicaFacts | undefined;
  /**
   * Prometheus only: a key for each digest whose endpoint the member polls, its value from the last
   * successful poll (undefined when that poll failed or the server lacks the endpoint).
   */
  digests?: ReadonlyMap<DigestName, string | undefined>;
  /** The server behind the API, configured or detected; undefined while unknown. */
  flavor?: Flavor | undefined;
}

/**
 * Whether the member is in a gossip cluster whose views can be compared. Mimir builds each tenant's
 * Alertmanager on a NilPeer (pkg/alertmanager/alertmanager.go, 3.1): ready, no name, no peers, and its
 * replicas sync over Mimir's ring; compared as gossip peers, each would miss all the others.
 */
export const gossips = (member: Pick<GroupMember, "flavor">) => member.flavor !== "mimir";

/**
 * Whether the member's version says which release it runs. VictoriaMetrics' buildinfo has no version
 * (1.79: `data: {}`) or a fixed "2.24.0" for Grafana (1.96+, app/vmselect/main.go); vmagent has no
 * buildinfo; Mimir's Alertmanager leaves prometheus/common's version empty (its own is elsewhere).
 */
export const tellsVersion = (member: Pick<GroupMember, "flavor">) =>
  member.flavor !== "victoriametrics" && member.flavor !== "vmagent" && member.flavor !== "mimir";

/**
 * Samples of one replica group: membership, then the comparison of the members that answered. A member
 * whose last poll failed counts among the sources but not in the comparisons.
 */
export function compareGroup(kind: "prometheus" | "alertmanager", members: readonly GroupMember[]): SampleSet {
  const out = new SampleSet();
  out.add(GROUP.sources.name, {}, members.length);
  out.add(GROUP.sourcesUp.name, {}, members.filter((m) => m.up).length);
  if (kind === "alertmanager") {
    const answering = members.flatMap((m) => (m.facts?.kind === "alertmanager" ? [{ ...m, facts: m.facts }] : []));
    // A group of Mimir Alertmanagers only: no gossip cluster, so no views or missing peers at all.
    compareAlertmanagers(answering, out, members.some(gossips), members.some(tellsVersion));
  } else {
    const answering = members.flatMap((m) => (m.facts?.kind === "prometheus" ? [{ ...m, facts: m.facts }] : []));
    comparePrometheuses(answering, out);
    for (const [name, count] of digestVersions(members)) out.add(DIGESTS[name].family, {}, count);
  }
  return out;
}

/**
 * Distinct values of each digest among the members that gave one; a digest no member polls is left
 * out (no series), one that every member failed to give counts 0. A member whose version says nothing
 * (tellsVersion) is left out of the versions, as if it did not poll buildinfo.
 */
function digestVersions(members: readonly GroupMember[]): Map<DigestName, number> {
  const counts = new Map<DigestName, number>();
  for (const name of Object.keys(DIGESTS) as DigestName[]) {
    const polled = members.filter((m) => m.digests?.has(name) && (name !== "version" || tellsVersion(m)));
    if (polled.length === 0) continue;
    const values = new Set(polled.flatMap((m) => m.digests?.get(name) ?? []));
    counts.set(name, values.size);
  }
  return counts;
}

/** What the answering members of a group disagree on, in words (for the status page); empty if nothing. */
export function groupDifferences(kind: "prometheus" | "alertmanager", members: readonly GroupMember[]): string[] {
  const differs: string[] = [];
  if (kind === "alertmanager") {
    const answering = members.flatMap((m) => (m.facts?.kind === "alertmanager" ? [{ ...m, facts: m.facts }] : []));
    const distinct = (among: typeof answering, value: (f: AlertmanagerFacts) => string) =>
      new Set(among.map((m) => value(m.facts))).size;
    if (distinct(answering.filter(gossips), (f) => f.peers.join("\n")) > 1) differs.push("cluster views");
    if (distinct(answering, (f) => f.configSha256) > 1) differs.push("config");
    if (distinct(answering.filter(tellsVersion), (f) => f.version) > 1) differs.push("versions");
    return differs;
  }
  const sets = members.flatMap((m) => (m.facts?.kind === "prometheus" ? [m.facts.targets] : []));
  if (distinctTargetSets(sets) > 1) differs.push("targets");
  for (const [name, count] of digestVersions(members)) if (count > 1) differs.push(DIGESTS[name].differs);
  return differs;
}

/**
 * The answering members compared. `gossip`: some member of the group is in a gossip cluster (views and
 * missing peers are compared among those only); `versioned`: some member's version says its release.
 */
function compareAlertmanagers(
  members: (GroupMember & { facts: AlertmanagerFacts })[],
  out: SampleSet,
  gossip: boolean,
  versioned: boolean,
): void {
  const distinct = (among: typeof members, value: (f: AlertmanagerFacts) => string) =>
    new Set(among.map((m) => value(m.facts))).size;
  const peers = members.filter(gossips);
  if (gossip)
    out.add(
      GROUP.clusterViews.name,
      {},
      distinct(peers, (f) => f.peers.join("\n")),
    );
  out.add(
    GROUP.configVersions.name,
    {},
    distinct(members, (f) => f.configSha256),
  );
  if (versioned)
    out.add(
      GROUP.versions.name,
      {},
      distinct(members.filter(tellsVersion), (f) => f.version),
    );
  for (const member of peers) {
    const sees = new Set(member.facts.peers);
    const missing = peers.filter((other) => other !== member && !sees.has(other.facts.peerName)).length;
    out.add(GROUP.missingPeers.name, { source: member.source }, missing);
  }
}

/**
 * One merge over the members' sorted target identities: for each identity, who has it and with what
 * health. Linear in the targets (two 100k-target members: a few ms), and nothing but the arrays is kept.
 */
function comparePrometheuses(members: { source: string; facts: PrometheusFacts }[], out: SampleSet): void {
  const k = members.length;
  const ids = members.map((m) => m.facts.targets);
  const healths = members.map((m) => m.facts.health);
  const next = new Int32Array(k);
  const missing = new Int32Array(k);
  const have = new Uint8Array(k);
  let disagreements = 0;
  for (;;) {
    let min = Number.POSITIVE_INFINITY;
    for (let i = 0; i < k; i++) {
      const list = ids[i] as Float64Array;
      const at = next[i] as number;
      if (at < list.length && (list[at] as number) < min) min = list[at] as number;
    }
    if (min === Number.POSITIVE_INFINITY) break;
    let up = false;
    let down = false;
    for (let i = 0; i < k; i++) {
      const at = next[i] as number;
      if ((ids[i] as Float64Array)[at] !== min) {
        have[i] = 0;
        continue;
      }
      have[i] = 1;
      const health = (healths[i] as Uint8Array)[at];
      if (health === HEALTH.up) up = true;
      else if (health === HEALTH.down) down = true;
      next[i] = at + 1;
    }
    for (let i = 0; i < k; i++) if (have[i] === 0) missing[i] = (missing[i] as number) + 1;
    if (up && down) disagreements++;
  }
  out.add(GROUP.targetSets.name, {}, distinctTargetSets(ids));
  members.forEach((m, i) => {
    out.add(GROUP.targetsMissing.name, { source: m.source }, missing[i] as number);
  });
  out.add(GROUP.healthDisagreements.name, {}, disagreements);
}

function distinctTargetSets(sets: readonly Float64Array[]): number {
  const distinct: Float64Array[] = [];
  for (const set of sets) if (!distinct.some((d) => sameTargets(d, set))) distinct.push(set);
  return distinct.length;
}

function sameTargets(a: Float64Array, b: Float64Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
