import { describe, expect, it } from "vitest";
import type { PollOutcome } from "../../src/poll/poll-endpoint.js";
import { FailureHints } from "../../src/schedule/failure-hints.js";
import { PollError } from "../../src/upstream/poll-error.js";
import { sourceConfig } from "../helpers/config.js";
import { fixtureText } from "../helpers/fixtures.js";

const failed = (error: PollError): PollOutcome => ({ ok: false, error, durationSeconds: 0, finishedAt: 0 });
const notFound = () =>
  failed(new PollError("http_status", "HTTP 404", { status: 404, upstreamText: "404 page not found" }));
const ok: PollOutcome = { ok: true, families: [], series: 0, durationSeconds: 0, finishedAt: 0 };
const errorOf = (o: PollOutcome | undefined) => (o && !o.ok ? o.error : undefined);

/** Hints for a source whose other-kind check is counted and says `answer`. */
function counted(answer: string | undefined, overrides = {}) {
  const calls = { count: 0 };
  const hints = new FailureHints(sourceConfig({ url: "http://user:pw@127.0.0.1:1/prefix", ...overrides }), async () => {
    calls.count++;
    return answer;
  });
  return { hints, calls };
}

describe("FailureHints", () => {
  it("names the request by method and path only: no credentials, no query", async () => {
    const { hints } = counted(undefined, { tsdb: { enabled: true, limit: 10 } });
    const [tsdb] = await hints.explain(["tsdb"], [failed(new PollError("timeout", "no complete answer"))]);
    expect(errorOf(tsdb)?.request).toBe("GET /prefix/api/v1/status/tsdb");
  });

  it("checks the other kind after a 404 once, shared by the endpoints of a poll, and again only after a success", async () => {
    const { hints, calls } = counted("this looks like an Alertmanager");
    for (let poll = 0; poll < 3; poll++) {
      const outcomes = await hints.explain(["tsdb", "targets"], [notFound(), notFound()]);
      expect(outcomes.map((o) => errorOf(o)?.hint)).toEqual([
        "this looks like an Alertmanager",
        "this looks like an Alertmanager",
      ]);
    }
    expect(calls.count).toBe(1);
    // One endpoint succeeding is not the source succeeding.
    await hints.explain(["tsdb", "targets"], [ok, notFound()]);
    expect(calls.count).toBe(1);
    await hints.explain(["tsdb", "targets"], [ok, ok]);
    await hints.explain(["tsdb", "targets"], [notFound(), notFound()]);
    expect(calls.count).toBe(2);
  });

  it("checks nothing for other failures, and keeps what the error said", async () => {
    const { hints, calls } = counted("never");
    const error = new PollError("http_status", "HTTP 500", { status: 500, upstreamText: "boom" });
    const [outcome] = await hints.explain(["tsdb"], [failed(error)]);
    expect(calls.count).toBe(0);
    expect(errorOf(outcome)).toMatchObject({
      reason: "http_status",
      message: "HTTP 500",
      status: 500,
      upstreamText: "boom",
    });
    expect(errorOf(outcome)?.hint).toBeUndefined();
  });

  it("names the credentials with a 401 or 403", async () => {
    const { hints } = counted(undefined);
    const forbidden = new PollError("http_status", "HTTP 403", { status: 403 });
    const [outcome] = await hints.explain(["tsdb"], [failed(forbidden)]);
    expect(errorOf(outcome)?.hint).toBe('credentials sent: the user "user" and password written in the URL');
  });

  it("asks for the tenant header with Mimir's 401 `no org id` (backends/mimir-3.1), not for credentials", async () => {
    const { hints } = counted(undefined, { kind: "alertmanager" });
    const noTenant = new PollError("http_status", "HTTP 401", {
      status: 401,
      upstreamText: fixtureText("backends/mimir-3.1/alertmanager-status-no-tenant.txt").trim(),
    });
    const [outcome] = await hints.explain(["status"], [failed(noTenant)]);
    expect(errorOf(outcome)?.hint).toBe(
      "the server wants a tenant (Mimir: no org id): set `headers: {X-Scope-OrgID: <tenant>}` for this source",
    );
  });
});
