import { pino } from "pino";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/load.js";
import type { ModuleConfig, SourceConfig } from "../../src/config/types.js";
import { debugAccount, debugAnswer } from "../../src/probe/debug-account.js";
import { runProbe } from "../../src/probe/probe.js";
import { SourceStore } from "../../src/publish/store.js";
import {
  AnswerWarningsLog,
  boundedWarning,
  MAX_WARNING_LOGGED,
  MAX_WARNINGS_REMEMBERED,
} from "../../src/schedule/answer-warnings-log.js";
import { Scheduler } from "../../src/schedule/scheduler.js";
import { waitFor } from "../harness/processes.js";
import { startBackendFake, THANOS_0_42 } from "../helpers/backend-fake.js";
import { sourceConfig } from "../helpers/config.js";
import { startFakeUpstream } from "../helpers/fake-upstream.js";
import { fixtureJson, fixtureText } from "../helpers/fixtures.js";
import { warmDecoderThreads } from "../helpers/warm-decoder.js";

// The decoder threads started before the first timed poll, as the exporter starts them.
beforeAll(warmDecoderThreads, 60_000);

// Thanos Query's warnings (an HTTP 200 answer whose store failed the call) through the poll path the
// exporter runs: a scheduler polling a loopback fake that answers the Thanos v0.42.4 fixtures
// (test/fixtures/backends/thanos-0.42/README.md cites pkg/api/api.go Respond at that tag).

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

type Line = { level: number; msg: string; source?: string; endpoint?: string; warning?: string };
const logged: Line[] = [];
const log = pino({ level: "warn" }, { write: (line: string) => void logged.push(JSON.parse(line)) });
const warningsOf = (source: string) => logged.filter((l) => l.source === source && l.warning !== undefined);

// What the fixture's store warning becomes: its Go pointer left out, so one failing store is one warning.
const STORE_WARNING = "fetching targets from targets client &{…}: rpc error: code = Unavailable";
const STORE_ADDRESS = "10.0.2.10:10901";

const fast = { interval: "50ms", intervalMs: 50 };
const targetsOnly = { tsdb: { enabled: false, limit: undefined } } satisfies Partial<SourceConfig>;

function schedule(source: SourceConfig) {
  const store = new SourceStore([source]);
  const scheduler = new Scheduler(store, log);
  scheduler.apply([source]);
  cleanups.push(() => scheduler.stop());
  return { store, scheduler };
}

/** A Thanos Query stand-in whose n-th targets answer (from 0) carries `warnings(n)`. */
async function thanosSaying(warnings: (n: number) => string[]) {
  const answer = fixtureJson("backends/thanos-0.42/query-targets-store-warning.json") as Record<string, unknown>;
  const state = { answers: 0 };
  const upstream = await startFakeUpstream((req, res) => {
    if (!req.url?.startsWith("/api/v1/targets")) {
      res.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end("404 page not found\n");
      return;
    }
    const body = JSON.stringify({ ...answer, warnings: warnings(state.answers++) });
    res.writeHead(200, { "content-type": "application/json" }).end(body);
  });
  cleanups.push(() => upstream.close());
  return { url: upstream.url, state };
}

describe("AnswerWarningsLog", () => {
  it("logs each distinct warning once, remembers at most 100, forgetting the one not seen for longest", () => {
    const lines: Line[] = [];
    const said = new AnswerWarningsLog(
      "q",
      pino({ level: "warn" }, { write: (l: string) => void lines.push(JSON.parse(l)) }),
    );
    said.take("targets", ["a", "b", "a"]);
    said.take("targets", ["b", "c"]);
    expect(lines.map((l) => [l.level, l.source, l.endpoint, l.warning])).toEqual([
      [40, "q", "targets", "a"],
      [40, "q", "targets", "b"],
      [40, "q", "targets", "c"],
    ]);
    for (let i = 0; i < 150; i++) {
      said.take("targets", [`w${i}`, "a"]); // "a" seen on every answer: never the oldest
      expect(said.remembered).toBeLessThanOrEqual(MAX_WARNINGS_REMEMBERED);
    }
    expect(said.remembered).toBe(MAX_WARNINGS_REMEMBERED);
    lines.length = 0;
    said.take("targets", ["a", "w149", "w0", "b"]);
    // w0 and b were forgotten; a and w149 are still remembered.
    expect(lines.map((l) => l.warning)).toEqual(["w0", "b"]);
  });

  it("logs at most 500 characters of a warning, cut with an ellipsis", () => {
    const long = "x".repeat(2000);
    expect(boundedWarning(long)).toBe(`${"x".repeat(MAX_WARNING_LOGGED - 1)}…`);
    expect(boundedWarning("short")).toBe("short");
    // Never half a surrogate pair.
    expect(boundedWarning(`${"x".repeat(MAX_WARNING_LOGGED - 2)}😀😀`)).toBe(`${"x".repeat(MAX_WARNING_LOGGED - 2)}…`);
  });
});

describe("warnings of a scheduled source's answers", () => {
  it("Thanos Query v0.42.4 polled twice: the store's warning is logged once, at warn, without its pointer", async () => {
    const fake = await startBackendFake(THANOS_0_42);
    cleanups.push(() => fake.close());
    schedule(sourceConfig({ name: "query", url: fake.url, schedule: fast }));
    await waitFor(
      "two polls of the targets",
      async () => (fake.paths.filter((p) => p === "/api/v1/targets").length >= 3 ? true : undefined),
      10_000,
      20,
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    const said = warningsOf("query");
    expect(said).toHaveLength(1);
    expect(said[0]).toMatchObject({ level: 40, source: "query", endpoint: "targets" });
    expect(said[0]?.warning).toContain(STORE_WARNING);
    expect(said[0]?.warning).not.toContain("0xc000a8f400");
  });

  it("a new warning text is logged; one said before is not; a reload that changes the source says all again", async () => {
    const upstream = await thanosSaying((n) => (n < 2 ? ["store a is down"] : ["store a is down", "store b is down"]));
    const source = sourceConfig({ name: "varying", url: upstream.url, schedule: fast, ...targetsOnly });
    const { store, scheduler } = schedule(source);
    await waitFor("four answers", async () => (upstream.state.answers >= 4 ? true : undefined), 10_000, 20);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(warningsOf("varying").map((l) => l.warning)).toEqual(["store a is down", "store b is down"]);

    const changed = { ...source, labels: { region: "eu1" } };
    store.apply([changed]);
    scheduler.apply([changed]);
    const before = upstream.state.answers;
    await waitFor(
      "two answers more",
      async () => (upstream.state.answers >= before + 2 ? true : undefined),
      10_000,
      20,
    );
    // The old job's last poll may be one of the two: wait for the new job's first answer to be logged,
    // not for a fixed time (its decode on a busy machine can take longer).
    await waitFor("said again", async () => (warningsOf("varying").length >= 4 ? true : undefined), 10_000, 20);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(warningsOf("varying").map((l) => l.warning)).toEqual([
      "store a is down",
      "store b is down",
      "store a is down",
      "store b is down",
    ]);
  });

  it("150 distinct warnings across polls: no more than 100 remembered, the oldest forgotten first", async () => {
    const text = (i: number) => `store ${i} is down`;
    // Ten a poll (the decoders keep ten distinct of an answer), then the first and the last again.
    const upstream = await thanosSaying((n) =>
      n < 15 ? Array.from({ length: 10 }, (_, j) => text(n * 10 + j)) : [text(0), text(149)],
    );
    schedule(sourceConfig({ name: "churning", url: upstream.url, schedule: fast, ...targetsOnly }));
    await waitFor("the first warning said again", async () =>
      warningsOf("churning").filter((l) => l.warning === text(0)).length >= 2 ? true : undefined,
    );
    const settled = upstream.state.answers;
    await waitFor("three answers more", async () => (upstream.state.answers >= settled + 3 ? true : undefined));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const said = warningsOf("churning").map((l) => l.warning);
    // Each of the 150 once, then the first again (forgotten: 100 remembered), never the last (remembered).
    expect(said).toEqual([...Array.from({ length: 150 }, (_, i) => text(i)), text(0)]);
  });
});

describe("warnings of a probe's answer", () => {
  it("reach the poll's outcome, but nothing of their text reaches the probe's debug account", async () => {
    const fake = await startBackendFake(THANOS_0_42);
    cleanups.push(() => fake.close());
    const module = parseConfig("modules: {}\n", "/tmp/exporter.yml").modules.get("prometheus") as ModuleConfig;
    const run = await runProbe({ module, target: fake.url }, undefined, 500);
    const targets = run.endpoints.find((e) => e.endpoint === "targets")?.outcome;
    if (!targets?.ok) throw new Error("the targets poll failed");
    expect(targets.warnings?.[0]).toContain(STORE_WARNING);
    expect(fixtureText("backends/thanos-0.42/query-targets-store-warning.json")).toContain(STORE_ADDRESS);
    for (const account of [debugAnswer(run, { how: "polled" }), debugAccount(run, { how: "polled" })]) {
      expect(account).toContain("Endpoint targets");
      expect(account).not.toContain(STORE_ADDRESS);
      expect(account).not.toContain("targets client");
      expect(account).not.toContain("rpc error");
    }
    // The count is served; the text is not.
    expect(run.exposition.toString("utf8")).toMatch(/promstatus_answer_warnings\{[^}]*endpoint="targets"[^}]*\} 1\n/);
    expect(run.exposition.toString("utf8")).not.toContain(STORE_ADDRESS);
  });
});
