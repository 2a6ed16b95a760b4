import { pino } from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/load.js";
import { PROBE_HISTORY_SIZE, Prober, RECENT_RESULTS_KEPT, REFUSALS_KEPT } from "../../src/probe/prober.js";
import type { ProbeResult } from "../../src/publish/probe-metrics.js";
import { type FakeUpstream, startFakeUpstream } from "../helpers/fake-upstream.js";
import { type HeldUpstream, startHeldUpstream } from "../helpers/held-upstream.js";

// The probe history without network: refused probes never reach an upstream.

const modules = parseConfig("modules: {}\n", "/tmp/exporter.yml").modules;
const prober = () => new Prober(() => modules, 500, pino({ level: "silent" }));
const refused = (p: Prober, i: number) =>
  p.probe({ target: `ftp://host-${i}`, module: "prometheus", scrapeTimeoutSeconds: undefined, debug: false });

describe("Prober history", () => {
  it("keeps the last refused probes, newest first, and forgets the oldest with their accounts", async () => {
    const p = prober();
    for (let i = 0; i < REFUSALS_KEPT + 5; i++) await refused(p, i);
    const history = p.history();
    expect(history).toHaveLength(REFUSALS_KEPT);
    expect(history[0]?.target).toBe(`ftp://host-${REFUSALS_KEPT + 4}`);
    expect(history.at(-1)?.target).toBe("ftp://host-5");
    expect(p.account(1)).toBeUndefined();
    expect(p.account(history[0]?.id as number)).toMatch(/^Probe refused: target must be an http or https URL/);
  });

  it("keeps the probes that ran apart from refused ones: a flood of refusals pushes none of them out", async () => {
    // Every poll fails at once (404, not retried): a probe that ran all the same.
    const upstream = await startFakeUpstream((_req, res) => res.writeHead(404).end());
    const p = prober();
    const ran = (i: number) =>
      p.probe({
        target: `${upstream.url}/t${i}`,
        module: "alertmanager",
        scrapeTimeoutSeconds: undefined,
        debug: false,
      });
    for (let i = 0; i < PROBE_HISTORY_SIZE + 1; i++) await ran(i);
    for (let i = 0; i < 10 * PROBE_HISTORY_SIZE; i++) await refused(p, i);
    const history = p.history();
    const kept = history.filter((r) => r.result !== "refused");
    expect(kept).toHaveLength(PROBE_HISTORY_SIZE);
    expect(kept.at(-1)?.target).toBe(`${upstream.url}/t1`);
    expect(p.account(kept.at(-1)?.id as number)).toContain("Probe of");
    expect(history.filter((r) => r.result === "refused")).toHaveLength(REFUSALS_KEPT);
    // Newest first across both.
    expect(history.map((r) => r.id)).toEqual([...history.map((r) => r.id)].sort((a, b) => b - a));
    await upstream.close();
  }, 30_000);

  it("redacts the password of a refused target in the history and its account", async () => {
    const p = prober();
    const answer = await p.probe({
      target: "http://u:hunter2-secret@host:9090/?q=1",
      module: "prometheus",
      scrapeTimeoutSeconds: undefined,
      debug: false,
    });
    expect(answer.status).toBe(400);
    const [record] = p.history();
    expect(JSON.stringify(record)).not.toContain("hunter2-secret");
    expect(record?.target).toBe("http://u:xxxxx@host:9090/?q=1");
  });
});

describe("Prober limit (--probe.max-concurrent)", () => {
  const limited = parseConfig(
    "modules:\n  spared: {kind: alertmanager, min_interval: 10m}\n",
    "/tmp/exporter.yml",
  ).modules;
  let upstream: HeldUpstream;
  let counted: Map<string, number>;
  let p: Prober;
  const ask = (target: string, module = "alertmanager") =>
    p.probe({ target, module, scrapeTimeoutSeconds: undefined, debug: false });

  beforeEach(async () => {
    upstream = await startHeldUpstream();
    counted = new Map();
    const count = (module: string, result: ProbeResult) =>
      counted.set(`${module}/${result}`, (counted.get(`${module}/${result}`) ?? 0) + 1);
    p = new Prober(() => limited, 500, pino({ level: "silent" }), { maxConcurrent: 2 }, { count });
  });
  afterEach(() => upstream.close());

  it("answers 503 at once to a probe that would start a third poll; shared and cached probes are served", async () => {
    // Distinct targets of one upstream: its paths.
    const [a, b, c] = ["a", "b", "c"].map((path) => `${upstream.url}/${path}`) as [string, string, string];
    upstream.release();
    expect((await ask(c, "spared")).status).toBe(200); // kept for min_interval
    upstream.hold();
    const first = ask(a);
    const second = ask(b);
    await upstream.received(3);
    expect(p.pollsInFlight).toBe(2);

    // Awaited while both polls are held: it cannot be waiting for a slot.
    const rejected = await ask(c);
    expect(rejected).toEqual({
      status: 503,
      type: "text",
      body: "Too many probes in flight: the limit of 2 set by --probe.max-concurrent was reached; try again later.\n",
      retryAfterSeconds: 1,
    });
    const joined = ask(a); // identical to the first: shares its poll
    expect((await ask(c, "spared")).status).toBe(200); // from min_interval, no poll
    expect(upstream.requests).toBe(3);
    expect(p.pollsInFlight).toBe(2);

    upstream.release();
    expect((await Promise.all([first, second, joined])).map((answer) => answer.status)).toEqual([200, 200, 200]);
    expect(p.pollsInFlight).toBe(0);
    expect((await ask(c)).status).toBe(200);
    expect(Object.fromEntries(counted)).toEqual({
      "spared/success": 2,
      "alertmanager/success": 4,
      "alertmanager/rejected": 1,
    });
    // The rejection is counted, not remembered: the history holds the six probes answered.
    expect(p.history()).toHaveLength(6);
    expect(p.history().map((r) => r.served)).toEqual(expect.arrayContaining(["polled", "cached", "shared"]));
  });

  it("counts a refused probe under its module only if that module is configured", async () => {
    for (let i = 0; i < 5; i++) await ask("http://host:9093", `random-${i}`);
    await ask("ftp://host", "spared");
    await ask("http://host:9093", "");
    expect(Object.fromEntries(counted)).toEqual({ "/refused": 6, "spared/refused": 1 });
  });
});

describe("Prober min_interval results", () => {
  it(`keeps at most ${RECENT_RESULTS_KEPT} results, whatever callers probe: the oldest goes first`, async () => {
    const cached = parseConfig(
      "modules:\n  slow: {kind: alertmanager, min_interval: 10m}\n",
      "/tmp/exporter.yml",
    ).modules;
    // Every poll fails at once (404, not retried); its result is kept all the same.
    const upstream = await startFakeUpstream((_req, res) => res.writeHead(404).end());
    const p = new Prober(() => cached, 500, pino({ level: "silent" }));
    const ask = (i: number) =>
      p.probe({ target: `${upstream.url}/t${i}`, module: "slow", scrapeTimeoutSeconds: undefined, debug: false });
    await ask(0);
    await ask(1);
    await ask(1);
    expect(p.history()[0]?.served).toBe("cached");
    for (let i = 2; i <= RECENT_RESULTS_KEPT; i++) await ask(i);
    await ask(1); // the second oldest: still kept
    expect(p.history()[0]?.served).toBe("cached");
    await ask(0); // the oldest: pushed out, polled again
    expect(p.history()[0]?.served).toBe("polled");
    await upstream.close();
  }, 60_000);
});

describe("Prober min_interval results, by bytes and by the target as fetched", () => {
  const cached = parseConfig(
    "modules:\n  slow: {kind: alertmanager, min_interval: 10m}\n",
    "/tmp/exporter.yml",
  ).modules;
  let upstream: FakeUpstream;
  beforeEach(async () => {
    // Every poll fails at once (404, not retried); its result (the poll's own series) is kept all the same.
    upstream = await startFakeUpstream((_req, res) => res.writeHead(404).end());
  });
  afterEach(() => upstream.close());
  const asker = (p: Prober) => (target: string) =>
    p.probe({ target, module: "slow", scrapeTimeoutSeconds: undefined, debug: false });
  /** The exposition bytes of one result (every target below is as long as /t1). */
  const oneResult = async () => {
    const p = new Prober(() => cached, 500, pino({ level: "silent" }));
    await asker(p)(`${upstream.url}/t0`);
    return p.recentBytes;
  };

  it("keeps results within a byte budget, whatever their count: the oldest go first", async () => {
    const size = await oneResult();
    expect(size).toBeGreaterThan(0);
    // Results differ by a few bytes (durations): room for two of them, not three.
    const budget = { count: 1000, bytes: Math.floor(2.5 * size), entryBytes: 2 * size };
    const p = new Prober(() => cached, 500, pino({ level: "silent" }), { maxConcurrent: 8, recent: budget });
    const ask = asker(p);
    for (let i = 1; i <= 5; i++) await ask(`${upstream.url}/t${i}`);
    expect(p.recentBytes).toBeGreaterThan(1.5 * size);
    expect(p.recentBytes).toBeLessThanOrEqual(budget.bytes);
    await ask(`${upstream.url}/t5`);
    expect(p.history()[0]?.served).toBe("cached");
    await ask(`${upstream.url}/t1`); // pushed out by bytes, not by count
    expect(p.history()[0]?.served).toBe("polled");
  });

  it("does not keep a result larger than the per-result share", async () => {
    const size = await oneResult();
    const budget = { count: 1000, bytes: 100 * size, entryBytes: Math.floor(size / 2) };
    const p = new Prober(() => cached, 500, pino({ level: "silent" }), { maxConcurrent: 8, recent: budget });
    const ask = asker(p);
    await ask(`${upstream.url}/t1`);
    expect(p.recentBytes).toBe(0);
    await ask(`${upstream.url}/t1`);
    expect(p.history()[0]?.served).toBe("polled");
    expect(upstream.requests).toHaveLength(2 + 1); // one for oneResult()
  });

  it("serves one result to spellings of a target that are fetched alike, labelled as fetched", async () => {
    const p = new Prober(() => cached, 500, pino({ level: "silent" }));
    const ask = asker(p);
    const first = await ask(`${upstream.url}/t/`);
    const loud = await ask(`${upstream.url.replace("http://", "HTTP://")}/t///`);
    expect(p.history().map((r) => r.served)).toEqual(["cached", "polled"]);
    expect(upstream.requests).toHaveLength(1);
    expect(loud).toEqual(first);
    expect(String(first.body)).toContain(`source="${upstream.url}/t"`);
    expect(String(first.body)).not.toContain(`source="${upstream.url}/t/"`);
  });
});
