import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Endpoint } from "../../src/config/types.js";
import { type DecodeResult, decodeAnswer } from "../../src/poll/decode.js";
import { decodeOptions } from "../helpers/decode-options.js";
import { parseExposition } from "../helpers/exposition.js";
import { fixtureJson } from "../helpers/fixtures.js";

// Whatever an answer lists, the exposition it gives has no two series with one name and label set:
// answers are generated from a few names each, so that entries repeat, byte for byte or only once
// written (a lone surrogate and U+FFFD; "a" and "a=" as a label pair). Both decode paths.

// Few values, so that they repeat; some alike only once written as UTF-8.
const name = fc.constantFrom("dup", "a", "a=", "a=b", "a=b=c", "=", "", "\ud800", "\ufffd", 'q"\\\n', "\udc00x");
const count = fc.nat({ max: 1000 });
const entries = fc.array(fc.record({ name, value: count }), { maxLength: 8 });

const tsdbAnswer = fc.record({
  status: fc.constant("success"),
  data: fc.record({
    headStats: fc.record({ numSeries: count, chunkCount: count, minTime: count, maxTime: count }),
    seriesCountByMetricName: entries,
    labelValueCountByLabelName: entries,
    memoryInBytesByLabelName: entries,
    seriesCountByLabelValuePair: entries,
  }),
});

const realStatus = fixtureJson("upstream/alertmanager-status-clustered.json") as { cluster: object };
const statusAnswer = fc
  .record({
    peers: fc.array(fc.record({ name, address: fc.constantFrom("10.0.0.1:9094", "\ud800", "\ufffd") }), {
      maxLength: 8,
    }),
    status: fc.constantFrom("ready", "settling", "disabled", "other", "\ud800", "\ufffd"),
  })
  .map(({ peers, status }) => ({ ...realStatus, cluster: { ...realStatus.cluster, peers, status } }));

const target = fc.record({
  labels: fc.record({ job: name, instance: name, pod: name }),
  scrapePool: name,
  health: fc.constantFrom("up", "down", "unknown", "\ud800", "\ufffd"),
  lastError: fc.constantFrom("", "context deadline exceeded", "connection refused"),
  lastScrape: fc.constant("2026-11-21T05:00:00Z"),
  lastScrapeDuration: fc.double({ min: 0, max: 10, noNaN: true }),
  scrapeInterval: fc.constantFrom("15s", "30s"),
  scrapeTimeout: fc.constantFrom("10s", "5s"),
});
const targetsAnswer = fc.record({
  status: fc.constant("success"),
  data: fc.record({
    activeTargets: fc.array(target, { maxLength: 10 }),
    droppedTargets: fc.array(fc.record({ scrapePool: name }), { maxLength: 4 }),
    droppedTargetCounts: fc.option(fc.dictionary(name, count, { maxKeys: 4 }), { nil: undefined }),
  }),
});

const paths = { reference: true, fast: false } as const;

function decode(endpoint: Endpoint, answer: unknown, reference: boolean, changes = {}): DecodeResult {
  const body = Buffer.from(JSON.stringify(answer));
  return decodeAnswer({ endpoint, body, encoding: undefined, options: decodeOptions(changes) }, { reference });
}

/** Every series of a decoded answer, and those that come more than once (by the text and by the parsed labels). */
function repeated(result: DecodeResult): { series: number; byText: string[]; byLabels: string[] } {
  if (!result.ok) throw new Error(`${result.reason}: ${result.message}`);
  const text = result.families.map(([, lines]) => Buffer.from(lines).toString("utf8")).join("");
  const lines = text.split("\n").filter((line) => line !== "");
  const byText = lines.map((line) => line.slice(0, line.lastIndexOf(" ")));
  const byLabels = parseExposition(text).map((s) => JSON.stringify([s.name, Object.entries(s.labels).sort()]));
  const twice = (keys: string[]) => keys.filter((k, i) => keys.indexOf(k) !== i);
  return { series: lines.length, byText: twice(byText), byLabels: twice(byLabels) };
}

function expectUnique(result: DecodeResult): void {
  const { series, byText, byLabels } = repeated(result);
  expect(byText).toEqual([]);
  expect(byLabels).toEqual([]);
  expect(result.ok && result.series).toBe(series);
}

describe("no two series with one name and label set, whatever the answer", () => {
  it("tsdb", () => {
    fc.assert(
      fc.property(tsdbAnswer, fc.option(fc.integer({ min: 1, max: 10 }), { nil: undefined }), (answer, limit) => {
        expectUnique(decode("tsdb", answer, true, { limit }));
      }),
      { numRuns: 300 },
    );
  });

  it("alertmanager status", () => {
    fc.assert(
      fc.property(statusAnswer, (answer) => expectUnique(decode("status", answer, true))),
      { numRuns: 300 },
    );
  });

  for (const [path, reference] of Object.entries(paths)) {
    it(`targets, ${path} path`, () => {
      fc.assert(
        fc.property(targetsAnswer, fc.boolean(), fc.boolean(), (answer, perTarget, podLabel) => {
          const targetLabels = podLabel ? [{ from: "pod", to: "pod" }] : [];
          const result = decode("targets", answer, reference, { perTarget, targetLabels });
          expectUnique(result);
          if (!reference) expect(result.fallback).toBeUndefined(); // the scanner itself decided
          // Targets alike are merged (promstatus_target_collisions), never left out.
          expect(result.ok && (result.duplicates ?? 0)).toBe(0);
        }),
        { numRuns: 300 },
      );
    });
  }

  it("counts what it left out", () => {
    const answer = {
      status: "success",
      data: {
        headStats: { numSeries: 1, chunkCount: 1, minTime: 0, maxTime: 1 },
        seriesCountByMetricName: [
          { name: "dup", value: 1 },
          { name: "dup", value: 2 },
        ],
        labelValueCountByLabelName: [],
        memoryInBytesByLabelName: [],
        seriesCountByLabelValuePair: [],
      },
    };
    const result = decode("tsdb", answer, true);
    expect(result.ok && result.duplicates).toBe(1);
  });
});
