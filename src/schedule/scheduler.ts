import { createTask, type ScheduledTask } from "node-cron";
import type { Logger } from "pino";
import { endpointsOf, type SourceConfig } from "../config/types.js";
import { pollEndpoint } from "../poll/poll-endpoint.js";
import type { SourceStore } from "../publish/store.js";

interface SourceJob {
  config: SourceConfig;
  task: ScheduledTask | undefined;
  inFlight: Promise<void> | undefined;
  firstPollDone: boolean;
}

/**
 * Polls every source once at start, then on its own cron schedule. Each source runs independently,
 * so a slow one never delays another, and a source is never polled twice at once.
 */
export class Scheduler {
  private readonly jobs: SourceJob[];
  private readonly abort = new AbortController();

  constructor(
    sources: readonly SourceConfig[],
    private readonly store: SourceStore,
    private readonly log: Logger,
  ) {
    this.jobs = sources.map((config) => ({ config, task: undefined, inFlight: undefined, firstPollDone: false }));
  }

  start(): void {
    for (const job of this.jobs) {
      void this.poll(job);
      job.task = createTask(job.config.schedule, () => this.poll(job), {
        name: job.config.name,
        logger: cronLogger(this.log),
      });
      void job.task.start();
    }
  }

  /** True once every source has finished its first poll attempt, successful or not. */
  get ready(): boolean {
    return this.jobs.every((j) => j.firstPollDone);
  }

  /** Stops the schedules, aborts polls in flight and waits for them to wind down. */
  async stop(): Promise<void> {
    await Promise.all(this.jobs.map((j) => j.task?.destroy()));
    this.abort.abort();
    await Promise.allSettled(this.jobs.map((j) => j.inFlight));
  }

  private poll(job: SourceJob): Promise<void> {
    if (this.abort.signal.aborted) return Promise.resolve();
    if (job.inFlight) {
      this.log.warn({ source: job.config.name }, "poll skipped: the previous poll of this source is still running");
      return job.inFlight;
    }
    job.inFlight = this.pollOnce(job.config).finally(() => {
      job.inFlight = undefined;
      job.firstPollDone = true;
    });
    return job.inFlight;
  }

  private async pollOnce(source: SourceConfig): Promise<void> {
    const endpoints = endpointsOf(source);
    const outcomes = await Promise.all(endpoints.map((e) => pollEndpoint(source, e, this.abort.signal)));
    if (this.abort.signal.aborted) return; // shutting down: an aborted poll says nothing about the source
    // Record all endpoints in one synchronous step: a scrape sees the source before or after, never between.
    endpoints.forEach((endpoint, i) => {
      const outcome = outcomes[i];
      if (!outcome) return;
      this.store.record(source.name, endpoint, outcome);
      if (outcome.ok) {
        this.log.debug(
          { source: source.name, endpoint, series: outcome.samples.size, duration_seconds: outcome.durationSeconds },
          "poll succeeded",
        );
      } else {
        this.log.warn(
          { source: source.name, endpoint, reason: outcome.error.reason, error: outcome.error.message },
          "poll failed",
        );
      }
    });
  }
}

function cronLogger(log: Logger) {
  const text = (m: string | Error) => (m instanceof Error ? m.message : m);
  return {
    info: (m: string) => log.debug({ component: "node-cron" }, m),
    warn: (m: string) => log.warn({ component: "node-cron" }, m),
    error: (m: string | Error) => log.error({ component: "node-cron" }, text(m)),
    debug: (m: string | Error) => log.debug({ component: "node-cron" }, text(m)),
  };
}
