import { describe, expect, it } from "vitest";
import type { SourceConfig } from "../../src/config/types.js";
import { MEMBER_TTL_MS, ProbeMemory } from "../../src/probe/probe-memory.js";
import type { EndpointState, SourceState } from "../../src/publish/source-state.js";

// What /probe remembers of a target between probes: counters and facts, never series, bounded.

const endpoint = (failures: number): EndpointState => ({
  up: 1,
  durationSeconds: 0.1,
  lastSuccessSeconds: 1000,
  lastPollSeconds: 1000,
  series: 3,
  lastError: undefined,
  failures: new Map([["connection", failures]]),
  fallbacks: 0,
  duplicates: 0,
  families: [["promstatus_up", new Uint8Array(10)]],
  facts: { kind: "alertmanager", peerName: "p", peers: ["p"], configSha256: "abc", version: "0.25.0" },
  summary: { kind: "alertmanager", clusterStatus: "ready", peers: 1 } as unknown as EndpointState["summary"],
});

const state = (name: string, group: string | undefined, failures = 0): SourceState => ({
  config: { name, kind: "alertmanager", ...(group === undefined ? {} : { group }) } as SourceConfig,
  endpoints: new Map([["status", endpoint(failures)]]),
});

const module = (name: string, minIntervalMs = 0) => ({ name, minIntervalMs });

describe("ProbeMemory", () => {
  it("gives the last probe's endpoint states back, without series or summaries", () => {
    const memory = new ProbeMemory();
    memory.remember(module("am"), "http://a:9093", state("http://a:9093", undefined, 2));
    const before = memory.before("am", "http://a:9093")?.get("status");
    expect(before?.failures.get("connection")).toBe(2);
    expect(before?.lastSuccessSeconds).toBe(1000);
    expect(before?.families).toBeUndefined();
    expect(before?.summary).toBeUndefined();
    expect(before?.facts?.kind).toBe("alertmanager");
    // Per module: the same target probed with another module is another target.
    expect(memory.before("other", "http://a:9093")).toBeUndefined();
  });

  it("lists a group's members until the TTL after their last probe, and says which groups lost one", () => {
    let now = 0;
    const memory = new ProbeMemory(undefined, () => now);
    memory.remember(module("am"), "http://a:9093", state("http://a:9093", "g"));
    memory.remember(module("am"), "http://b:9093", state("http://b:9093", "g"));
    memory.remember(module("other"), "http://c:9093", state("http://c:9093", "h"));
    memory.remember(module("plain"), "http://d:9093", state("http://d:9093", undefined));
    expect(memory.members("g").map((s) => s.config.name)).toEqual(["http://a:9093", "http://b:9093"]);
    expect(memory.members().map((s) => s.config.name)).toEqual(["http://a:9093", "http://b:9093", "http://c:9093"]);
    now = MEMBER_TTL_MS - 1;
    memory.remember(module("am"), "http://b:9093", state("http://b:9093", "g"));
    expect(memory.expire()).toEqual(new Set());
    now = MEMBER_TTL_MS;
    expect(memory.members("g").map((s) => s.config.name)).toEqual(["http://b:9093"]);
    expect(memory.expire()).toEqual(new Set(["g", "h"]));
    expect(memory.before("am", "http://a:9093")).toBeUndefined();
    expect(memory.members("g").map((s) => s.config.name)).toEqual(["http://b:9093"]);
  });

  it("keeps a member for twice its module's min_interval when that is longer than the TTL", () => {
    let now = 0;
    const memory = new ProbeMemory(undefined, () => now);
    memory.remember(module("am", MEMBER_TTL_MS), "http://a:9093", state("http://a:9093", "g"));
    now = 2 * MEMBER_TTL_MS - 1;
    expect(memory.members("g")).toHaveLength(1);
    now = 2 * MEMBER_TTL_MS;
    expect(memory.members("g")).toHaveLength(0);
  });

  it("remembers at most its count of targets, the oldest forgotten first", () => {
    const memory = new ProbeMemory({ count: 3, bytes: 2 ** 30, entryBytes: 2 ** 30 });
    for (let i = 0; i < 5; i++) memory.remember(module("am"), `http://t${i}:9093`, state(`http://t${i}:9093`, "g"));
    expect(memory.size).toBe(3);
    expect(memory.before("am", "http://t1:9093")).toBeUndefined();
    expect(memory.members("g").map((s) => s.config.name)).toEqual([
      "http://t2:9093",
      "http://t3:9093",
      "http://t4:9093",
    ]);
  });

  it("counts a Prometheus member's facts against its bytes, and keeps none too large", () => {
    const memory = new ProbeMemory({ count: 1000, bytes: 2 ** 20, entryBytes: 2 ** 19 });
    const big = (targets: number): SourceState => ({
      config: { name: "p", kind: "prometheus", group: "g" } as SourceConfig,
      endpoints: new Map([
        [
          "targets",
          {
            ...endpoint(0),
            facts: { kind: "prometheus", targets: new Float64Array(targets), health: new Uint8Array(targets) },
          },
        ],
      ]),
    });
    expect(memory.remember(module("prom"), "http://p:9090", big(100_000))).toBe(false); // 900 kB > 512 KiB
    expect(memory.remember(module("prom"), "http://p:9090", big(10_000))).toBe(true);
    expect(memory.members("g")).toHaveLength(1);
  });

  it("forgets everything on clear, naming the groups that lost members", () => {
    const memory = new ProbeMemory();
    memory.remember(module("am"), "http://a:9093", state("http://a:9093", "g"));
    memory.remember(module("plain"), "http://d:9093", state("http://d:9093", undefined));
    expect(memory.clear()).toEqual(new Set(["g"]));
    expect(memory.size).toBe(0);
  });
});
