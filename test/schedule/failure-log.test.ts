import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { FAILURE_REMINDER_MS, FailureLog } from "../../src/schedule/failure-log.js";
import { PollError } from "../../src/upstream/poll-error.js";

const http = (status: number) => new PollError("http_status", `HTTP ${status}`, { status });

function logged() {
  const said: { level: number; msg: string; failed_polls?: number }[] = [];
  const log = pino({ level: "debug" }, { write: (line: string) => void said.push(JSON.parse(line)) });
  /** Each line as its level name and message, with failed_polls where given. */
  const lines = () =>
    said.map(
      (l) =>
        `${l.level === 40 ? "warn" : l.level === 30 ? "info" : "debug"} ${l.msg}${l.failed_polls ? ` ${l.failed_polls}` : ""}`,
    );
  return { failures: new FailureLog("s", log), lines };
}

describe("FailureLog", () => {
  it("says an endpoint flapping between failure and success at warn and info once per reminder period", () => {
    const { failures, lines } = logged();
    for (let i = 0; i < 3; i++) {
      failures.failed("targets", http(500), 60_000 * i);
      failures.succeeded("targets", 60_000 * i + 30_000);
    }
    failures.failed("targets", http(500), 120_000 + FAILURE_REMINDER_MS);
    expect(lines()).toEqual([
      "warn poll failed",
      "info poll succeeded again 1",
      "debug poll failed",
      "debug poll succeeded again 1",
      "debug poll failed",
      "debug poll succeeded again 1",
      "warn poll failed",
    ]);
  });

  it("says each of two statuses that alternate once per reminder period, and a new one at once", () => {
    const { failures, lines } = logged();
    [502, 503, 502, 503, 504].forEach((status, i) => {
      failures.failed("tsdb", http(status), 30_000 * i);
    });
    expect(lines()).toEqual([
      "warn poll failed",
      "warn poll failed 2",
      "debug poll failed",
      "debug poll failed",
      "warn poll failed 5",
    ]);
  });

  it("tells failures of one reason apart by the exporter's words for them, not by their figures", () => {
    const { failures, lines } = logged();
    const connection = (code: string) => new PollError("connection", `connection failed: ${code}`);
    const timeout = (ms: number) => new PollError("timeout", `took longer than the time left (${ms} ms)`);
    failures.failed("tsdb", connection("ECONNRESET"), 0);
    failures.failed("tsdb", connection("ECONNREFUSED"), 30_000);
    failures.failed("tsdb", timeout(1200), 60_000);
    failures.failed("tsdb", timeout(980), 90_000);
    expect(lines()).toEqual(["warn poll failed", "warn poll failed 2", "warn poll failed 3", "debug poll failed"]);
  });

  it("keeps each endpoint's failures apart", () => {
    const { failures, lines } = logged();
    failures.failed("tsdb", http(500), 1);
    failures.failed("targets", http(500), 2);
    failures.succeeded("status", 3); // never failed: nothing to say
    expect(lines()).toEqual(["warn poll failed", "warn poll failed"]);
  });
});
