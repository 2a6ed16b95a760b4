import { withContext } from "../upstream/poll-error.js";
import type { PollOutcome } from "./poll-endpoint.js";

const NONE_ANSWERED_HINT =
  "every endpoint polled answered 404: a url without the server's path (its --web.route-prefix or a " +
  "proxy's path belongs in it), another kind of server, or one older than every endpoint asked";

/**
 * One poll's outcomes (one per endpoint), failed where no endpoint answered: a 404 reads as an older
 * Prometheus lacking that endpoint (published as unsupported, the poll succeeded) only beside an
 * endpoint that did answer. A 404 from every one is any web server's, a wrong path or another kind of
 * server, and each endpoint fails with the 404 it got, rather than every endpoint reading up.
 */
export function failWhereNoneAnswered(outcomes: readonly PollOutcome[]): PollOutcome[] {
  if (outcomes.length === 0 || !outcomes.every((o) => o.ok && o.notFound)) return [...outcomes];
  return outcomes.map((o) => {
    if (!o.ok || !o.notFound) return o;
    const { notFound, durationSeconds, finishedAt, clue } = o;
    return {
      ok: false,
      error: withContext(notFound, { hint: NONE_ANSWERED_HINT }),
      durationSeconds,
      finishedAt,
      ...(clue ? { clue } : {}),
    };
  });
}
