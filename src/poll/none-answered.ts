import { withContext } from "../upstream/poll-error.js";
import type { PollOutcome } from "./poll-endpoint.js";

const NONE_ANSWERED_HINT =
  "no endpoint of this poll answered, and a 404 reads as a Prometheus lacking the endpoint only beside one " +
  "that did: a url without the server's path (its --web.route-prefix or a proxy's path belongs in it), " +
  "another kind of server, or one older than every endpoint asked";

/**
 * One poll's outcomes (one per endpoint), with the 404s read as a lacking endpoint failed where no
 * endpoint answered: such a 404 reads as an older Prometheus lacking that endpoint (published as
 * unsupported, the poll succeeded) only beside an endpoint that did answer. Where every other endpoint
 * failed too (an Alertmanager answers 404 to tsdb and targets as well), it is any web server's 404: a
 * wrong path or another kind of server, and it fails rather than reading up.
 */
export function failWhereNoneAnswered(outcomes: readonly PollOutcome[]): PollOutcome[] {
  const answered = outcomes.some((o) => o.ok && !o.notFound);
  if (answered || !outcomes.some((o) => o.ok && o.notFound)) return [...outcomes];
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
