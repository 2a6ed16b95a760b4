import { describe, expect, it } from "vitest";
import type { Flavor } from "../../src/config/flavors.js";
import { type DecodeResult, decodeAnswer } from "../../src/poll/decode.js";
import { decodeOptions } from "../helpers/decode-options.js";
import { samplesOf, valueIn } from "../helpers/exposition.js";
import { fixtureText } from "../helpers/fixtures.js";

// Targets answers of the other backends, read on both decode paths (the streaming reader and the
// reference path): VictoriaMetrics and vmagent 1.79.5 as Debian's binaries answered (real captures),
// 1.150.0 and Thanos Query 0.42.4 as their code writes them (fakes citing file and tag).

function decodeBoth(fixture: string, flavor?: Flavor, perTarget = true): { text: string; result: DecodeResult } {
  const body = Buffer.from(fixtureText(`backends/${fixture}`));
  const options = decodeOptions({ perTarget, ...(flavor ? { flavor } : {}) });
  const job = { endpoint: "targets" as const, body, encoding: undefined, options };
  const fast = decodeAnswer(job);
  const reference = decodeAnswer(job, { reference: true });
  expect(fast.fallback, "read by the streaming reader itself").toBeUndefined();
  const text = (r: DecodeResult) => (r.ok ? r.families.map(([, l]) => Buffer.from(l).toString()).join("") : "");
  expect(text(fast)).toBe(text(reference));
  expect(fast.ok && fast.warnings).toEqual(reference.ok && reference.warnings);
  expect(fast.ok && fast.series).toBe(reference.ok && reference.series);
  return { text: text(reference), result: reference };
}

const slow = { scrape_pool: "slow" };

describe("a target VictoriaMetrics or vmagent has not scraped yet (down, no error, the epoch)", () => {
  it.each([
    ["victoriametrics-1.79/vm-targets-t0.json", "1970-01-01T00:00:00Z"],
    ["victoriametrics-1.79/vmagent-targets-t1.json", "1970-01-01T00:00:00Z"],
    [
      "victoriametrics-1.79/vmagent-droporiginallabels-berlin-targets-t1.json",
      "1970-01-01T01:00:00+01:00 (TZ=Europe/Berlin)",
    ],
    ["victoriametrics-1.150/vm-targets.json", "1970-01-01T00:00:00Z"],
  ])("%s (%s) is unknown with no last scrape, on both paths, before the flavor is known", (fixture) => {
    const { text } = decodeBoth(fixture);
    expect(valueIn(text, "promstatus_targets", { ...slow, health: "unknown" })).toBe(2);
    expect(valueIn(text, "promstatus_targets", { ...slow, health: "down" })).toBe(0);
    expect(valueIn(text, "promstatus_targets_down_by_reason", { ...slow, reason: "other" })).toBe(0);
    expect(samplesOf(text, "promstatus_target_last_scrape_timestamp_seconds", slow)).toEqual([]);
    // Not scraped yet: no up and no duration, as Prometheus's own up before a first scrape.
    expect(samplesOf(text, "promstatus_target_up", slow)).toEqual([]);
    expect(samplesOf(text, "promstatus_target_scrape_duration_seconds", slow)).toEqual([]);
    // The targets that were scraped keep their time, in whatever zone it was written.
    for (const s of samplesOf(text, "promstatus_target_last_scrape_timestamp_seconds"))
      expect(s.value).toBeGreaterThan(Date.UTC(2026, 0, 1) / 1000);
  });

  it("class the real errors: 404 as http_status, a refused connection as connection_refused; no down target is 'other'", () => {
    for (const fixture of ["victoriametrics-1.79/vm-targets-t1.json", "victoriametrics-1.150/vm-targets.json"]) {
      const { text } = decodeBoth(fixture);
      expect(
        valueIn(text, "promstatus_targets_down_by_reason", { scrape_pool: "notfound", reason: "http_status" }),
      ).toBe(1);
      expect(
        valueIn(text, "promstatus_targets_down_by_reason", { scrape_pool: "dead", reason: "connection_refused" }),
      ).toBe(1);
      for (const s of samplesOf(text, "promstatus_targets_down_by_reason", { reason: "other" }))
        expect(s.value).toBe(0);
    }
  });

  it("a Prometheus target down with an error keeps its down, and one with a real time stays down too", () => {
    const answer = (lastScrape: string, lastError: string) =>
      `{"status":"success","data":{"activeTargets":[{"labels":{"job":"j","instance":"i"},"scrapePool":"j","health":"down","lastError":${JSON.stringify(lastError)},"lastScrape":"${lastScrape}"}],"droppedTargets":[]}}`;
    const cases: [string, string, string][] = [
      ["1970-01-01T00:00:00Z", "EOF", "down"],
      ["2026-11-21T05:16:23Z", "", "down"],
      ["1970-01-01T00:00:00Z", "", "unknown"],
      ["0001-01-01T00:00:00Z", "", "unknown"],
      ["not a time", "", "down"],
    ];
    for (const [lastScrape, lastError, health] of cases) {
      const body = Buffer.from(answer(lastScrape, lastError));
      for (const reference of [false, true]) {
        const result = decodeAnswer(
          { endpoint: "targets", body, encoding: undefined, options: decodeOptions() },
          { reference },
        );
        const text = result.ok ? result.families.map(([, l]) => Buffer.from(l).toString()).join("") : "";
        expect(valueIn(text, "promstatus_targets", { scrape_pool: "j", health }), `${lastScrape} ${lastError}`).toBe(1);
        const up = samplesOf(text, "promstatus_target_up", { scrape_pool: "j" }).map((s) => s.value);
        expect(up, `${lastScrape} ${lastError}`).toEqual(health === "down" ? [0] : []);
      }
    }
  });
});

describe("dropped targets", () => {
  it.each<[string, Flavor]>([
    ["victoriametrics-1.79/vm-targets-t1.json", "victoriametrics"],
    ["victoriametrics-1.79/vmagent-droporiginallabels-berlin-targets-t1.json", "vmagent"],
    ["victoriametrics-1.150/vmagent-droporiginallabels-targets.json", "vmagent"],
  ])("%s as %s: not published (the list may be cut or empty), on both paths", (fixture, flavor) => {
    for (const perTarget of [true, false]) {
      const { text } = decodeBoth(fixture, flavor, perTarget);
      expect(samplesOf(text, "promstatus_targets_dropped")).toEqual([]);
      expect(samplesOf(text, "promstatus_targets").length).toBeGreaterThan(0);
    }
  });

  it("are counted from the list while the flavor is not known (what a Prometheus before 2.47 gives)", () => {
    const { text } = decodeBoth("victoriametrics-1.79/vm-targets-t1.json");
    expect(valueIn(text, "promstatus_targets_dropped", { scrape_pool: "relabelled" })).toBe(1);
  });
});

describe("Thanos Query's warnings", () => {
  it("are counted and handed over for the log, the store's pointer left out, on both paths", () => {
    for (const flavor of [undefined, "thanos"] as const) {
      const { text, result } = decodeBoth("thanos-0.42/query-targets-store-warning.json", flavor);
      expect(valueIn(text, "promstatus_answer_warnings", { endpoint: "targets" })).toBe(1);
      expect(result.ok && result.warnings).toEqual([
        expect.stringMatching(/^fetching targets from targets client &\{…\}: rpc error: code = Unavailable/),
      ]);
    }
  });

  it("count 0 for a Thanos Query source when there are none; nothing for another source", () => {
    expect(valueIn(decodeBoth("thanos-0.42/query-targets.json", "thanos").text, "promstatus_answer_warnings")).toBe(0);
    expect(
      valueIn(decodeBoth("thanos-0.42/query-targets-no-store.json", "thanos").text, "promstatus_answer_warnings"),
    ).toBe(0);
    const { text, result } = decodeBoth("thanos-0.42/query-targets.json", "prometheus");
    expect(samplesOf(text, "promstatus_answer_warnings")).toEqual([]);
    expect(result.ok && result.warnings).toBeUndefined();
  });

  it("a down target across replicas stays down, and Thanos's never-scraped target is unknown", () => {
    const { text } = decodeBoth("thanos-0.42/query-targets.json", "thanos");
    expect(valueIn(text, "promstatus_targets", { scrape_pool: "node", health: "down" })).toBe(1);
    expect(valueIn(text, "promstatus_targets", { scrape_pool: "node", health: "unknown" })).toBe(1);
  });

  it("keep at most 10 distinct warnings for the log, and count all of them", () => {
    const warnings = Array.from(
      { length: 30 },
      (_, i) => `store ${i % 15} &{0xc000a8f4${String(i).padStart(2, "0")}} failed`,
    );
    const body = Buffer.from(
      `{"status":"success","data":{"activeTargets":[],"droppedTargets":[]},"warnings":${JSON.stringify(warnings)}}`,
    );
    for (const reference of [false, true]) {
      const result = decodeAnswer(
        { endpoint: "targets", body, encoding: undefined, options: decodeOptions() },
        { reference },
      );
      const text = result.ok ? result.families.map(([, l]) => Buffer.from(l).toString()).join("") : "";
      expect(valueIn(text, "promstatus_answer_warnings")).toBe(30);
      expect(result.ok && result.warnings).toEqual(Array.from({ length: 10 }, (_, i) => `store ${i} &{…} failed`));
    }
  });
});
