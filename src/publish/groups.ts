import { type Endpoint, endpointsOf, type SourceConfig } from "../config/types.js";
import { HEALTH, type ReplicaFacts } from "../convert/replica-facts.js";
import {
  compareGroup,
  DIGESTS,
  type DigestName,
  type GroupMember,
  gossips,
  groupDifferences,
  tellsVersion,
} from "../convert/replica-group.js";
import { labelPrefix, renderSampleSet } from "../exposition/text-format.js";
import type { RenderedFamilies } from "../poll/decode.js";
import type { SourceState } from "./source-state.js";

/** A replica group's members in config order, as the comparison and the landing page see them. */
export interface GroupView {
  name: string;
  kind: SourceConfig["kind"];
  members: (GroupMember & { state: SourceState })[];
}

/** The facts of the endpoint a kind is compared by: targets for Prometheus, status for Alertmanager. */
function factsOf(state: SourceState): ReplicaFacts | undefined {
  return state.endpoints.get(state.config.kind === "alertmanager" ? "status" : "targets")?.facts;
}

/** A Prometheus member's digests: one key per digest whose endpoint it polls, its value if it gave one. */
function digestsOf(state: SourceState, endpoints: readonly Endpoint[]): Map<DigestName, string | undefined> {
  const digests = new Map<DigestName, string | undefined>();
  for (const [name, { endpoint }] of Object.entries(DIGESTS) as [DigestName, (typeof DIGESTS)[DigestName]][]) {
    if (!endpoints.includes(endpoint)) continue;
    const facts = state.endpoints.get(endpoint)?.facts;
    digests.set(name, facts?.kind === "digest" ? facts.value : undefined);
  }
  return digests;
}

function memberOf(state: SourceState): GroupMember & { state: SourceState } {
  const endpoints = endpointsOf(state.config);
  const up = endpoints.length > 0 && endpoints.every((e) => state.endpoints.get(e)?.up === 1);
  const flavor = state.config.flavor ?? state.flavor;
  const member = { source: state.config.name, up, facts: factsOf(state), state, ...(flavor ? { flavor } : {}) };
  return state.config.kind === "prometheus" ? { ...member, digests: digestsOf(state, endpoints) } : member;
}

/** Every replica group among the sources (or only the one named), members in config order. */
export function groupViews(sources: Iterable<SourceState>, only?: string): Map<string, GroupView> {
  const groups = new Map<string, GroupView>();
  for (const state of sources) {
    const { group, kind } = state.config;
    if (group === undefined || (only !== undefined && group !== only)) continue;
    let view = groups.get(group);
    if (!view) {
      view = { name: group, kind, members: [] };
      groups.set(group, view);
    }
    view.members.push(memberOf(state));
  }
  return groups;
}

/** The group's series, rendered: every one carries `group`, per-member ones `source` as well. */
export function renderGroup(view: GroupView): RenderedFamilies {
  return renderSampleSet(compareGroup(view.kind, view.members), labelPrefix({ group: view.name }));
}

/** One member's line in the landing page's table of its group. */
export interface GroupMemberRow {
  source: string;
  /** Every enabled endpoint's last poll succeeded. */
  up: boolean;
  /** Unix time of the oldest of its endpoints' last successful polls; undefined before the first. */
  lastSuccessSeconds: number | undefined;
  /** What the member sees: its peers (Alertmanager) or its active targets (Prometheus). */
  view: string;
  /**
   * First 12 hex digits of the running configuration's SHA-256 (Alertmanager), or of the canonical
   * config without replica labels (Prometheus, when its config endpoint answered).
   */
  configHashPrefix: string | undefined;
  /** Prometheus: first 12 hex digits of the rule-set and flag hashes, where known. */
  rulesHashPrefix?: string | undefined;
  flagsHashPrefix?: string | undefined;
  /** The member's version (an Alertmanager's status, a Prometheus's buildinfo), where known. */
  version?: string | undefined;
}

export interface GroupTable {
  name: string;
  kind: SourceConfig["kind"];
  members: GroupMemberRow[];
  /** What the answering members disagree on ("targets", "config", "rules", ...); empty when they agree. */
  differences: string[];
}

const plural = (n: number, noun: string) => `${n} ${noun}${n === 1 ? "" : "s"}`;

/** Peer names shown in a member's view; a larger cluster is summed up after them. */
const PEERS_SHOWN = 10;

function describeView(member: GroupMember): string {
  const { facts } = member;
  if (facts === undefined || facts.kind === "digest") return "no answer";
  if (facts.kind === "alertmanager" && !gossips(member)) return "no gossip cluster (Mimir syncs over its ring)";
  if (facts.kind === "prometheus") {
    let down = 0;
    for (const h of facts.health) if (h === HEALTH.down) down++;
    return `${plural(facts.targets.length, "target")}, ${down} down`;
  }
  const peers = facts.peers.slice(0, PEERS_SHOWN).map((p) => (p === facts.peerName ? `${p} (self)` : p));
  const more = facts.peers.length > PEERS_SHOWN ? ` and ${facts.peers.length - PEERS_SHOWN} more` : "";
  return `${plural(facts.peers.length, "peer")}: ${peers.join(", ")}${more}`;
}

/** The landing page's view of the groups: per member, its last poll, what it sees and its config. */
export function groupTables(views: Iterable<GroupView>): GroupTable[] {
  return [...views].map(({ name, kind, members }) => ({
    name,
    kind,
    differences: groupDifferences(kind, members),
    members: members.map((member): GroupMemberRow => {
      const { source, up, facts, digests, state } = member;
      const successes = [...state.endpoints.values()].map((e) => e.lastSuccessSeconds);
      const polled = successes.length > 0 && successes.every((t) => t !== undefined);
      const row = {
        source,
        up,
        lastSuccessSeconds: polled ? Math.min(...(successes as number[])) : undefined,
        view: describeView(member),
        configHashPrefix: facts?.kind === "alertmanager" ? facts.configSha256.slice(0, 12) : undefined,
      };
      // A version that says nothing of the release (replica-group.ts tellsVersion) is not shown.
      if (facts?.kind === "alertmanager") return tellsVersion(member) ? { ...row, version: facts.version } : row;
      if (digests === undefined) return row;
      return {
        ...row,
        configHashPrefix: digests.get("config")?.slice(0, 12),
        rulesHashPrefix: digests.get("rules")?.slice(0, 12),
        flagsHashPrefix: digests.get("flags")?.slice(0, 12),
        ...(tellsVersion(member) ? { version: digests.get("version") } : {}),
      };
    }),
  }));
}
