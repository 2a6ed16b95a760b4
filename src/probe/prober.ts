import type { Logger } from "pino";
import { redactUrl } from "../config/redact-url.js";
import type { ModuleConfig } from "../config/types.js";
import type { ProbeMetrics } from "../publish/probe-metrics.js";
import type { SourceState } from "../publish/source-state.js";
import { withDefaultScheme } from "../upstream/plain-url.js";
import { debugAccount, debugAnswer, type Served } from "./debug-account.js";
import { type ProbeRequest, type ProbeRun, runProbe, type ValidProbe, validateProbe } from "./probe.js";
import { ProbeMemory } from "./probe-memory.js";
import { RECENT_BUDGET, type RecentBudget, RecentResults } from "./recent-results.js";

export type ProbeResponse =
  | { status: 200; type: "metrics"; body: Buffer }
  | { status: 200 | 400; type: "text"; body: string }
  | { status: 503; type: "text"; body: string; retryAfterSeconds: number };

export interface ProberLimits {
  /** Polls of upstreams at once (--probe.max-concurrent); a probe that would start another gets 503. */
  maxConcurrent: number;
  /** What the results kept for min_interval may hold (recent-results.ts); RECENT_BUDGET by default. */
  recent?: RecentBudget;
}

/** How often members no longer probed are looked for, to leave their groups (probe-memory.ts MEMBER_TTL_MS). */
const EXPIRE_EVERY_MS = 30_000;
/**
 * Groups compared again at most this often: comparing costs the main thread time in proportion to the
 * members and their targets, and probes of many members would otherwise compare the group at every one.
 */
export const REGROUP_EVERY_MS = 1000;

// Polls mostly end within a second, and the limit is reached by bursts: one second is a fair guess of
// when a slot frees. (Prometheus ignores Retry-After and scrapes again at its interval anyway.)
const RETRY_AFTER_SECONDS = 1;

/** One probe as the status page lists it; `account` is its debug account (without metrics). */
export interface ProbeRecord {
  id: number;
  atMs: number;
  module: string;
  /** Redacted. */
  target: string;
  result: "success" | "failure" | "refused";
  served: Served["how"] | "none";
  durationSeconds: number;
  /** Why it failed or was refused; empty on success. */
  detail: string;
  account: string;
}

export const PROBE_HISTORY_SIZE = 100;
/** Refused probes (400) kept apart, so that a flood of them cannot push the probes that ran out of the history. */
export const REFUSALS_KEPT = 20;
/** Results kept for min_interval, at most: distinct targets beyond it are polled again sooner. */
export const RECENT_RESULTS_KEPT = RECENT_BUDGET.count;

const NO_METRICS: ProbeMetrics = { count() {} };

/**
 * Serves /probe: identical probes in flight share one poll (the two Prometheus servers of an HA pair
 * probing one target at the same moment cost the upstream one request), a module's min_interval
 * serves a recent result instead of polling again, at most `maxConcurrent` polls run at once, and the
 * last probes are kept for the status page.
 */
export class Prober {
  private readonly inFlight = new Map<string, Promise<ProbeRun>>();
  /** The last result per module and target, kept only for modules with a min_interval. */
  private readonly recent: RecentResults;
  /** Each probed target's counters and, in a group, facts: kept from one probe to the next. */
  private readonly memory = new ProbeMemory();
  private groupsChanged: (groups: Iterable<string>) => void = () => {};
  private expiring: NodeJS.Timeout | undefined;
  /** Groups to compare again, at most every REGROUP_EVERY_MS: when they were last, and the next time if due. */
  private readonly regroupDue = new Set<string>();
  private lastRegroupMs = Number.NEGATIVE_INFINITY;
  private regroupTimer: NodeJS.Timeout | undefined;
  private readonly records: ProbeRecord[] = [];
  private readonly refusals: ProbeRecord[] = [];
  /** Bumped whenever the modules change (a reload): sharing and min_interval never cross it. */
  private generation = 0;
  private modulesSeen: ReadonlyMap<string, ModuleConfig> | undefined;
  private nextId = 1;

  constructor(
    private readonly modules: () => ReadonlyMap<string, ModuleConfig>,
    private readonly offsetMs: number,
    private readonly log: Logger,
    private readonly limits: ProberLimits = { maxConcurrent: Number.POSITIVE_INFINITY },
    private readonly metrics: ProbeMetrics = NO_METRICS,
  ) {
    this.recent = new RecentResults(limits.recent);
  }

  /**
   * The members of groups probed lately (a module with `group`), for the store to compare; `changed` is
   * told the groups whose probed members changed. Members not probed for a while are let go.
   */
  groupMembers(changed: (groups: Iterable<string>) => void): (group?: string) => SourceState[] {
    this.groupsChanged = changed;
    this.expiring ??= setInterval(() => {
      this.memory.expire();
      this.regroup([]);
    }, EXPIRE_EVERY_MS).unref();
    return (group) => {
      this.currentModules(); // after a reload, the members of the modules before it are let go at once
      return this.memory.members(group);
    };
  }

  /** Stops letting members go (the daemon stops). */
  close(): void {
    clearInterval(this.expiring);
    this.expiring = undefined;
    clearTimeout(this.regroupTimer);
    this.regroupTimer = undefined;
  }

  /** Upstream polls running now; probes sharing one count once, cached answers not at all. */
  get pollsInFlight(): number {
    return this.inFlight.size;
  }

  /** Exposition bytes of the results kept for min_interval. */
  get recentBytes(): number {
    return this.recent.bytes;
  }

  async probe(request: ProbeRequest & { debug: boolean }): Promise<ProbeResponse> {
    const valid = validateProbe(this.currentModules(), request);
    if (typeof valid === "string") {
      // Only configured names become a label value: the caller chooses the parameter.
      const named = typeof request.module === "string" && this.modules().has(request.module) ? request.module : "";
      this.metrics.count(named, "refused");
      this.remember(this.refusals, REFUSALS_KEPT, {
        module: typeof request.module === "string" ? request.module : "",
        // As it would be fetched, so that a password in `user:pw@host` is seen as one and redacted.
        target:
          typeof request.target === "string" && request.target ? redactUrl(withDefaultScheme(request.target)) : "",
        result: "refused",
        served: "none",
        durationSeconds: 0,
        detail: valid,
        account: `Probe refused: ${valid}\n`,
      });
      return { status: 400, type: "text", body: `${valid}\n` };
    }
    const obtained = await this.obtain(valid, request.scrapeTimeoutSeconds);
    if (obtained === undefined) return this.reject(valid);
    const { run, served } = obtained;
    const failed = run.endpoints.filter((e) => !e.outcome.ok);
    for (const { endpoint, outcome } of failed) {
      // What the upstream said stays in the exporter's own log: the client and the history see the reason only.
      const said = outcome.ok ? undefined : outcome.error.upstreamText;
      if (said)
        this.log.debug({ module: run.module.name, target: run.target, endpoint, upstream_text: said }, "probe failed");
    }
    const result = failed.length === 0 ? "success" : "failure";
    this.metrics.count(run.module.name, result);
    this.remember(this.records, PROBE_HISTORY_SIZE, {
      module: run.module.name,
      target: run.target,
      result,
      served: served.how,
      durationSeconds: run.durationSeconds,
      detail: failed.map((e) => `${e.endpoint}: ${e.outcome.ok ? "" : e.outcome.error.reason}`).join(", "),
      account: debugAccount(run, served),
    });
    if (request.debug) return { status: 200, type: "text", body: debugAnswer(run, served) };
    return { status: 200, type: "metrics", body: run.exposition };
  }

  /** The last probes that ran and the last refused, newest first. */
  history(): readonly ProbeRecord[] {
    return [...this.records, ...this.refusals].sort((a, b) => b.id - a.id);
  }

  /** The debug account of a probe still in the history. */
  account(id: number): string | undefined {
    return (this.records.find((r) => r.id === id) ?? this.refusals.find((r) => r.id === id))?.account;
  }

  /** The modules now; a new set (a reload) starts a generation and drops the results kept for min_interval. */
  private currentModules(): ReadonlyMap<string, ModuleConfig> {
    const modules = this.modules();
    if (modules !== this.modulesSeen) {
      this.modulesSeen = modules;
      this.generation++;
      this.recent.clear();
      // A module may have changed what it polls and how it is labelled: its targets start over.
      this.memory.sync(modules);
      this.regroup([]);
    }
    return this.modulesSeen;
  }

  /**
   * Answers a probe over the limit. It is counted but kept out of the history: a burst of rejections
   * would otherwise push the probes that ran (and their accounts) off the status page.
   */
  private reject({ module, target }: ValidProbe): ProbeResponse {
    this.metrics.count(module.name, "rejected");
    this.log.debug(
      { module: module.name, target: redactUrl(target) },
      "probe rejected: --probe.max-concurrent reached",
    );
    return {
      status: 503,
      type: "text",
      body: `Too many probes in flight: the limit of ${this.limits.maxConcurrent} set by --probe.max-concurrent was reached; try again later.\n`,
      retryAfterSeconds: RETRY_AFTER_SECONDS,
    };
  }

  /**
   * The probe's result: cached, shared with an identical probe in flight, or polled now; undefined
   * when it would start a poll beyond the limit.
   */
  private async obtain(
    valid: ValidProbe,
    scrapeTimeout: string | undefined,
  ): Promise<{ run: ProbeRun; served: Served } | undefined> {
    const { module, target } = valid;
    // A probe polled under another config (before a reload) is neither joined nor served.
    const generation = this.generation;
    const key = `${generation}\0${module.name}\0${target}`;
    const cached = this.recent.get(key);
    if (cached) return { run: cached.run, served: { how: "cached", ageSeconds: cached.ageMs / 1000 } };
    const running = this.inFlight.get(key);
    if (running) return { run: await running, served: { how: "shared" } };
    // No await between this check and the set below: probes arriving together cannot all pass it.
    if (this.inFlight.size >= this.limits.maxConcurrent) return undefined;
    const before = this.memory.before(module.name, target);
    const started = runProbe(valid, scrapeTimeout, this.offsetMs, undefined, before).finally(() =>
      this.inFlight.delete(key),
    );
    this.inFlight.set(key, started);
    const run = await started;
    if (generation === this.generation) {
      this.memory.remember(module, target, run.state);
      this.regroup(module.group === undefined ? [] : [module.group]);
    }
    if (module.minIntervalMs > 0 && generation === this.generation && !this.recent.set(key, run)) {
      this.log.debug(
        { module: module.name, target: run.target, bytes: run.exposition.byteLength },
        "probe result too large to keep for min_interval",
      );
    }
    return { run, served: { how: "polled" } };
  }

  /**
   * Has the store compare `groups` again, and those that lost a member meanwhile: now, or once
   * REGROUP_EVERY_MS have passed since the last time (the groups due gathered until then).
   */
  private regroup(groups: Iterable<string>): void {
    for (const group of [...groups, ...this.memory.takeLeft()]) this.regroupDue.add(group);
    if (this.regroupDue.size === 0 || this.regroupTimer !== undefined) return;
    const waitMs = this.lastRegroupMs + REGROUP_EVERY_MS - performance.now();
    const run = () => {
      this.regroupTimer = undefined;
      this.lastRegroupMs = performance.now();
      const due = [...this.regroupDue];
      this.regroupDue.clear();
      this.groupsChanged(due);
    };
    if (waitMs <= 0) run();
    else this.regroupTimer = setTimeout(run, waitMs).unref();
  }

  private remember(list: ProbeRecord[], size: number, record: Omit<ProbeRecord, "id" | "atMs">): void {
    const entry = { id: this.nextId++, atMs: Date.now(), ...record };
    list.push(entry);
    if (list.length > size) list.shift();
    this.log.debug(
      { module: entry.module, target: entry.target, result: entry.result, served: entry.served, detail: entry.detail },
      "probe",
    );
  }
}
