import type { Endpoint } from "../config/types.js";
import { plainLength } from "../exposition/pack.js";
import type { PollOutcome } from "../poll/poll-endpoint.js";
import { PollError } from "../upstream/poll-error.js";

// series_limit alone does not bound a probe's answer: each series carries the target as its `source`
// label (up to 1024 characters), so 100,000 series can be 120 MB of text, built whole for the answer.
// 64 MiB is over three times the text of 100,000 series with a usual target (~20 MB).

/** Text the series of one probe may make, at most; an answer over it fails `too_large` instead. */
export const PROBE_EXPOSITION_BYTES = 64 * 2 ** 20;

interface Polled {
  endpoint: Endpoint;
  outcome: PollOutcome;
}

/** Plain bytes of an outcome's series, read from the lengths kept (packed families are not inflated). */
const seriesBytes = ({ outcome }: Polled): number =>
  outcome.ok ? outcome.families.reduce((n, [, lines]) => n + plainLength(lines), 0) : 0;

/**
 * The endpoints, the largest failed as too_large until the series of the rest fit in `budget`: their
 * families are dropped before the answer's text is built.
 */
export function withinExpositionBudget<P extends Polled>(polled: P[], budget: number): P[] {
  const bytes = polled.map(seriesBytes);
  let total = bytes.reduce((a, b) => a + b, 0);
  if (total <= budget) return polled;
  const whole = total;
  const failed = new Set<number>();
  for (const i of bytes.map((_, i) => i).sort((a, b) => (bytes[b] ?? 0) - (bytes[a] ?? 0))) {
    if (total <= budget) break;
    failed.add(i);
    total -= bytes[i] ?? 0;
  }
  return polled.map((p, i) => {
    if (!failed.has(i)) return p;
    const { durationSeconds, finishedAt } = p.outcome;
    const all = whole === bytes[i] ? "" : ` (${whole} with the other endpoints')`;
    const message = `its series are ${bytes[i]} bytes of text${all}, over the ${budget} a probe may answer with`;
    return { ...p, outcome: { ok: false, error: new PollError("too_large", message), durationSeconds, finishedAt } };
  });
}
