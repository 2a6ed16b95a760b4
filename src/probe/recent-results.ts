import { BoundedMap, type MapBudget } from "../lib/bounded-map.js";
import type { ProbeRun } from "./probe.js";
import { withoutSeries } from "./probe-memory.js";

// The results min_interval serves, bounded by bytes as well as by count: one answer of series_limit
// series with a long `source` label is tens of MB, and a thousand of them held the daemon at 3 GB.

/** Results kept at most (count), their exposition bytes in all (bytes), one result's at most (entryBytes). */
export type RecentBudget = Required<MapBudget>;

export const RECENT_BUDGET: RecentBudget = { count: 1000, bytes: 64 * 2 ** 20, entryBytes: 16 * 2 ** 20 };

const finishedAtMs = (run: ProbeRun) => run.startedAt + run.durationSeconds * 1000;

/** The run as kept: its families are in its exposition, and kept once they are counted once. */
// Kept: the exposition (counted in the budget) and the account; the families are in the exposition
// already, and an answer's warnings are for the scheduler's log, never a probe's.
const withoutFamilies = (run: ProbeRun): ProbeRun => ({
  ...run,
  state: withoutSeries(run.state),
  endpoints: run.endpoints.map((e) => {
    if (!e.outcome.ok) return e;
    const { warnings: _dropped, ...outcome } = e.outcome;
    return { ...e, outcome: { ...outcome, families: [] } };
  }),
});

/** The last result per key, each until its module's min_interval has passed. */
export class RecentResults {
  private readonly runs: BoundedMap<ProbeRun>;

  constructor(budget: RecentBudget = RECENT_BUDGET) {
    this.runs = new BoundedMap((run) => run.exposition.byteLength, budget);
  }

  /** Exposition bytes held now. */
  get bytes(): number {
    return this.runs.bytes;
  }

  get size(): number {
    return this.runs.size;
  }

  /** The result for `key` and its age, if it is younger than its module's min_interval. */
  get(key: string): { run: ProbeRun; ageMs: number } | undefined {
    const run = this.runs.get(key);
    if (!run) return undefined;
    const ageMs = Date.now() - finishedAtMs(run);
    return ageMs < run.module.minIntervalMs ? { run, ageMs } : undefined;
  }

  /** Keeps `run` for `key` unless it is over the per-result share; says whether it was kept. */
  set(key: string, run: ProbeRun): boolean {
    this.runs.delete(key);
    this.forgetExpired();
    return this.runs.set(key, withoutFamilies(run));
  }

  clear(): void {
    this.runs.clear();
  }

  /** Drops results older than their module's min_interval, so targets that went away cost nothing. */
  private forgetExpired(): void {
    const now = Date.now();
    for (const [key, run] of this.runs) {
      if (now - finishedAtMs(run) >= run.module.minIntervalMs) this.runs.delete(key);
    }
  }
}
