import { describe, expect, it } from "vitest";
import { logProblems } from "../../scripts/bench/daemon.js";
import { ExpositionTally } from "../../scripts/bench/exposition-tally.js";

// What the bench reads of a scrape: series per family and a few whole lines, from chunks cut anywhere.

const TEXT = [
  "# HELP nodejs_eventloop_lag_max_seconds The maximum recorded event loop delay.",
  "# TYPE nodejs_eventloop_lag_max_seconds gauge",
  "nodejs_eventloop_lag_max_seconds 0.012345",
  'promstatus_exporter_build_info{version="0.1.0",node_version="v24.0.0"} 1',
  "# TYPE promstatus_up gauge",
  'promstatus_up{source="s",endpoint="targets"} 1',
  'promstatus_up{source="s",endpoint="tsdb"} 0',
  'promstatus_poll_duration_seconds{source="s",endpoint="targets"} 7.25',
  "# TYPE promstatus_target_up gauge",
  'promstatus_target_up{source="s",instance="10.0.0.1:9100",job="node",pod="café"} 1',
  'promstatus_target_up{source="s",instance="10.0.0.2:9100",job="node",pod="x y{z"} 0',
  'promstatus_target_up{source="s",instance="10.0.0.3:9100",job="node"} 1',
  'promstatus_target_scrape_duration_seconds{source="s",instance="10.0.0.1:9100",job="node"} 0.01',
  "",
].join("\n");
const KEEP = new Set(["promstatus_up", "promstatus_poll_duration_seconds", "nodejs_eventloop_lag_max_seconds"]);

function read(chunks: Uint8Array[]): ExpositionTally {
  const tally = new ExpositionTally(KEEP);
  for (const c of chunks) tally.push(c);
  return tally.end();
}

describe("ExpositionTally", () => {
  const bytes = Buffer.from(TEXT, "utf8");

  it("reads the same from chunks cut at every place (inside UTF-8 characters too)", () => {
    const whole = read([bytes]);
    expect(Object.fromEntries(whole.series)).toEqual({
      nodejs_eventloop_lag_max_seconds: 1,
      promstatus_exporter_build_info: 1,
      promstatus_up: 2,
      promstatus_poll_duration_seconds: 1,
      promstatus_target_up: 3,
      promstatus_target_scrape_duration_seconds: 1,
    });
    expect(whole.bytes).toBe(bytes.length);
    for (let cut = 0; cut <= bytes.length; cut++) {
      for (const size of [1, 3, 7]) {
        const chunks = [bytes.subarray(0, cut)];
        for (let at = cut; at < bytes.length; at += size) chunks.push(bytes.subarray(at, at + size));
        const tally = read(chunks);
        expect(tally.series).toEqual(whole.series);
        expect(tally.lines).toEqual(whole.lines);
      }
    }
  });

  it("gives the values of kept series by labels", () => {
    const tally = read([bytes]);
    expect(tally.value("promstatus_up", { source: "s", endpoint: "targets" })).toBe(1);
    expect(tally.value("promstatus_up", { source: "s", endpoint: "tsdb" })).toBe(0);
    expect(tally.value("promstatus_poll_duration_seconds", { endpoint: "targets" })).toBe(7.25);
    expect(tally.value("nodejs_eventloop_lag_max_seconds")).toBe(0.012345);
    expect(tally.value("promstatus_up", { source: "other" })).toBeNaN();
    expect(tally.value("promstatus_target_up")).toBeNaN(); // counted, not kept
  });

  it("counts a last line without its newline", () => {
    const tally = read([Buffer.from('promstatus_target_up{a="1"} 1\npromstatus_target_up{a="2"} 1')]);
    expect(tally.series.get("promstatus_target_up")).toBe(2);
  });
});

describe("logProblems", () => {
  it("keeps warnings, errors and what is not JSON and says an error, each said once", () => {
    const log = [
      '{"level":30,"msg":"listening"}',
      '{"level":40,"source":"s","endpoint":"targets","reason":"timeout","error":"took over 60s","msg":"poll failed"}',
      '{"level":40,"source":"s","endpoint":"targets","reason":"timeout","error":"took over 60s","msg":"poll failed"}',
      "",
      "<--- Last few GCs --->",
      "FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory",
      "----- Native stack trace -----",
      " 1: 0x931db0  [node]",
    ];
    expect(logProblems(log)).toEqual([
      "poll failed (reason timeout: took over 60s)",
      "FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory",
    ]);
    expect(logProblems(['{"level":30,"msg":"fine"}'])).toEqual([]);
  });

  it("says the first plain line when none says an error", () => {
    expect(logProblems(["Usage: prometheus-status-exporter [flags]", "  --help  print this help"])).toEqual([
      "Usage: prometheus-status-exporter [flags]",
    ]);
    expect(logProblems(["Unknown option '--x'", "", "Usage: prometheus-status-exporter [flags]"])).toEqual([
      "Unknown option '--x'",
    ]);
  });
});
