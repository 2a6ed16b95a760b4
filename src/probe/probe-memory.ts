import type { Endpoint } from "../config/types.js";
import type { ReplicaFacts } from "../convert/replica-facts.js";
import { BoundedMap, type MapBudget } from "../lib/bounded-map.js";
import type { EndpointState, SourceState } from "../publish/source-state.js";

// What the exporter remembers of a probed target from one probe to the next: its counters and last
// success, so that a probe answer's `_total` series count that target's probes (rate() sees failures,
// as for a scheduled source), and, for a module with a group, what the target is compared by. Never
// its series: a member is a few counters and its facts (a few strings, or 9 bytes per target of a
// Prometheus). Bounded by count and bytes, as whoever reaches /probe chooses the targets.

/** Targets remembered at most, and their facts' bytes. */
export const PROBE_MEMORY_BUDGET: Required<MapBudget> = { count: 1000, bytes: 32 * 2 ** 20, entryBytes: 8 * 2 ** 20 };

/**
 * A probed member of a group is compared until this long after its last probe (or twice its module's
 * min_interval, if longer): Prometheus's own staleness period, so a target service discovery dropped
 * leaves the group as its series would.
 */
export const MEMBER_TTL_MS = 5 * 60_000;

interface Remembered {
  /** The probe's source state, without series (facts, counters and last success only). */
  state: SourceState;
  /** Compared as a member until then. */
  untilMs: number;
}

const factsBytes = (facts: ReplicaFacts | undefined): number => {
  if (facts === undefined) return 0;
  if (facts.kind === "prometheus") return facts.targets.byteLength + facts.health.byteLength;
  if (facts.kind === "digest") return facts.value.length;
  return facts.peerName.length + facts.configSha256.length + facts.version.length + facts.peers.join("").length;
};

const SMALL = 1024; // a member's counters, names and Map entries
const sizeOf = ({ state }: Remembered) =>
  SMALL + [...state.endpoints.values()].reduce((n, e) => n + factsBytes(e.facts), 0);

/** A source state as remembered: no series, no summaries for the status page. */
export function withoutSeries(state: SourceState): SourceState {
  const endpoints = new Map<Endpoint, EndpointState>();
  for (const [endpoint, e] of state.endpoints)
    endpoints.set(endpoint, { ...e, families: undefined, summary: undefined });
  return { ...state, endpoints };
}

export class ProbeMemory {
  private readonly kept: BoundedMap<Remembered>;

  constructor(
    budget: Required<MapBudget> = PROBE_MEMORY_BUDGET,
    private readonly now: () => number = Date.now,
  ) {
    this.kept = new BoundedMap(sizeOf, budget);
  }

  get size(): number {
    return this.kept.size;
  }

  /** The endpoints' states after the target's last probe with this module, if remembered. */
  before(module: string, target: string): ReadonlyMap<Endpoint, EndpointState> | undefined {
    return this.kept.get(key(module, target))?.state.endpoints;
  }

  /** Remembers a probe's state (its series left out); false if it is too large to keep. */
  remember(module: { name: string; minIntervalMs: number }, target: string, state: SourceState): boolean {
    const untilMs = this.now() + Math.max(MEMBER_TTL_MS, 2 * module.minIntervalMs);
    return this.kept.set(key(module.name, target), { state: withoutSeries(state), untilMs });
  }

  /** The members of groups, probed within the TTL: each a source state without series. */
  members(group?: string): SourceState[] {
    const now = this.now();
    const out: SourceState[] = [];
    for (const [, { state, untilMs }] of this.kept)
      if (untilMs > now && state.config.group !== undefined && (group === undefined || state.config.group === group))
        out.push(state);
    return out;
  }

  /** Forgets members past the TTL; the groups that lost one. */
  expire(): Set<string> {
    const now = this.now();
    const groups = new Set<string>();
    for (const [k, { state, untilMs }] of this.kept)
      if (untilMs <= now) {
        if (state.config.group !== undefined) groups.add(state.config.group);
        this.kept.delete(k);
      }
    return groups;
  }

  /** Forgets everything (the modules changed); the groups that lost members. */
  clear(): Set<string> {
    const groups = new Set(this.members().map((s) => s.config.group as string));
    this.kept.clear();
    return groups;
  }
}

const key = (module: string, target: string) => `${module}\0${target}`;
