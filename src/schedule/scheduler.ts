import type { Logger } from "pino";
import type { Flavor } from "../config/flavors.js";
import { sameServer, sameSource } from "../config/same-source.js";
import { type Endpoint, endpointsOf, type SourceConfig } from "../config/types.js";
import { pollClue } from "../poll/flavor-clues.js";
import { failWhereNoneAnswered } from "../poll/none-answered.js";
import { type PollOutcome, pollEndpoint } from "../poll/poll-endpoint.js";
import type { SourceStore } from "../publish/store.js";
import { type FailureReason, withContext } from "../upstream/poll-error.js";
import { AnswerWarningsLog } from "./answer-warnings-log.js";
import { FailureHints } from "./failure-hints.js";
import { FailureLog } from "./failure-log.js";
import { FlavorDetection } from "./flavor-detection.js";
import { startTicks, type Ticks } from "./ticks.js";

interface SourceJob {
  config: SourceConfig;
  ticks: Ticks;
  /** Aborts this job's polls when the source is removed or changed by a reload. */
  abort: AbortController;
  inFlight: Promise<void> | undefined;
  firstPollDone: boolean;
  /** Notices already logged for this source (each is said once, not on every poll). */
  noticed: Set<string>;
  /** Its answers' warnings already logged (each said once, a bounded number remembered). */
  warnings: AnswerWarningsLog;
  /** Explains this source's failures (the request, and which setting to look at). */
  hints: FailureHints;
  /** What its answers said it is (flavor), kept from poll to poll. */
  detection: FlavorDetection;
  /**
   * Its buildinfo answered without telling the flavor (an older Prometheus's 404, an error answer):
   * not asked first again. A timeout or a failed connection is no answer and leaves it unset.
   */
  buildinfoSilent: boolean;
  /** What its failed and recovered polls say in the log. */
  failures: FailureLog;
}

/**
 * Polls every source once at start, then on its own schedule (cron or interval). Each source runs
 * independently, so a slow one never delays another, and a source is never polled twice at once.
 */
export class Scheduler {
  private jobs = new Map<string, SourceJob>();
  private readonly stopping = new AbortController();
  private wasReady = false;

  constructor(
    private readonly store: SourceStore,
    private readonly log: Logger,
  ) {}

  /** Starts polling these sources; after a reload, keeps the jobs of unchanged ones. */
  apply(sources: readonly SourceConfig[]): void {
    const next = new Map<string, SourceJob>();
    for (const config of sources) {
      const current = this.jobs.get(config.name);
      if (current && sameSource(current.config, config)) {
        next.set(config.name, current);
        this.jobs.delete(config.name);
      } else {
        // Changed: what the source was detected as holds while it is asked of the same server.
        const known = current && sameServer(current.config, config) ? current.detection.flavor : undefined;
        next.set(config.name, this.startJob(config, known));
      }
    }
    // What is left was removed or changed: stop it.
    for (const job of this.jobs.values()) this.stopJob(job);
    this.jobs = next;
  }

  /** True once every source has finished its first poll attempt; stays true after reloads. */
  get ready(): boolean {
    if (!this.wasReady) this.wasReady = [...this.jobs.values()].every((j) => j.firstPollDone);
    return this.wasReady;
  }

  /** Stops the schedules, aborts polls in flight and waits for them to wind down. */
  async stop(): Promise<void> {
    this.stopping.abort();
    const jobs = [...this.jobs.values()];
    await Promise.all(jobs.map((j) => this.stopJob(j)));
  }

  private startJob(config: SourceConfig, known?: Flavor): SourceJob {
    // The first tick comes one period from now at the earliest, after the first poll below has started.
    const ticks = startTicks(config.schedule, () => void this.poll(job), config.name, this.log);
    const job: SourceJob = {
      config,
      ticks,
      abort: new AbortController(),
      inFlight: undefined,
      firstPollDone: false,
      noticed: new Set(),
      warnings: new AnswerWarningsLog(config.name, this.log),
      hints: new FailureHints(config),
      detection: new FlavorDetection(config, this.log, known),
      buildinfoSilent: false,
      failures: new FailureLog(config.name, this.log),
    };
    void this.poll(job);
    return job;
  }

  private async stopJob(job: SourceJob): Promise<void> {
    await job.ticks.stop();
    job.abort.abort();
    await job.inFlight?.catch(() => {});
  }

  private poll(job: SourceJob): Promise<void> {
    if (job.abort.signal.aborted || this.stopping.signal.aborted) return Promise.resolve();
    if (job.inFlight) {
      this.log.warn({ source: job.config.name }, "poll skipped: the previous poll of this source is still running");
      return job.inFlight;
    }
    job.inFlight = this.pollOnce(job)
      .catch((error: unknown) => {
        // The exporter's own fault, not the source's: said loudly, and the daemon goes on polling.
        const message = error instanceof Error ? error.message : String(error);
        this.log.error({ source: job.config.name, err: message }, "poll could not be completed (an exporter bug)");
      })
      .finally(() => {
        job.inFlight = undefined;
        job.firstPollDone = true;
      });
    return job.inFlight;
  }

  private async pollOnce(job: SourceJob): Promise<void> {
    const source = job.config;
    const signal = AbortSignal.any([this.stopping.signal, job.abort.signal]);
    const endpoints = endpointsOf(source);
    const polled = failWhereNoneAnswered(await this.pollEndpoints(job, endpoints, signal));
    if (signal.aborted) return; // stopped or reloaded away: an aborted poll says nothing about the source
    // Hints only add words to failures: if working them out fails, the failures stand as they are.
    const outcomes = await job.hints.explain(endpoints, polled, signal).catch((error: unknown) => {
      const message = error instanceof Error ? error.message : String(error);
      this.log.warn({ source: source.name, err: message }, "could not explain the poll's failures");
      return polled;
    });
    if (signal.aborted) return;
    job.detection.take(pollClue(endpoints.map((endpoint, i) => ({ endpoint, clue: outcomes[i]?.clue }))));
    // Record all endpoints in one synchronous step: a scrape sees the source before or after, never between.
    this.store.setFlavor(source, job.detection.flavor);
    endpoints.forEach((endpoint, i) => {
      const outcome = outcomes[i];
      if (!outcome) return;
      this.store.record(source, endpoint, outcome);
      if (outcome.ok && outcome.notice && !job.noticed.has(outcome.notice)) {
        job.noticed.add(outcome.notice);
        // What the server is (older, an agent, starting up), not a failure: info.
        this.log.info({ source: source.name, endpoint }, outcome.notice);
      }
      if (outcome.ok) job.warnings.take(endpoint, outcome.warnings);
      if (outcome.ok) {
        this.log.debug(
          { source: source.name, endpoint, series: outcome.series, duration_seconds: outcome.durationSeconds },
          "poll succeeded",
        );
        job.failures.succeeded(endpoint);
      } else job.failures.failed(endpoint, outcome.error);
    });
  }

  /**
   * Polls the endpoints at once, each read as the source's flavor in effect. While that is unknown,
   * buildinfo (which tells every flavor apart, and is a few hundred bytes) goes first, so that the
   * other answers of the same poll are already read as what the server is; once it has answered
   * without telling, the endpoints go at once again (no round trip more on every poll).
   */
  private async pollEndpoints(job: SourceJob, endpoints: Endpoint[], signal: AbortSignal): Promise<PollOutcome[]> {
    const source = job.config;
    let flavor: Flavor | undefined = job.detection.inEffect;
    let first: PollOutcome | undefined;
    let rest = source;
    if (flavor === undefined && !job.buildinfoSilent && endpoints.length > 1 && endpoints.includes("buildinfo")) {
      // One timeout for the whole poll, of which buildinfo (a few hundred bytes) has half: a server that
      // does not answer it would otherwise hold the poll for its timeout and the endpoints after it for as
      // long again, or leave them no time at all.
      const started = performance.now();
      first = await pollEndpoint({ ...source, timeoutMs: Math.ceil(source.timeoutMs / 2) }, "buildinfo", signal);
      flavor = job.detection.fitting(first.clue);
      // Only an answer that did not tell counts as silence: after a timeout or a failed connection
      // nothing was said, and buildinfo is asked first again on the next poll.
      job.buildinfoSilent = flavor === undefined && answered(first);
      const left = Math.max(1, Math.floor(source.timeoutMs - (performance.now() - started)));
      if (left < source.timeoutMs) rest = { ...source, timeoutMs: left };
    }
    const outcomes = await Promise.all(
      endpoints.map((e) => (e === "buildinfo" && first ? first : pollEndpoint(rest, e, signal, undefined, flavor))),
    );
    // A timeout says the budget the endpoint had, which the buildinfo asked first splits.
    return outcomes.map((outcome, i) => {
      if (outcome.ok || outcome.error.reason !== "timeout" || signal.aborted) return outcome;
      const split = !first ? "whole" : endpoints[i] === "buildinfo" ? "first" : "rest";
      return {
        ...outcome,
        error: withContext(outcome.error, { hint: timeoutHint(source.timeoutMs, rest.timeoutMs, split) }),
      };
    });
  }
}

/** The budget a timed-out endpoint had: the source's timeout, or its share while buildinfo is asked first. */
function timeoutHint(timeoutMs: number, leftMs: number, split: "whole" | "first" | "rest"): string {
  if (split === "whole") return `the source's timeout is ${timeoutMs} ms`;
  const asked = "while the flavor is unknown, buildinfo is asked first";
  if (split === "first")
    return `${asked}, with half of the source's ${timeoutMs} ms timeout (${Math.ceil(timeoutMs / 2)} ms)`;
  return `${asked}, and the other endpoints after it with what is left of the source's ${timeoutMs} ms timeout (${leftMs} ms)`;
}

/** Whether the server answered at all (an HTTP answer, ok or not), rather than timing out or failing to connect. */
function answered(outcome: PollOutcome): boolean {
  return outcome.ok || !NO_ANSWER.has(outcome.error.reason);
}

const NO_ANSWER: ReadonlySet<FailureReason> = new Set(["timeout", "connection", "tls"]);
