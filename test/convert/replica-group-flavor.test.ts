import { describe, expect, it } from "vitest";
import { GROUP } from "../../src/catalogue/families.js";
import type { Flavor } from "../../src/config/flavors.js";
import { alertmanagerFacts, type ReplicaFacts } from "../../src/convert/replica-facts.js";
import { compareGroup, type DigestName, type GroupMember, groupDifferences } from "../../src/convert/replica-group.js";
import { type AlertmanagerStatusResponse, alertmanagerStatusResponse } from "../../src/upstream/payloads.js";
import { fixtureJson, upstreamFixture } from "../helpers/fixtures.js";

// Comparisons a flavor cannot support are not made for it: Mimir's Alertmanagers have no gossip
// cluster and no version (backends/mimir-3.1/README.md), VictoriaMetrics' buildinfo no real version
// (backends/victoriametrics-1.79 and -1.150 READMEs).

const mimir = alertmanagerFacts(
  alertmanagerStatusResponse.parse(fixtureJson("backends/mimir-3.1/alertmanager-status.json")),
);
const am = (name: string) =>
  alertmanagerFacts(
    upstreamFixture<AlertmanagerStatusResponse>(`groups/alertmanager-${name}.json`, alertmanagerStatusResponse),
  );
const member = (source: string, facts: ReplicaFacts, flavor?: Flavor): GroupMember => ({
  source,
  up: true,
  facts,
  ...(flavor ? { flavor } : {}),
});
const names = (out: ReturnType<typeof compareGroup>) => [...out.families.keys()];
const value = (out: ReturnType<typeof compareGroup>, name: string) => out.get(name).map((s) => s.value);

describe("replica groups of other flavors", () => {
  it("three Mimir Alertmanagers: no cluster views and no missing peers (not 1 and 2 each), one config, no versions", () => {
    const members = ["a", "b", "c"].map((s) => member(`mimir-${s}`, mimir, "mimir"));
    const out = compareGroup("alertmanager", members);
    expect(names(out)).not.toContain(GROUP.clusterViews.name);
    expect(names(out)).not.toContain(GROUP.missingPeers.name);
    expect(names(out)).not.toContain(GROUP.versions.name);
    expect(value(out, GROUP.configVersions.name)).toEqual([1]);
    expect(value(out, GROUP.sourcesUp.name)).toEqual([3]);
    expect(groupDifferences("alertmanager", members)).toEqual([]);
    // Before their flavor is known they are compared as gossip peers: what the issue saw.
    const unknown = compareGroup(
      "alertmanager",
      ["a", "b", "c"].map((s) => member(`mimir-${s}`, mimir)),
    );
    expect(value(unknown, GROUP.missingPeers.name)).toEqual([2, 2, 2]);
  });

  it("a real cluster is compared as before, a Mimir member beside it left out of views and peers", () => {
    const out = compareGroup("alertmanager", [
      member("am-0", am("healthy-0"), "prometheus"),
      member("am-1", am("healthy-1"), "prometheus"),
      member("mimir", mimir, "mimir"),
    ]);
    expect(value(out, GROUP.clusterViews.name)).toEqual([1]);
    expect(out.get(GROUP.missingPeers.name).map((s) => [s.labels.source, s.value])).toEqual([
      ["am-0", 0],
      ["am-1", 0],
    ]);
    expect(value(out, GROUP.versions.name)).toEqual([1]);
  });

  it("VictoriaMetrics replicas: no versions series from their buildinfo (empty in 1.79, a fixed 2.24.0 from 1.96)", () => {
    const digests = (version: string) => new Map<DigestName, string | undefined>([["version", version]]);
    const targets: ReplicaFacts = { kind: "prometheus", targets: new Float64Array([1]), health: new Uint8Array([1]) };
    const vm = (source: string, version: string, flavor?: Flavor): GroupMember => ({
      ...member(source, targets, flavor),
      digests: digests(version),
    });
    const members = [vm("vm-a", "", "victoriametrics"), vm("vm-b", "2.24.0", "victoriametrics")];
    const out = compareGroup("prometheus", members);
    expect(names(out)).not.toContain(GROUP.prometheusVersions.name);
    expect(groupDifferences("prometheus", members)).toEqual([]);
    const agents = compareGroup("prometheus", [vm("a", "", "vmagent"), vm("b", "", "vmagent")]);
    expect(names(agents)).not.toContain(GROUP.prometheusVersions.name);
    // Prometheus and Thanos versions are compared.
    for (const flavor of ["prometheus", "thanos"] as const) {
      const compared = compareGroup("prometheus", [vm("a", "2.42.0", flavor), vm("b", "2.53.0", flavor)]);
      expect(value(compared, GROUP.prometheusVersions.name)).toEqual([2]);
    }
    // Unknown flavor: compared (the versions differ as the answers said).
    expect(value(compareGroup("prometheus", [vm("a", ""), vm("b", "2.24.0")]), GROUP.prometheusVersions.name)).toEqual([
      2,
    ]);
  });
});
