import type { Flavor } from "../config/flavors.js";
import type { Endpoint, SourceConfig } from "../config/types.js";
import type { EndpointSummary } from "../convert/endpoint-summary.js";
import type { ReplicaFacts } from "../convert/replica-facts.js";
import { type Families, sameLines } from "../exposition/pack.js";
import type { PollOutcome } from "../poll/poll-endpoint.js";
import { FAILURE_REASONS, type FailureReason } from "../upstream/poll-error.js";

/** What the exporter knows about one endpoint of one source after its latest poll. */
export interface EndpointState {
  up: 0 | 1;
  durationSeconds: number;
  lastSuccessSeconds: number | undefined;
  /** When the last poll finished, whatever its result. */
  lastPollSeconds: number;
  /** Series the last poll produced (0 after a failure). */
  series: number;
  /**
   * Why the last poll failed; undefined after a success. `upstreamText` (what the upstream said) and
   * `hint` (what to change, naming the source's settings) are PollError's: for the status page of a
   * configured source only, never for a probe's client.
   */
  lastError:
    | { reason: FailureReason; message: string; upstreamText?: string; request?: string; hint?: string }
    | undefined;
  failures: Map<FailureReason, number>;
  /** Polls so far whose answer the endpoint's fast reader left to the reference path. */
  fallbacks: number;
  /** Entries of the answers so far left out for repeating a series (the first is kept). */
  duplicates: number;
  /**
   * Rendered series of the last poll if it succeeded (large families as gzip members, pack.ts); a
   * failed poll clears them so nothing stale is served.
   */
  families: Families | undefined;
  /** What replicas are compared by, from the last poll if it succeeded (grouped sources only). */
  facts: ReplicaFacts | undefined;
  /**
   * The status page's figures of the last poll if it succeeded (targets by health, head series, cluster
   * status and peers): a failed poll clears them, as it does the series.
   */
  summary: EndpointSummary | undefined;
}

export interface SourceState {
  config: SourceConfig;
  /** The flavor its answers told (schedule/flavor-detection.ts); a configured one is the config's. */
  flavor?: Flavor;
  /** Endpoints in poll order; an endpoint appears once its first poll has finished. */
  endpoints: Map<Endpoint, EndpointState>;
  /**
   * After a reload that changed the source but not its series (config/same-source.ts sameSeries), what
   * each endpoint's next poll goes on from: its counters and last success, no series. Not served.
   */
  carried?: Map<Endpoint, EndpointState>;
}

/**
 * What a changed source carries over from its state before a reload: counters, for every endpoint it
 * polled or carried (one switched off and on again across two reloads goes on counting too), and, while
 * it is asked of the same server, the time of the last success (an alert on how long ago that was keeps
 * its meaning); never series, facts or figures, which come from the new config's polls.
 */
export function carryOver(state: SourceState, sameServer: boolean): Map<Endpoint, EndpointState> {
  const carried = new Map<Endpoint, EndpointState>();
  for (const [endpoint, before] of [...(state.carried ?? []), ...state.endpoints]) {
    carried.set(endpoint, {
      ...before,
      ...(sameServer ? {} : { lastSuccessSeconds: undefined }),
      families: undefined,
      facts: undefined,
      summary: undefined,
    });
  }
  return carried;
}

/**
 * The new families, where a family's lines are those of the previous poll the previous lines
 * themselves (a packed family's members, a plain one's bytes): their gzip is then reused (store.ts),
 * not compressed again, and an unchanged packed family costs nothing new. Most per-target lines (up,
 * interval, timeout) do not change from one poll to the next.
 */
function keepUnchanged(previous: Families | undefined, next: Families): Families {
  if (!previous) return next;
  const before = new Map(previous);
  return next.map(([name, lines]) => {
    const old = before.get(name);
    return old !== undefined && sameLines(old, lines) ? [name, old] : [name, lines];
  });
}

/** The next state of an endpoint after a poll: replaces the data wholesale, never merges it. */
export function applyOutcome(previous: EndpointState | undefined, outcome: PollOutcome): EndpointState {
  const failures = previous?.failures ?? new Map(FAILURE_REASONS.map((r) => [r, 0]));
  const fallbacks = (previous?.fallbacks ?? 0) + (outcome.fallback ? 1 : 0);
  const duplicates = (previous?.duplicates ?? 0) + ((outcome.ok && outcome.duplicates) || 0);
  if (outcome.ok) {
    return {
      up: 1,
      durationSeconds: outcome.durationSeconds,
      lastSuccessSeconds: outcome.finishedAt,
      lastPollSeconds: outcome.finishedAt,
      series: outcome.series,
      lastError: undefined,
      failures,
      fallbacks,
      duplicates,
      families: keepUnchanged(previous?.families, outcome.families),
      facts: outcome.facts,
      summary: outcome.summary,
    };
  }
  const { reason, message, upstreamText, request, hint } = outcome.error;
  const next = new Map(failures);
  next.set(reason, (next.get(reason) ?? 0) + 1);
  return {
    up: 0,
    durationSeconds: outcome.durationSeconds,
    lastSuccessSeconds: previous?.lastSuccessSeconds,
    lastPollSeconds: outcome.finishedAt,
    series: 0,
    lastError: {
      reason,
      message,
      ...(upstreamText ? { upstreamText } : {}),
      ...(request ? { request } : {}),
      ...(hint ? { hint } : {}),
    },
    failures: next,
    fallbacks,
    duplicates,
    families: undefined,
    facts: undefined,
    summary: undefined,
  };
}

/** The flavor in effect for the info series and the status page: configured, detected, or unknown. */
export function flavorOf(state: Pick<SourceState, "config" | "flavor">): Flavor | "unknown" {
  return state.config.flavor ?? state.flavor ?? "unknown";
}
