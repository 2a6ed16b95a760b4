import type { ProbeRun } from "./probe.js";

// The results min_interval serves, bounded by bytes as well as by count: one answer of series_limit
// series with a long `source` label is tens of MB, and a thousand of them held the daemon at 3 GB.

export interface RecentBudget {
  /** Results kept at most. */
  count: number;
  /** Exposition bytes of all results kept, at most; the oldest go first. */
  bytes: number;
  /** A result larger than this is not kept at all: it would push out many smaller targets' results. */
  entryBytes: number;
}

export const RECENT_BUDGET: RecentBudget = { count: 1000, bytes: 64 * 2 ** 20, entryBytes: 16 * 2 ** 20 };

const finishedAtMs = (run: ProbeRun) => run.startedAt + run.durationSeconds * 1000;

/** The run as kept: its families are in its exposition, and kept once they are counted once. */
const withoutFamilies = (run: ProbeRun): ProbeRun => ({
  ...run,
  endpoints: run.endpoints.map((e) => (e.outcome.ok ? { ...e, outcome: { ...e.outcome, families: [] } } : e)),
});

/** The last result per key, each until its module's min_interval has passed. */
export class RecentResults {
  // A Map iterates in insertion order: the first entry is the oldest.
  private readonly runs = new Map<string, ProbeRun>();
  private totalBytes = 0;

  constructor(private readonly budget: RecentBudget = RECENT_BUDGET) {}

  /** Exposition bytes held now. */
  get bytes(): number {
    return this.totalBytes;
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
    this.delete(key);
    this.forgetExpired();
    if (run.exposition.byteLength > this.budget.entryBytes) return false;
    this.runs.set(key, withoutFamilies(run));
    this.totalBytes += run.exposition.byteLength;
    while (this.runs.size > this.budget.count || this.totalBytes > this.budget.bytes) {
      this.delete(this.runs.keys().next().value as string);
    }
    return true;
  }

  clear(): void {
    this.runs.clear();
    this.totalBytes = 0;
  }

  private delete(key: string): void {
    const run = this.runs.get(key);
    if (!run) return;
    this.runs.delete(key);
    this.totalBytes -= run.exposition.byteLength;
  }

  /** Drops results older than their module's min_interval, so targets that went away cost nothing. */
  private forgetExpired(): void {
    const now = Date.now();
    for (const [key, run] of this.runs) {
      if (now - finishedAtMs(run) >= run.module.minIntervalMs) this.delete(key);
    }
  }
}
