import { pino } from "pino";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { SourceStore } from "../../src/publish/store.js";
import { Scheduler } from "../../src/schedule/scheduler.js";
import { waitFor } from "../harness/processes.js";
import { sourceConfig } from "../helpers/config.js";
import { samplesOf, valueIn } from "../helpers/exposition.js";
import { closedPort, type FakeUpstream, startFakeUpstream } from "../helpers/fake-upstream.js";
import { partsText } from "../helpers/families.js";
import { fixtureText } from "../helpers/fixtures.js";
import { warmDecoderThreads } from "../helpers/warm-decoder.js";

// The decoder threads started before the first timed poll, as the exporter starts them.
beforeAll(warmDecoderThreads, 60_000);

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  vi.useRealTimers();
});

const status = fixtureText("upstream/alertmanager-status-standalone.json");
const logged: { msg?: string; source?: string; endpoint?: string; error?: string }[] = [];
const log = pino({ level: "warn" }, { write: (line: string) => void logged.push(JSON.parse(line)) });

/** An Alertmanager stand-in answering after `delayMs`, counting concurrent requests. */
async function slowUpstream(delayMs: number) {
  const stats = { active: 0, maxActive: 0, total: 0 };
  const upstream: FakeUpstream = await startFakeUpstream((_req, res) => {
    stats.active++;
    stats.total++;
    stats.maxActive = Math.max(stats.maxActive, stats.active);
    setTimeout(() => {
      stats.active--;
      res.writeHead(200, { "content-type": "application/json" }).end(status);
    }, delayMs);
  });
  cleanups.push(() => upstream.close());
  return { upstream, stats };
}

function start(sources: ReturnType<typeof sourceConfig>[]) {
  const store = new SourceStore(sources);
  const scheduler = new Scheduler(store, log);
  scheduler.apply(sources);
  cleanups.push(() => scheduler.stop());
  return { store, scheduler };
}

/** The exposition once a source's promstatus_up is in it (its first poll recorded, failed or not). */
const published = (store: SourceStore, source: string) =>
  waitFor(
    `${source} published`,
    async () => {
      const t = partsText(store.exposition().parts);
      return samplesOf(t, "promstatus_up", { source }).length ? t : undefined;
    },
    3000,
    20,
  );

describe("Scheduler", () => {
  it("polls at start-up, and a slow source does not delay a fast one", async () => {
    const slow = await slowUpstream(5000);
    const fast = await slowUpstream(0);
    const { store, scheduler } = start([
      sourceConfig({
        name: "slow",
        kind: "alertmanager",
        url: slow.upstream.url,
        schedule: "0 0 * * *",
        timeoutMs: 10_000,
      }),
      sourceConfig({ name: "fast", kind: "alertmanager", url: fast.upstream.url, schedule: "0 0 * * *" }),
    ]);
    const text = await published(store, "fast");
    expect(samplesOf(text, "promstatus_up", { source: "slow" })).toEqual([]);
    expect(scheduler.ready).toBe(false); // the slow source's first poll has not finished
    expect(slow.stats.active).toBe(1);
  });

  it("never polls a source twice at once, even when polls overrun the schedule", async () => {
    const slow = await slowUpstream(2200);
    start([
      sourceConfig({
        name: "s",
        kind: "alertmanager",
        url: slow.upstream.url,
        schedule: "* * * * * *",
        timeoutMs: 10_000,
      }),
    ]);
    // Two polls and two skipped runs, however long the first poll's decoder thread takes to start.
    const skipped = () => logged.filter((l) => l.source === "s" && l.msg?.startsWith("poll skipped"));
    await waitFor(
      "two polls and two skipped runs",
      async () => (slow.stats.total >= 2 && skipped().length >= 2 ? true : undefined),
      15_000,
      50,
    );
    expect(slow.stats.maxActive).toBe(1);
  });

  it("becomes ready once every source has finished its first poll, failed or not", async () => {
    const fast = await slowUpstream(0);
    const { scheduler, store } = start([
      sourceConfig({ name: "ok", kind: "alertmanager", url: fast.upstream.url, schedule: "0 0 * * *" }),
      sourceConfig({
        name: "bad",
        kind: "alertmanager",
        url: `http://127.0.0.1:${await closedPort()}`,
        schedule: "0 0 * * *",
      }),
    ]);
    await waitFor("ready", async () => (scheduler.ready ? true : undefined), 5000, 20);
    expect(valueIn(partsText(store.exposition().parts), "promstatus_up", { source: "bad" })).toBe(0);
  });

  it("gives the whole poll one timeout, buildinfo asked first included", async () => {
    // A server that never answers: buildinfo (asked first while the flavor is unknown) takes the timeout,
    // and the endpoints after it have only what is left of it, not a timeout of their own.
    const silent = await startFakeUpstream(() => {});
    cleanups.push(() => silent.close());
    const timeoutMs = 2000;
    const { scheduler, store } = start([
      sourceConfig({
        name: "silent",
        kind: "prometheus",
        url: silent.url,
        schedule: "0 0 1 1 *",
        timeoutMs,
        buildinfo: { enabled: true },
        runtimeinfo: { enabled: true },
        walreplay: { enabled: true },
      }),
    ]);
    const started = performance.now();
    // Twice the timeout without the fix; the margin is for a busy machine.
    await waitFor("the first poll finished", async () => (scheduler.ready ? true : undefined), 1.7 * timeoutMs, 20);
    expect(performance.now() - started).toBeGreaterThanOrEqual(timeoutMs - 50);
    const text = await published(store, "silent");
    for (const endpoint of ["buildinfo", "runtimeinfo", "walreplay", "tsdb", "targets"])
      expect(valueIn(text, "promstatus_up", { source: "silent", endpoint })).toBe(0);
    // The log says the budget each had.
    const said = (endpoint: string) => logged.find((l) => l.source === "silent" && l.endpoint === endpoint)?.error;
    expect(said("buildinfo")).toMatch(
      /^GET \/api\/v1\/status\/buildinfo: no complete answer within the timeout; while the flavor is unknown, buildinfo is asked first, with half of the source's 2000 ms timeout \(1000 ms\)$/,
    );
    expect(said("tsdb")).toMatch(
      /; while the flavor is unknown, buildinfo is asked first, and the other endpoints after it with what is left of the source's 2000 ms timeout \(\d+ ms\)$/,
    );
  });

  it("says in the log the timeout a timed-out poll had", async () => {
    const silent = await startFakeUpstream(() => {});
    cleanups.push(() => silent.close());
    const { store } = start([
      sourceConfig({ name: "mute-am", kind: "alertmanager", url: silent.url, schedule: "0 0 1 1 *", timeoutMs: 300 }),
    ]);
    await published(store, "mute-am");
    expect(logged.find((l) => l.source === "mute-am")?.error).toBe(
      "GET /api/v2/status: no complete answer within the timeout; the source's timeout is 300 ms",
    );
  });

  it("leaves the endpoints after buildinfo half the timeout when buildinfo alone does not answer", async () => {
    const upstream = await startFakeUpstream((req, res) => {
      if (req.url?.startsWith("/api/v1/status/buildinfo")) return; // never answered
      res.writeHead(200, { "content-type": "application/json" }).end(fixtureText("upstream/prometheus-tsdb.json"));
    });
    cleanups.push(() => upstream.close());
    const { store } = start([
      sourceConfig({
        name: "mute-buildinfo",
        url: upstream.url,
        schedule: "0 0 1 1 *",
        timeoutMs: 2000,
        targets: { enabled: false, perTarget: true, labels: [] },
        buildinfo: { enabled: true },
      }),
    ]);
    const text = await waitFor(
      "the first poll recorded",
      async () => {
        const t = partsText(store.exposition().parts);
        return samplesOf(t, "promstatus_up", { source: "mute-buildinfo" }).length === 2 ? t : undefined;
      },
      5000,
      20,
    );
    expect(valueIn(text, "promstatus_up", { source: "mute-buildinfo", endpoint: "buildinfo" })).toBe(0);
    expect(valueIn(text, "promstatus_up", { source: "mute-buildinfo", endpoint: "tsdb" })).toBe(1);
  });

  it.each([
    ["timed out", "hang"],
    ["failed to connect", "reset"],
  ] as const)("asks buildinfo first again on the next poll when it %s (no answer is not silence)", async (_, fault) => {
    let answering = false;
    const asked: { path: string; at: number }[] = [];
    const upstream = await startFakeUpstream((req, res) => {
      const path = new URL(req.url ?? "/", "http://x").pathname;
      asked.push({ path, at: performance.now() });
      if (path !== "/api/v1/status/buildinfo") {
        res.writeHead(200, { "content-type": "application/json" }).end(fixtureText("upstream/prometheus-tsdb.json"));
      } else if (!answering) {
        if (fault === "reset") req.socket.destroy(); // every attempt of the first poll
      } else {
        const body = fixtureText("upstream/prometheus-buildinfo.json");
        setTimeout(() => res.writeHead(200, { "content-type": "application/json" }).end(body), 300);
      }
    });
    cleanups.push(() => upstream.close());
    const { store } = start([
      sourceConfig({
        name: "unsure",
        url: upstream.url,
        schedule: { interval: "1s", intervalMs: 1000 },
        timeoutMs: 900,
        targets: { enabled: false, perTarget: true, labels: [] },
        buildinfo: { enabled: true },
      }),
    ]);
    const first = await published(store, "unsure");
    expect(valueIn(first, "promstatus_up", { source: "unsure", endpoint: "buildinfo" })).toBe(0);
    answering = true;
    const since = asked.length;
    const next = await waitFor(
      "the next poll's buildinfo and tsdb asked",
      async () => {
        const later = asked.slice(since);
        const buildinfo = later.find((a) => a.path === "/api/v1/status/buildinfo");
        const tsdb = later.find((a) => a.path === "/api/v1/status/tsdb");
        return buildinfo && tsdb ? { buildinfo, tsdb } : undefined;
      },
      5000,
      20,
    );
    // tsdb waited for buildinfo's answer (300 ms) instead of going at once beside it.
    expect(next.tsdb.at - next.buildinfo.at).toBeGreaterThanOrEqual(250);
  });

  it("keeps what a source was detected as across a reload that changes its settings but not its server", async () => {
    let down = false;
    const upstream = await startFakeUpstream((req, res) => {
      if (down) return void res.writeHead(503).end("down");
      const file = req.url?.startsWith("/api/v1/status/buildinfo") ? "buildinfo" : "tsdb";
      res.writeHead(200, { "content-type": "application/json" }).end(fixtureText(`upstream/prometheus-${file}.json`));
    });
    cleanups.push(() => upstream.close());
    const source = sourceConfig({
      name: "p",
      url: upstream.url,
      schedule: "0 0 1 1 *",
      targets: { enabled: false, perTarget: true, labels: [] },
      buildinfo: { enabled: true },
    });
    const { store, scheduler } = start([source]);
    const flavor = () => [...store.states()].find((st) => st.config.name === "p")?.flavor;
    await waitFor("detected", async () => flavor(), 3000, 20);
    expect(flavor()).toBe("prometheus");
    // The server is down when the reload comes: nothing it answers tells the flavor again.
    down = true;
    const slower = { ...source, timeoutMs: source.timeoutMs + 500 };
    store.apply([slower]);
    scheduler.apply([slower]);
    const text = await published(store, "p");
    expect(valueIn(text, "promstatus_up", { source: "p", endpoint: "tsdb" })).toBe(0);
    expect(flavor()).toBe("prometheus");
  });

  it("stops promptly, aborting a poll in flight", async () => {
    const slow = await slowUpstream(10_000);
    const sources = [sourceConfig({ name: "s", kind: "alertmanager", url: slow.upstream.url, timeoutMs: 20_000 })];
    const store = new SourceStore(sources);
    const scheduler = new Scheduler(store, log);
    scheduler.apply(sources);
    await waitFor("request arrived", async () => (slow.stats.total ? true : undefined), 3000, 20);
    const started = Date.now();
    await scheduler.stop();
    expect(Date.now() - started).toBeLessThan(1000);
    // An aborted poll says nothing about the source: it is not recorded as a failure.
    expect(samplesOf(partsText(store.exposition().parts), "promstatus_up")).toEqual([]);
  });

  describe("on an interval", () => {
    /** An Alertmanager stand-in that holds each request until the test lets it answer. */
    async function heldUpstream() {
      const stats = { active: 0, maxActive: 0, total: 0 };
      const held: (() => void)[] = [];
      const upstream = await startFakeUpstream((_req, res) => {
        stats.active++;
        stats.total++;
        stats.maxActive = Math.max(stats.maxActive, stats.active);
        held.push(() => {
          stats.active--;
          res.writeHead(200, { "content-type": "application/json" }).end(status);
        });
      });
      cleanups.push(() => upstream.close());
      const answerAll = () => {
        for (const answer of held.splice(0)) answer();
      };
      return { upstream, stats, answerAll };
    }
    const every30s = { interval: "30s", intervalMs: 30_000 };
    // Only the interval timer is faked: the test moves the clock; the polls' HTTP runs as ever.
    const fakeInterval = () => vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });

    it("polls at start, then once per interval, never twice at once", async () => {
      fakeInterval();
      const { upstream, stats, answerAll } = await heldUpstream();
      const source = sourceConfig({ name: "iv", kind: "alertmanager", url: upstream.url, schedule: every30s });
      const { scheduler } = start([source]);
      await waitFor("first poll", async () => (stats.total === 1 ? true : undefined), 3000, 10);
      // Two ticks while the first poll is still running: both skipped, and said so.
      vi.advanceTimersByTime(60_000);
      expect(stats.total).toBe(1);
      expect(logged.filter((l) => l.source === "iv" && l.msg?.startsWith("poll skipped"))).toHaveLength(2);
      answerAll();
      await waitFor("first poll done", async () => (scheduler.ready ? true : undefined), 3000, 10);
      vi.advanceTimersByTime(29_999);
      expect(stats.total).toBe(1);
      vi.advanceTimersByTime(1);
      await waitFor("second poll", async () => (stats.total === 2 ? true : undefined), 3000, 10);
      expect(stats.maxActive).toBe(1);
      answerAll();
    });

    it("stops its timer on stop, and on a reload that changes the source", async () => {
      fakeInterval();
      const { upstream, stats, answerAll } = await heldUpstream();
      const source = sourceConfig({ name: "iv", kind: "alertmanager", url: upstream.url, schedule: every30s });
      const store = new SourceStore([source]);
      const scheduler = new Scheduler(store, log);
      cleanups.push(() => scheduler.stop());
      scheduler.apply([source]);
      expect(vi.getTimerCount()).toBe(1);
      // A changed interval is a changed source: its job, timer included, is replaced.
      scheduler.apply([{ ...source, schedule: { interval: "1m", intervalMs: 60_000 } }]);
      expect(vi.getTimerCount()).toBe(1);
      // A cron schedule needs no interval timer.
      scheduler.apply([{ ...source, schedule: "0 0 1 1 *" }]);
      expect(vi.getTimerCount()).toBe(0);
      scheduler.apply([source]);
      await waitFor("polls arrived", async () => (stats.total >= 1 ? true : undefined), 3000, 10);
      answerAll();
      const stopped = scheduler.stop();
      answerAll();
      await stopped;
      expect(vi.getTimerCount()).toBe(0);
      const polled = stats.total;
      vi.advanceTimersByTime(10 * 30_000);
      expect(stats.total).toBe(polled);
    });
  });

  it("says once when an endpoint's polls succeed again after failing, how many failed and for how long", async () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
    const said: { msg?: string; source?: string; endpoint?: string; failed_polls?: number; failed_seconds?: number }[] =
      [];
    const infoLog = pino({ level: "info" }, { write: (line: string) => void said.push(JSON.parse(line)) });
    let answers = 0;
    const upstream = await startFakeUpstream((_req, res) => {
      // Two failures, then answers.
      if (++answers <= 2) res.writeHead(418, { "content-type": "text/plain" }).end("no");
      else res.writeHead(200, { "content-type": "application/json" }).end(status);
    });
    cleanups.push(() => upstream.close());
    const source = sourceConfig({
      name: "back",
      kind: "alertmanager",
      url: upstream.url,
      schedule: { interval: "30s", intervalMs: 30_000 },
    });
    const store = new SourceStore([source]);
    // Each poll recorded before the next tick (a tick during a poll is skipped): counted as the store takes it.
    let recorded = 0;
    const record = store.record.bind(store);
    store.record = (...args) => {
      recorded++;
      record(...args);
    };
    const scheduler = new Scheduler(store, infoLog);
    cleanups.push(() => scheduler.stop());
    scheduler.apply([source]);
    const lines = (msg: string) => said.filter((l) => l.source === "back" && l.msg === msg);
    // Four polls, each recorded before the next tick: two failing, two answered.
    for (let poll = 1; poll <= 4; poll++) {
      await waitFor(`poll ${poll}`, async () => (recorded >= poll ? true : undefined), 3000, 10);
      await new Promise((resolve) => setTimeout(resolve, 10)); // the poll's logging, after the record
      vi.advanceTimersByTime(30_000);
    }
    await waitFor("a fifth poll", async () => (answers >= 5 ? true : undefined), 3000, 10);
    // The same failure twice in a row: said at warn once (the second at debug, not captured here).
    expect(lines("poll failed")).toHaveLength(1);
    expect(lines("poll succeeded again")).toEqual([
      expect.objectContaining({ endpoint: "status", failed_polls: 2, failed_seconds: expect.any(Number) }),
    ]);
  });
  it("says a failure at warn when it starts, when it changes and every 10 minutes while it lasts; the polls between at debug", async () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval", "Date"] });
    const said: { level: number; msg?: string; source?: string; reason?: string; failed_polls?: number }[] = [];
    const debugLog = pino({ level: "debug" }, { write: (line: string) => void said.push(JSON.parse(line)) });
    // 418 for three polls, then 410 (another failure); neither is tried again within a poll.
    let code = 418;
    const upstream = await startFakeUpstream((_req, res) => {
      res.writeHead(code, { "content-type": "text/plain" }).end("down");
    });
    cleanups.push(() => upstream.close());
    const source = sourceConfig({
      name: "down",
      kind: "alertmanager",
      url: upstream.url,
      schedule: { interval: "30s", intervalMs: 30_000 },
    });
    const store = new SourceStore([source]);
    const scheduler = new Scheduler(store, debugLog);
    cleanups.push(() => scheduler.stop());
    scheduler.apply([source]);
    const failed = () => said.filter((l) => l.source === "down" && l.msg === "poll failed");
    const polled = async (n: number) => {
      await waitFor(`poll ${n}`, async () => (failed().length >= n ? true : undefined), 3000, 10);
    };
    await polled(1);
    for (let poll = 2; poll <= 5; poll++) {
      if (poll === 4) code = 410;
      vi.advanceTimersByTime(30_000);
      await polled(poll);
    }
    // Ten minutes on: the 410 going on is said again, with how long the failing has lasted.
    vi.advanceTimersByTime(10 * 60_000);
    await polled(6);
    expect(failed().map((l) => [l.level, l.failed_polls])).toEqual([
      [40, undefined], // 418 starts
      [20, undefined],
      [20, undefined],
      [40, 4], // 410: another failure, in a run of four failed polls
      [20, undefined],
      [40, 6], // the reminder: six polls failed in a row
    ]);
  });

  it("keeps polling and records the failure when explaining a failed poll throws", async () => {
    // A url the config schema refuses (a trailing space) reaching the scheduler anyway: the request
    // fails, and working out a hint for it parses the URL, which throws. Once that rejection went
    // unhandled and ended the process.
    const upstream = await startFakeUpstream((_req, res) => void res.writeHead(404).end());
    cleanups.push(() => upstream.close());
    const { store } = start([
      sourceConfig({ name: "spaced", kind: "alertmanager", url: `${upstream.url} `, schedule: "0 0 * * *" }),
    ]);
    const text = await published(store, "spaced");
    expect(valueIn(text, "promstatus_up", { source: "spaced" })).toBe(0);
    expect(logged.some((l) => l.source === "spaced" && l.msg === "could not explain the poll's failures")).toBe(true);
  });
});
