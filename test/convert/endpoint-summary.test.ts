import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { targetsAnswer } from "../../scripts/bench/generate.js";
import type { Endpoint } from "../../src/config/types.js";
import { PEER_NAMES_KEPT, summarizeSamples } from "../../src/convert/endpoint-summary.js";
import { type DecodeOptions, decodeAnswer } from "../../src/poll/decode.js";
import { ENDPOINTS } from "../../src/poll/endpoints.js";
import { TargetsDecoder } from "../../src/poll/targets-fast-path.js";
import { PollError } from "../../src/upstream/poll-error.js";
import { decodeOptions } from "../helpers/decode-options.js";
import { fixtureText } from "../helpers/fixtures.js";

// The status page's figures of an answer: the same whichever path decoded it (streaming reader,
// reference path), and what the answer itself says, counted here independently of both.

const decode = (endpoint: Endpoint, text: string, options: DecodeOptions, reference: boolean) =>
  decodeAnswer({ endpoint, body: Buffer.from(text), encoding: undefined, options }, { reference });

/** The answer's own figures: its active targets by health, as JSON.parse reads them. */
function countedTargets(text: string) {
  const { activeTargets } = JSON.parse(text).data as { activeTargets: { health: string }[] };
  const count = (h: string) => activeTargets.filter((t) => t.health === h).length;
  return { up: count("up"), down: count("down"), total: activeTargets.length };
}

function bothPaths(text: string, options: DecodeOptions) {
  const fast = decode("targets", text, options, false);
  const reference = decode("targets", text, options, true);
  if (!fast.ok || !reference.ok) throw new Error("an answer was refused");
  expect(fast.fallback).toBeUndefined(); // the streaming reader read it itself
  // Streamed in small chunks, as the daemon reads a large answer.
  const streamed = new TargetsDecoder(options);
  const bytes = Buffer.from(text);
  for (let at = 0; at < bytes.length; at += 97) streamed.write(bytes.subarray(at, at + 97));
  return { fast: fast.summary, reference: reference.summary, streamed: streamed.finish()?.summary };
}

const OPTIONS = [
  decodeOptions(),
  decodeOptions({ perTarget: false }),
  decodeOptions({ replicaFacts: true, targetLabels: [{ from: "namespace", to: "namespace" }] }),
];

const HEALTH = fc.constantFrom("up", "down", "unknown", "");
const target = fc.record({
  labels: fc.record({ job: fc.constantFrom("a", "b", "\uD800"), instance: fc.constantFrom("x:1", "y:1", "z:1") }),
  scrapePool: fc.constantFrom("a", "b", "\uD800", "\uFFFD"),
  health: HEALTH,
  lastError: fc.constantFrom("", "EOF", "context deadline exceeded"),
});

describe("endpoint summary: targets", () => {
  it("is the answer's own count of active targets by health, on both paths, for a recorded answer", () => {
    const text = fixtureText("upstream/prometheus-targets.json");
    for (const options of OPTIONS) {
      const { fast, reference, streamed } = bothPaths(text, options);
      // Debian's 2.42: 3 up, 2 down, 3 unknown.
      expect(reference?.targets).toEqual({ up: 3, down: 2, total: 8 });
      expect(fast).toEqual(reference);
      expect(streamed).toEqual(reference);
    }
  });

  it("agrees on a large generated answer", () => {
    const text = targetsAnswer(2000);
    const { fast, reference, streamed } = bothPaths(text, decodeOptions());
    expect(reference?.targets).toEqual(countedTargets(text));
    expect(fast).toEqual(reference);
    expect(streamed).toEqual(reference);
  });

  it("agrees on random answers: repeated targets, pools spelled alike once written, odd healths", () => {
    fc.assert(
      fc.property(fc.array(target, { maxLength: 30 }), fc.constantFrom(...OPTIONS), (activeTargets, options) => {
        const text = JSON.stringify({ status: "success", data: { activeTargets, droppedTargets: [] } });
        const { fast, reference, streamed } = bothPaths(text, options);
        expect(reference?.targets).toEqual(countedTargets(text));
        expect(fast).toEqual(reference);
        expect(streamed).toEqual(reference);
      }),
      { numRuns: 200 },
    );
  });
});

describe("endpoint summary: an endpoint the server lacks", () => {
  it("says unsupported for a 404 of a status endpoint, and nothing of it for an answer", () => {
    const lacking = new PollError("http_status", "HTTP 404", { status: 404, upstreamText: "404 page not found" });
    const recognised = ENDPOINTS.features.recognise?.(lacking);
    if (!recognised) throw new Error("a 404 of /api/v1/features was not recognised");
    expect(summarizeSamples(recognised.samples, "features")).toEqual({ unsupported: true });
    const answered = decode("tsdb", fixtureText("upstream/prometheus-tsdb.json"), decodeOptions(), false);
    expect(answered.ok && answered.summary?.unsupported).toBeUndefined();
  });
});

describe("endpoint summary: tsdb and Alertmanager status", () => {
  it("gives the head series of a tsdb answer", () => {
    const result = decode("tsdb", fixtureText("upstream/prometheus-tsdb.json"), decodeOptions(), false);
    expect(result.ok && result.summary).toEqual({ headSeries: 1172 });
  });

  it("gives an Alertmanager's cluster status and peers", () => {
    const text = fixtureText("upstream/alertmanager-status-clustered.json");
    const result = decode("status", text, decodeOptions(), false);
    expect(result.ok && result.summary).toEqual({
      cluster: {
        status: "settling",
        peers: 2,
        peerNames: ["01M7Y8J1PPHRGEREJW4SY9QK6W", "01M7Y8J1PX92Y1JQN1M4YDRCZH"],
      },
    });
  });

  it("keeps only the first peer names, sorted, of a huge cluster, and counts them all", () => {
    const answer = JSON.parse(fixtureText("upstream/alertmanager-status-clustered.json"));
    answer.cluster.peers = Array.from({ length: 500 }, (_, i) => ({
      name: `peer-${1000 - i}`,
      address: `10.0.0.${i}`,
    }));
    const result = decode("status", JSON.stringify(answer), decodeOptions(), false);
    const cluster = result.ok ? result.summary?.cluster : undefined;
    expect(cluster?.peers).toBe(500);
    expect(cluster?.peerNames).toHaveLength(PEER_NAMES_KEPT);
    expect(cluster?.peerNames[0]).toBe("peer-1000");
    expect(cluster?.peerNames[1]).toBe("peer-501");
  });
});
