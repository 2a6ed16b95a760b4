import { describe, expect, it } from "vitest";
import type { Endpoint } from "../../src/config/types.js";
import { alertmanagerFacts, type ReplicaFacts } from "../../src/convert/replica-facts.js";
import { groupTables, groupViews } from "../../src/publish/groups.js";
import type { EndpointState, SourceState } from "../../src/publish/source-state.js";
import { type AlertmanagerStatusResponse, alertmanagerStatusResponse } from "../../src/upstream/payloads.js";
import { sourceConfig } from "../helpers/config.js";
import { fixtureJson, upstreamFixture } from "../helpers/fixtures.js";

// The group table the status page shows, from the sources' states as the store keeps them.

const polled = (facts: ReplicaFacts | undefined): EndpointState => ({
  up: facts === undefined ? 0 : 1,
  durationSeconds: 0.01,
  lastSuccessSeconds: 1_700_000_000,
  lastPollSeconds: 1_700_000_000,
  series: 1,
  lastError: undefined,
  failures: new Map(),
  fallbacks: 0,
  duplicates: 0,
  families: undefined,
  facts,
  summary: undefined,
});

const digest = (value: string): ReplicaFacts => ({ kind: "digest", value });
const oneTarget: ReplicaFacts = { kind: "prometheus", targets: new Float64Array([1]), health: new Uint8Array([1]) };

function prometheus(name: string, config: string, version: string): SourceState {
  const endpoints: [Endpoint, EndpointState][] = [
    ["targets", polled(oneTarget)],
    ["config", polled(digest(config))],
    ["rules", polled(digest("r".repeat(64)))],
    ["flags", polled(digest("f".repeat(64)))],
    ["buildinfo", polled(digest(version))],
  ];
  const on = { enabled: true };
  return {
    config: sourceConfig({
      name,
      group: "prom-ha",
      tsdb: { enabled: false, limit: undefined },
      config: on,
      rules: on,
      flags: { enabled: true, ignore: [] },
      buildinfo: on,
    }),
    endpoints: new Map(endpoints),
  };
}

describe("groupTables", () => {
  it("shows each Prometheus member's hash prefixes and version, and names what differs", () => {
    const states = [prometheus("a", "a".repeat(64), "2.42.0"), prometheus("b", "b".repeat(64), "2.53.0")];
    const [table] = groupTables(groupViews(states).values());
    expect(table?.differences).toEqual(["config", "versions"]);
    expect(table?.members.map((m) => [m.source, m.configHashPrefix, m.rulesHashPrefix, m.version])).toEqual([
      ["a", "aaaaaaaaaaaa", "rrrrrrrrrrrr", "2.42.0"],
      ["b", "bbbbbbbbbbbb", "rrrrrrrrrrrr", "2.53.0"],
    ]);
    expect(table?.members[0]?.view).toBe("1 target, 0 down");
  });

  it("says an Alertmanager member's version, and its peers up to ten then how many more", () => {
    const status = upstreamFixture<AlertmanagerStatusResponse>(
      "groups/alertmanager-healthy-0.json",
      alertmanagerStatusResponse,
    );
    const peers = Array.from({ length: 12 }, (_, i) => ({ name: `peer-${String(i).padStart(2, "0")}`, address: "x" }));
    const big = alertmanagerFacts({ ...status, cluster: { ...status.cluster, peers } });
    const state: SourceState = {
      config: sourceConfig({ name: "am-0", kind: "alertmanager", group: "am" }),
      endpoints: new Map([["status", polled(big)]]),
    };
    const [table] = groupTables(groupViews([state]).values());
    const row = table?.members[0];
    expect(row?.version).toBe(status.versionInfo?.version);
    expect(row?.view).toMatch(/^12 peers: peer-00, .*peer-09 and 2 more$/);
    expect(row?.view).not.toContain("peer-10");
  });

  it("tells no cluster and no version of Mimir members, and no version of VictoriaMetrics ones: their differences are not counted", () => {
    const mimir = alertmanagerFacts(
      alertmanagerStatusResponse.parse(fixtureJson("backends/mimir-3.1/alertmanager-status.json")),
    );
    const tenant = (name: string, flavor?: "mimir"): SourceState => ({
      config: sourceConfig({ name, kind: "alertmanager", group: "mimir-am" }),
      endpoints: new Map([["status", polled(mimir)]]),
      ...(flavor ? { flavor } : {}),
    });
    const [table] = groupTables(groupViews([tenant("m-0", "mimir"), tenant("m-1", "mimir")]).values());
    expect(table?.members.map((m) => [m.view, m.version])).toEqual([
      ["no gossip cluster (Mimir syncs over its ring)", undefined],
      ["no gossip cluster (Mimir syncs over its ring)", undefined],
    ]);
    expect(table?.differences).toEqual([]);

    const vm = (name: string, version: string): SourceState => ({
      ...prometheus(name, "a".repeat(64), version),
      flavor: "victoriametrics",
    });
    const [vms] = groupTables(groupViews([vm("vm-a", ""), vm("vm-b", "2.24.0")]).values());
    expect(vms?.differences).toEqual([]);
    expect(vms?.members.map((m) => m.version)).toEqual([undefined, undefined]);
  });
});
