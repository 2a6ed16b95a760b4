import { describe, expect, it } from "vitest";
import { failWhereNoneAnswered } from "../../src/poll/none-answered.js";
import type { PollOutcome } from "../../src/poll/poll-endpoint.js";
import { PollError } from "../../src/upstream/poll-error.js";

const notFound404 = () => new PollError("http_status", "HTTP 404", { status: 404, upstreamText: "404 page not found" });
/** An endpoint taken as lacking: what poll-endpoint.ts gives for a recognised bare 404. */
const lacking = (): PollOutcome => ({
  ok: true,
  families: [],
  series: 1,
  durationSeconds: 0.1,
  finishedAt: 5,
  notFound: notFound404(),
});
const answered: PollOutcome = { ok: true, families: [], series: 3, durationSeconds: 0.1, finishedAt: 5 };
const failed: PollOutcome = {
  ok: false,
  error: new PollError("timeout", "no complete answer"),
  durationSeconds: 1,
  finishedAt: 5,
};

describe("failWhereNoneAnswered", () => {
  it("fails every endpoint with its 404 when each one answered 404", () => {
    const outcomes = failWhereNoneAnswered([lacking(), lacking(), lacking()]);
    expect(outcomes.map((o) => o.ok)).toEqual([false, false, false]);
    for (const o of outcomes) {
      if (o.ok) continue;
      expect(o.error).toMatchObject({ reason: "http_status", status: 404, upstreamText: "404 page not found" });
      expect(o.error.hint).toMatch(/no endpoint of this poll answered/);
      expect(o.finishedAt).toBe(5);
    }
  });

  it("keeps a 404 read as a lacking endpoint beside one that answered", () => {
    const outcomes = [answered, lacking()];
    expect(failWhereNoneAnswered(outcomes)).toEqual(outcomes);
  });

  it("fails a 404 read as lacking where every other endpoint failed (tsdb and targets 404 from an Alertmanager)", () => {
    const [first, second] = failWhereNoneAnswered([lacking(), failed]);
    expect(first?.ok).toBe(false);
    if (first && !first.ok)
      expect(first.error).toMatchObject({ status: 404, hint: expect.stringMatching(/no endpoint/) });
    expect(second).toBe(failed);
  });

  it("has nothing to fail for no endpoints", () => {
    expect(failWhereNoneAnswered([])).toEqual([]);
  });
});
