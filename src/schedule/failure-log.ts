import type { Logger } from "pino";
import type { Endpoint } from "../config/types.js";
import { operatorDetail, type PollError } from "../upstream/poll-error.js";

/** How often a failure said at warn is said there again while it goes on or comes back (debug between). */
export const FAILURE_REMINDER_MS = 10 * 60_000;

/**
 * A failure's kind, by which another is told from the same one: its reason, HTTP status and the
 * exporter's own words for it with the figures left out (a timeout's time left, a size), so that
 * ECONNREFUSED after ECONNRESET, or one too_large cause after another, is news.
 */
const failureKind = (error: PollError) => `${error.reason} ${error.status ?? ""} ${error.message.replace(/\d+/g, "#")}`;

/** Milliseconds as seconds to a tenth. */
const seconds = (ms: number) => Math.round(ms / 100) / 10;

interface Failing {
  sinceMs: number;
  polls: number;
  /** Some poll of this run of failures was said at warn (so its end is said at info). */
  warned: boolean;
}

/**
 * What one source's failed and recovered polls say in the log. A failure is said at warn the first
 * time it is met and again once FAILURE_REMINDER_MS have passed, per kind (failureKind), whether it went
 * on or came back meanwhile; the other failed polls at debug, with the same fields. So a source down for
 * a day, an endpoint that fails every other poll and one whose error alternates between two statuses
 * are each a few warn lines an hour, while a new kind of failure is said at once. The first success
 * after failures said at warn is said at info.
 */
export class FailureLog {
  private readonly failing = new Map<Endpoint, Failing>();
  /** When each kind of failure was last said at warn, per endpoint. */
  private readonly said = new Map<Endpoint, Map<string, number>>();

  constructor(
    private readonly source: string,
    private readonly log: Logger,
  ) {}

  failed(endpoint: Endpoint, error: PollError, now = Date.now()): void {
    const kind = failureKind(error);
    let said = this.said.get(endpoint);
    if (!said) {
      said = new Map<string, number>();
      this.said.set(endpoint, said);
    }
    // A kind said longer ago than the reminder is as good as never said: forgotten, so that however many
    // kinds an upstream cycles through, only those of the last FAILURE_REMINDER_MS are held.
    for (const [known, at] of said) if (now - at >= FAILURE_REMINDER_MS) said.delete(known);
    const news = !said.has(kind);
    if (news) said.set(kind, now);
    const before = this.failing.get(endpoint);
    const run = { sinceMs: before?.sinceMs ?? now, polls: (before?.polls ?? 0) + 1, warned: news || !!before?.warned };
    this.failing.set(endpoint, run);
    const fields = { source: this.source, endpoint, reason: error.reason, error: operatorDetail(error) };
    if (!news) this.log.debug(fields, "poll failed");
    else if (run.polls > 1)
      this.log.warn({ ...fields, failed_polls: run.polls, failed_seconds: seconds(now - run.sinceMs) }, "poll failed");
    else this.log.warn(fields, "poll failed");
  }

  succeeded(endpoint: Endpoint, now = Date.now()): void {
    const run = this.failing.get(endpoint);
    if (!run) return;
    this.failing.delete(endpoint);
    // Said as the failures were: a log read for "poll failed" at warn shows where they ended.
    const fields = {
      source: this.source,
      endpoint,
      failed_polls: run.polls,
      failed_seconds: seconds(now - run.sinceMs),
    };
    if (run.warned) this.log.info(fields, "poll succeeded again");
    else this.log.debug(fields, "poll succeeded again");
  }
}
