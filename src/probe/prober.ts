import type { Logger } from "pino";
import { redactUrl } from "../config/redact-url.js";
import type { ModuleConfig } from "../config/types.js";
import { debugAccount, debugAnswer, type Served } from "./debug-account.js";
import { type ProbeRequest, type ProbeRun, runProbe, type ValidProbe, validateProbe } from "./probe.js";

export type ProbeResponse =
  | { status: 200; type: "metrics"; body: Buffer }
  | { status: 200 | 400; type: "text"; body: string };

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

const finishedAtMs = (run: ProbeRun) => run.startedAt + run.durationSeconds * 1000;

/**
 * Serves /probe: identical probes in flight share one poll (the two Prometheus servers of an HA pair
 * probing one target at the same moment cost the upstream one request), a module's min_interval
 * serves a recent result instead of polling again, and the last probes are kept for the status page.
 */
export class Prober {
  private readonly inFlight = new Map<string, Promise<ProbeRun>>();
  /** The last result per module and target, kept only for modules with a min_interval. */
  private readonly recent = new Map<string, ProbeRun>();
  private readonly records: ProbeRecord[] = [];
  private nextId = 1;

  constructor(
    private readonly modules: () => ReadonlyMap<string, ModuleConfig>,
    private readonly offsetMs: number,
    private readonly log: Logger,
  ) {}

  async probe(request: ProbeRequest & { debug: boolean }): Promise<ProbeResponse> {
    const valid = validateProbe(this.modules(), request);
    if (typeof valid === "string") {
      this.remember({
        module: typeof request.module === "string" ? request.module : "",
        target: typeof request.target === "string" ? redactUrl(request.target) : "",
        result: "refused",
        served: "none",
        durationSeconds: 0,
        detail: valid,
        account: `Probe refused: ${valid}\n`,
      });
      return { status: 400, type: "text", body: `${valid}\n` };
    }
    const { run, served } = await this.obtain(valid, request.scrapeTimeoutSeconds);
    const failed = run.endpoints.filter((e) => !e.outcome.ok);
    this.remember({
      module: run.module.name,
      target: run.target,
      result: failed.length === 0 ? "success" : "failure",
      served: served.how,
      durationSeconds: run.durationSeconds,
      detail: failed.map((e) => `${e.endpoint}: ${e.outcome.ok ? "" : e.outcome.error.reason}`).join(", "),
      account: debugAccount(run, served),
    });
    if (request.debug) return { status: 200, type: "text", body: debugAnswer(run, served) };
    return { status: 200, type: "metrics", body: run.exposition };
  }

  /** The last probes, newest first. */
  history(): readonly ProbeRecord[] {
    return [...this.records].reverse();
  }

  /** The debug account of a probe still in the history. */
  account(id: number): string | undefined {
    return this.records.find((r) => r.id === id)?.account;
  }

  private async obtain(
    valid: ValidProbe,
    scrapeTimeout: string | undefined,
  ): Promise<{ run: ProbeRun; served: Served }> {
    const { module, target } = valid;
    const key = `${module.name}\0${target}`;
    const cached = this.recent.get(key);
    // A result obtained under another config (before a reload) is never served.
    if (cached && cached.module === module) {
      const ageMs = Date.now() - finishedAtMs(cached);
      if (ageMs < module.minIntervalMs) return { run: cached, served: { how: "cached", ageSeconds: ageMs / 1000 } };
    }
    const running = this.inFlight.get(key);
    if (running) return { run: await running, served: { how: "shared" } };
    const started = runProbe(valid, scrapeTimeout, this.offsetMs).finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, started);
    const run = await started;
    if (module.minIntervalMs > 0) {
      this.forgetExpired();
      this.recent.set(key, run);
    }
    return { run, served: { how: "polled" } };
  }

  /** Drops results older than their module's min_interval, so targets that went away cost nothing. */
  private forgetExpired(): void {
    const now = Date.now();
    for (const [key, run] of this.recent) {
      if (now - finishedAtMs(run) >= run.module.minIntervalMs) this.recent.delete(key);
    }
  }

  private remember(record: Omit<ProbeRecord, "id" | "atMs">): void {
    const entry = { id: this.nextId++, atMs: Date.now(), ...record };
    this.records.push(entry);
    if (this.records.length > PROBE_HISTORY_SIZE) this.records.shift();
    this.log.debug(
      { module: entry.module, target: entry.target, result: entry.result, served: entry.served, detail: entry.detail },
      "probe",
    );
  }
}
