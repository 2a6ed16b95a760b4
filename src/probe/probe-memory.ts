import type { Endpoint, ModuleConfig } from "../config/types.js";
import type { ReplicaFacts } from "../convert/replica-facts.js";
import { BoundedMap, type MapBudget } from "../lib/bounded-map.js";
import type { EndpointState, SourceState } from "../publish/source-state.js";

// What the exporter remembers of a probed target from one probe to the next: its counters and last
// success, so that a probe answer's `_total` series count that target's probes (rate() sees failures,
// as for a scheduled source), and, for a module with a group, what the target is compared by. Never
// its series: a target is a few counters and its facts (a few strings, or 9 bytes per target of a
// Prometheus). Each module has a memory of its own, bounded by count and bytes, so that probes of one
// module (the built-in ones take any target) never push another's targets out.

/** What one module remembers at most: targets, and their facts' bytes. */
export const PROBE_MEMORY_BUDGET: Required<MapBudget> = { count: 1000, bytes: 16 * 2 ** 20, entryBytes: 8 * 2 ** 20 };

/**
 * Targets a module with a group remembers at most: its members. A replica group is a few servers, and
 * comparing them costs the main thread time in proportion to their number (and their targets).
 */
export const GROUP_MEMBERS_KEPT = 50;

/**
 * A probed member of a group is compared until this long after its last probe (or twice its module's
 * min_interval, if longer): Prometheus's own staleness period, so a target service discovery dropped
 * leaves the group as its series would.
 */
export const MEMBER_TTL_MS = 5 * 60_000;

interface Remembered {
  /** The probe's source state, without series (facts, counters and last success only). */
  state: SourceState;
  /** Compared as a member until then (grouped modules). */
  untilMs: number;
}

/** Bytes of one string as V8 keeps it, at most (two per character) with its header and slot. */
const stringBytes = (s: string) => 32 + 2 * s.length;

const factsBytes = (facts: ReplicaFacts | undefined): number => {
  if (facts === undefined) return 0;
  if (facts.kind === "prometheus") return facts.targets.byteLength + facts.health.byteLength;
  if (facts.kind === "digest") return stringBytes(facts.value);
  const strings = [facts.peerName, facts.configSha256, facts.version, ...facts.peers];
  return strings.reduce((n, s) => n + stringBytes(s), 0);
};

const SMALL = 1024; // a target's counters, names and Map entries
const sizeOf = ({ state }: Remembered) =>
  SMALL + [...state.endpoints.values()].reduce((n, e) => n + factsBytes(e.facts), 0);

/** A source state as remembered: no series, no summaries for the status page. */
export function withoutSeries(state: SourceState): SourceState {
  const endpoints = new Map<Endpoint, EndpointState>();
  for (const [endpoint, e] of state.endpoints)
    endpoints.set(endpoint, { ...e, families: undefined, summary: undefined });
  return { ...state, endpoints };
}

/** A module's settings as text: a reload that leaves them as they were keeps what the module remembers. */
const settingsOf = (module: ModuleConfig) =>
  JSON.stringify(module, (_key, value) => (value instanceof RegExp ? `/${value.source}/` : value));

/** Whether a target ever answered a probe: a member of a group from then on (a name that never answers is none). */
const answeredOnce = (state: SourceState) =>
  [...state.endpoints.values()].some((e) => e.lastSuccessSeconds !== undefined);

interface ModuleMemory {
  settings: string;
  group: string | undefined;
  kept: BoundedMap<Remembered>;
}

export class ProbeMemory {
  private readonly modules = new Map<string, ModuleMemory>();
  /** Groups that lost a member since `takeLeft` was last asked (pushed out, expired, forgotten). */
  private left = new Set<string>();

  constructor(
    private readonly budget: Required<MapBudget> = PROBE_MEMORY_BUDGET,
    private readonly now: () => number = Date.now,
  ) {}

  /** Targets remembered, all modules together. */
  get size(): number {
    let n = 0;
    for (const m of this.modules.values()) n += m.kept.size;
    return n;
  }

  /** Keeps what modules whose settings are unchanged remember (a reload); forgets the others. */
  sync(modules: ReadonlyMap<string, ModuleConfig>): void {
    for (const [name, memory] of this.modules) {
      const module = modules.get(name);
      if (module !== undefined && settingsOf(module) === memory.settings) continue;
      memory.kept.clear();
      this.modules.delete(name);
    }
  }

  /** The endpoints' states after the target's last probe with this module, if remembered. */
  before(module: string, target: string): ReadonlyMap<Endpoint, EndpointState> | undefined {
    return this.modules.get(module)?.kept.get(target)?.state.endpoints;
  }

  /** Remembers a probe's state (its series left out); false if it is too large to keep. */
  remember(module: ModuleConfig, target: string, state: SourceState): boolean {
    const untilMs = this.now() + Math.max(MEMBER_TTL_MS, 2 * module.minIntervalMs);
    return this.memoryOf(module).kept.set(target, { state: withoutSeries(state), untilMs });
  }

  /**
   * The members of groups (of one, or all): targets of grouped modules that answered a probe once and
   * were probed within the TTL, each a source state without series. A server probed by two modules of
   * one group is one member (its latest probe).
   */
  members(group?: string): SourceState[] {
    const now = this.now();
    const byUrl = new Map<string, { state: SourceState; untilMs: number }>();
    for (const memory of this.modules.values()) {
      if (memory.group === undefined || (group !== undefined && memory.group !== group)) continue;
      for (const [, entry] of memory.kept) {
        if (entry.untilMs <= now || !answeredOnce(entry.state)) continue;
        const other = byUrl.get(entry.state.config.url);
        if (!other || other.untilMs < entry.untilMs) byUrl.set(entry.state.config.url, entry);
      }
    }
    return [...byUrl.values()].map((e) => e.state);
  }

  /** Forgets the members past their TTL (a target of a module without a group is kept until pushed out). */
  expire(): void {
    const now = this.now();
    for (const memory of this.modules.values()) {
      if (memory.group === undefined) continue;
      for (const [target, { untilMs }] of memory.kept) if (untilMs <= now) memory.kept.delete(target);
    }
  }

  /** The groups that lost a member since last asked. */
  takeLeft(): Set<string> {
    const left = this.left;
    this.left = new Set();
    return left;
  }

  private memoryOf(module: ModuleConfig): ModuleMemory {
    let memory = this.modules.get(module.name);
    if (!memory) {
      const group = module.group;
      const budget = group === undefined ? this.budget : { ...this.budget, count: GROUP_MEMBERS_KEPT };
      // Every target that leaves (pushed out, expired, forgotten) may have been a member: its group is compared again.
      const onDrop = () => {
        if (group !== undefined) this.left.add(group);
      };
      memory = { settings: settingsOf(module), group, kept: new BoundedMap(sizeOf, budget, onDrop) };
      this.modules.set(module.name, memory);
    }
    return memory;
  }
}
