import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { referencePathTargetsAnswer, targetsAnswer } from "../../scripts/bench/generate.js";
import { parseConfig } from "../../src/config/load.js";
import type { ModuleConfig } from "../../src/config/types.js";
import { plainText } from "../../src/exposition/unpack.js";
import { decodeAnswer } from "../../src/poll/decode.js";
import { type PollOutcome, pollEndpoint } from "../../src/poll/poll-endpoint.js";
import { runProbe } from "../../src/probe/probe.js";
import { SourceStore } from "../../src/publish/store.js";
import { sourceConfig } from "../helpers/config.js";
import { decodeOptions } from "../helpers/decode-options.js";
import { samplesOf, valueIn } from "../helpers/exposition.js";
import { type FakeUpstream, startFakeUpstream } from "../helpers/fake-upstream.js";
import { fixtureJson } from "../helpers/fixtures.js";

// series_limit, as Prometheus's sample_limit: an answer giving more series than it fails its poll with
// reason series_limit, and nothing of it is published; the previous result goes as for any failed poll.

let upstream: FakeUpstream | undefined;
afterEach(async () => {
  await upstream?.close();
  upstream = undefined;
});

const realStatus = fixtureJson("upstream/alertmanager-status-clustered.json") as { cluster: object };
/** An Alertmanager status listing `peers` peers: one peer_info series each, and 11 more series. */
const statusWithPeers = (peers: number) =>
  JSON.stringify({
    ...realStatus,
    cluster: {
      ...realStatus.cluster,
      peers: Array.from({ length: peers }, (_, i) => ({
        name: `peer-${i}`,
        address: `10.0.${i >> 8}.${i & 255}:9094`,
      })),
    },
  });
const STATUS_OTHER_SERIES = 11;

async function serve(body: () => string): Promise<string> {
  upstream = await startFakeUpstream((_req, res) => {
    res.writeHead(200, { "content-type": "application/json" }).end(body());
  });
  return upstream.url;
}

const failure = (outcome: PollOutcome) => (outcome.ok ? undefined : outcome.error);

describe("series_limit", () => {
  it("fails an answer with one series more than the limit, and takes one at the limit", async () => {
    const url = await serve(() => statusWithPeers(40));
    const series = 40 + STATUS_OTHER_SERIES;
    const at = await pollEndpoint(
      sourceConfig({ kind: "alertmanager", timeoutMs: 60_000, url, seriesLimit: series }),
      "status",
    );
    expect(at.ok && at.series).toBe(series);
    const over = await pollEndpoint(
      sourceConfig({ kind: "alertmanager", timeoutMs: 60_000, url, seriesLimit: series - 1 }),
      "status",
    );
    expect(failure(over)?.reason).toBe("series_limit");
    expect(failure(over)?.message).toBe(`answer gives ${series} series, more than series_limit ${series - 1}`);
    const unlimited = await pollEndpoint(
      sourceConfig({ kind: "alertmanager", timeoutMs: 60_000, url, seriesLimit: 0 }),
      "status",
    );
    expect(unlimited.ok).toBe(true);
  });

  it("is checked by the reference path before rendering", () => {
    const body = Buffer.from(statusWithPeers(40));
    const job = (seriesLimit: number) => ({
      endpoint: "status" as const,
      body,
      encoding: undefined,
      options: decodeOptions({ seriesLimit }),
    });
    expect(decodeAnswer(job(51)).ok).toBe(true);
    expect(decodeAnswer(job(50))).toMatchObject({ ok: false, reason: "series_limit" });
  });

  it("stops reading a streamed targets answer once it must give more series than the limit", async () => {
    const url = await serve(() => targetsAnswer(3000));
    const outcome = await pollEndpoint(sourceConfig({ timeoutMs: 60_000, url, seriesLimit: 1000 }), "targets");
    expect(failure(outcome)?.reason).toBe("series_limit");
    expect(failure(outcome)?.message).toMatch(/^answer gives at least \d+ series, more than series_limit 1000$/);
    expect(outcome.fallback).toBe(false);
  });

  it("counts every series of a targets answer on both paths, not only the bound the reader stops at", async () => {
    for (const [answer, fallback] of [
      [targetsAnswer(300), false],
      [referencePathTargetsAnswer(300), true],
    ] as const) {
      const url = await serve(() => answer);
      const whole = await pollEndpoint(sourceConfig({ timeoutMs: 60_000, url }), "targets");
      if (!whole.ok) throw new Error(whole.error.message);
      expect(whole.fallback).toBe(fallback);
      const at = await pollEndpoint(sourceConfig({ timeoutMs: 60_000, url, seriesLimit: whole.series }), "targets");
      expect(at.ok).toBe(true);
      const over = await pollEndpoint(
        sourceConfig({ timeoutMs: 60_000, url, seriesLimit: whole.series - 1 }),
        "targets",
      );
      expect(failure(over)?.message).toBe(
        `answer gives ${whole.series} series, more than series_limit ${whole.series - 1}`,
      );
      await upstream?.close();
    }
  });

  it("never stops a streamed answer that gives no more than the limit (the reader's bound is a lower one)", () => {
    const target = fc.record({
      labels: fc.record({ job: fc.constantFrom("a", "b"), instance: fc.constantFrom("1", "2", "3") }),
      scrapePool: fc.constantFrom("p", "q", "r"),
      health: fc.constantFrom("up", "down", "other"),
      lastError: fc.constantFrom("", "connection refused"),
    });
    const answer = fc.record({
      status: fc.constant("success"),
      data: fc.record({ activeTargets: fc.array(target, { maxLength: 12 }), droppedTargets: fc.constant([]) }),
    });
    fc.assert(
      fc.property(answer, fc.boolean(), (json, perTarget) => {
        const body = Buffer.from(JSON.stringify(json));
        const job = (seriesLimit: number) => ({
          endpoint: "targets" as const,
          body,
          encoding: undefined,
          options: decodeOptions({ perTarget, seriesLimit }),
        });
        const whole = decodeAnswer(job(0));
        if (!whole.ok) throw new Error(whole.message);
        const at = decodeAnswer(job(whole.series));
        expect(at.ok && at.fallback).toBe(undefined); // the streaming reader took it itself
        if (whole.series > 1) expect(decodeAnswer(job(whole.series - 1))).toMatchObject({ reason: "series_limit" });
      }),
    );
  });

  it("serves nothing of an answer over the limit: the previous result goes, as for any failed poll", async () => {
    let peers = 5;
    const url = await serve(() => statusWithPeers(peers));
    const config = sourceConfig({ kind: "alertmanager", timeoutMs: 60_000, url, seriesLimit: 100 });
    const store = new SourceStore([config]);
    store.record(config, "status", await pollEndpoint(config, "status"));
    const text = async () => (await plainText(store.exposition().parts)).toString("utf8");
    expect(samplesOf(await text(), "promstatus_alertmanager_peer_info")).toHaveLength(5);
    peers = 1000;
    store.record(config, "status", await pollEndpoint(config, "status"));
    const after = await text();
    expect(samplesOf(after, "promstatus_alertmanager_peer_info")).toEqual([]);
    expect(samplesOf(after, "promstatus_alertmanager_cluster_peers")).toEqual([]);
    expect(valueIn(after, "promstatus_up", { endpoint: "status" })).toBe(0);
    expect(valueIn(after, "promstatus_poll_failures_total", { endpoint: "status", reason: "series_limit" })).toBe(1);
  });

  it("applies a probe module's limit: the probe fails with its reason and serves none of the answer", async () => {
    const url = await serve(() => statusWithPeers(1000));
    const { modules } = parseConfig("modules: { am: { kind: alertmanager, series_limit: 500 } }\n", "/tmp/x.yml");
    const run = await runProbe({ module: modules.get("am") as ModuleConfig, target: url }, undefined, 500);
    const text = run.exposition.toString("utf8");
    expect(samplesOf(text, "promstatus_alertmanager_peer_info")).toEqual([]);
    expect(valueIn(text, "promstatus_up", { endpoint: "status" })).toBe(0);
    expect(valueIn(text, "promstatus_poll_failures_total", { endpoint: "status", reason: "series_limit" })).toBe(1);
  });
});
