import { describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/load.js";
import type { ModuleConfig, SourceConfig } from "../../src/config/types.js";
import { GROUP_MEMBERS_KEPT, MEMBER_TTL_MS, ProbeMemory } from "../../src/probe/probe-memory.js";
import type { EndpointState, SourceState } from "../../src/publish/source-state.js";

// What /probe remembers of a target between probes: counters and facts, never series, bounded per module.

const modules = (yaml: string) => parseConfig(yaml, "/tmp/exporter.yml").modules;
const MODULES = modules(`modules:
  am: {kind: alertmanager, group: g, allowed_targets: ["http://.*"]}
  am2: {kind: alertmanager, group: g, allowed_targets: ["http://.*"]}
  other: {kind: alertmanager, group: h, allowed_targets: ["http://.*"]}
  plain: {kind: alertmanager}
  slow: {kind: alertmanager, group: g, min_interval: 10m, allowed_targets: ["http://.*"]}
`);
const mod = (name: string) => MODULES.get(name) as ModuleConfig;

const endpoint = (failures: number, succeeded = true): EndpointState => ({
  up: succeeded ? 1 : 0,
  durationSeconds: 0.1,
  lastSuccessSeconds: succeeded ? 1000 : undefined,
  lastPollSeconds: 1000,
  series: 3,
  lastError: undefined,
  failures: new Map([["connection", failures]]),
  fallbacks: 0,
  duplicates: 0,
  families: [["promstatus_up", new Uint8Array(10)]],
  facts: { kind: "alertmanager", peerName: "p", peers: ["p"], configSha256: "abc", version: "0.25.0" },
  summary: { kind: "alertmanager" } as unknown as EndpointState["summary"],
});

const state = (url: string, group: string | undefined, failures = 0, succeeded = true): SourceState => ({
  config: { name: url, url, kind: "alertmanager", ...(group === undefined ? {} : { group }) } as SourceConfig,
  endpoints: new Map([["status", endpoint(failures, succeeded)]]),
});
const names = (states: SourceState[]) => states.map((s) => s.config.name).sort();

describe("ProbeMemory", () => {
  it("gives the last probe's endpoint states back, without series or summaries, per module", () => {
    const memory = new ProbeMemory();
    memory.remember(mod("plain"), "http://a:9093", state("http://a:9093", undefined, 2));
    const before = memory.before("plain", "http://a:9093")?.get("status");
    expect(before?.failures.get("connection")).toBe(2);
    expect(before?.lastSuccessSeconds).toBe(1000);
    expect(before?.families).toBeUndefined();
    expect(before?.summary).toBeUndefined();
    expect(before?.facts?.kind).toBe("alertmanager");
    expect(memory.before("am", "http://a:9093")).toBeUndefined();
  });

  it("lists as members the targets of grouped modules that answered once, until the TTL after their last probe", () => {
    let now = 0;
    const memory = new ProbeMemory(undefined, () => now);
    memory.remember(mod("am"), "http://a:9093", state("http://a:9093", "g"));
    memory.remember(mod("am"), "http://b:9093", state("http://b:9093", "g"));
    memory.remember(mod("am"), "http://never:9093", state("http://never:9093", "g", 3, false)); // never answered
    memory.remember(mod("other"), "http://c:9093", state("http://c:9093", "h"));
    memory.remember(mod("plain"), "http://d:9093", state("http://d:9093", undefined));
    expect(names(memory.members("g"))).toEqual(["http://a:9093", "http://b:9093"]);
    expect(names(memory.members())).toEqual(["http://a:9093", "http://b:9093", "http://c:9093"]);
    memory.takeLeft();
    now = MEMBER_TTL_MS - 1;
    memory.remember(mod("am"), "http://b:9093", state("http://b:9093", "g"));
    now = MEMBER_TTL_MS;
    expect(names(memory.members("g"))).toEqual(["http://b:9093"]);
    memory.takeLeft();
    memory.expire();
    expect(memory.takeLeft()).toEqual(new Set(["g", "h"]));
    expect(memory.before("am", "http://a:9093")).toBeUndefined();
    // A module without a group keeps its targets' counters however long between probes.
    expect(memory.before("plain", "http://d:9093")).toBeDefined();
  });

  it("keeps a member for twice its module's min_interval when that is longer than the TTL", () => {
    let now = 0;
    const memory = new ProbeMemory(undefined, () => now);
    memory.remember(mod("slow"), "http://a:9093", state("http://a:9093", "g"));
    now = 20 * 60_000 - 1;
    expect(memory.members("g")).toHaveLength(1);
    now = 20 * 60_000;
    expect(memory.members("g")).toHaveLength(0);
  });

  it("counts one server probed by two modules of a group once, by its latest probe", () => {
    let now = 0;
    const memory = new ProbeMemory(undefined, () => now);
    memory.remember(mod("am"), "http://a:9093", state("http://a:9093", "g", 1));
    now = 10;
    memory.remember(mod("am2"), "http://a:9093", state("http://a:9093", "g", 2));
    const members = memory.members("g");
    expect(members).toHaveLength(1);
    expect(members[0]?.endpoints.get("status")?.failures.get("connection")).toBe(2);
  });

  it("bounds each module on its own: probes of one never push another's targets out, and a group holds few members", () => {
    const memory = new ProbeMemory({ count: 3, bytes: 2 ** 30, entryBytes: 2 ** 30 });
    memory.remember(mod("am"), "http://a:9093", state("http://a:9093", "g"));
    for (let i = 0; i < 10; i++)
      memory.remember(mod("plain"), `http://t${i}:9093`, state(`http://t${i}:9093`, undefined));
    expect(memory.before("plain", "http://t6:9093")).toBeUndefined();
    expect(memory.before("plain", "http://t9:9093")).toBeDefined();
    expect(names(memory.members("g"))).toEqual(["http://a:9093"]);
    memory.takeLeft();
    const grouped = new ProbeMemory();
    for (let i = 0; i < GROUP_MEMBERS_KEPT + 5; i++)
      grouped.remember(mod("am"), `http://m${i}:9093`, state(`http://m${i}:9093`, "g"));
    expect(grouped.members("g")).toHaveLength(GROUP_MEMBERS_KEPT);
    // The group lost members pushed out: it is compared again.
    expect(grouped.takeLeft()).toEqual(new Set(["g"]));
  });

  it("counts a member's facts against its bytes, peers by their strings, and keeps none too large", () => {
    const memory = new ProbeMemory({ count: 1000, bytes: 2 ** 20, entryBytes: 2 ** 19 });
    const withPeers = (peers: number): SourceState => {
      const s = state("http://a:9093", "g");
      const e = s.endpoints.get("status") as EndpointState;
      s.endpoints.set("status", {
        ...e,
        facts: { kind: "alertmanager", peerName: "", peers: new Array(peers).fill(""), configSha256: "", version: "" },
      });
      return s;
    };
    // Empty names are no bytes of text, but each is a string and a slot: 20k of them are over 512 KiB.
    expect(memory.remember(mod("am"), "http://a:9093", withPeers(20_000))).toBe(false);
    expect(memory.remember(mod("am"), "http://a:9093", withPeers(100))).toBe(true);
  });

  it("keeps what modules left as they were by a reload remember, and forgets the others'", () => {
    const memory = new ProbeMemory();
    memory.remember(mod("am"), "http://a:9093", state("http://a:9093", "g", 4));
    memory.remember(mod("plain"), "http://d:9093", state("http://d:9093", undefined, 5));
    memory.takeLeft();
    memory.sync(
      modules(`modules:
  am: {kind: alertmanager, group: g, allowed_targets: ["http://.*"]}
  plain: {kind: alertmanager, timeout: 3s}
`),
    );
    expect(memory.before("am", "http://a:9093")?.get("status")?.failures.get("connection")).toBe(4);
    expect(memory.before("plain", "http://d:9093")).toBeUndefined();
    memory.sync(modules("modules: {}\n"));
    expect(memory.size).toBe(0);
    expect(memory.takeLeft()).toEqual(new Set(["g"]));
  });
});
