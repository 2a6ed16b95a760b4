import { describe, expect, it } from "vitest";
import { GROUP } from "../../src/catalogue/families.js";
import { alertmanagerFacts, prometheusFacts, type ReplicaFacts } from "../../src/convert/replica-facts.js";
import { compareGroup, type DigestName, type GroupMember, groupDifferences } from "../../src/convert/replica-group.js";
import {
  type AlertmanagerStatusResponse,
  alertmanagerStatusResponse,
  type TargetsResponse,
  targetsResponse,
} from "../../src/upstream/payloads.js";
import { upstreamFixture } from "../helpers/fixtures.js";
import { sampleValue } from "../helpers/samples.js";

// Alertmanager answers recorded from real clusters by scripts/capture-group-fixtures.sh: both nodes of
// a healthy two-node cluster, and both nodes of a split one (the second node pointed at a wrong peer
// and runs another config).
const am = (name: string) =>
  alertmanagerFacts(
    upstreamFixture<AlertmanagerStatusResponse>(`groups/alertmanager-${name}.json`, alertmanagerStatusResponse),
  );
const member = (source: string, facts: ReplicaFacts | undefined, up = facts !== undefined): GroupMember => ({
  source,
  up,
  facts,
});

describe("compareGroup: Alertmanager clusters", () => {
  it("reads one view, no missing peer, one config and one version for a healthy cluster", () => {
    const out = compareGroup("alertmanager", [member("am-0", am("healthy-0")), member("am-1", am("healthy-1"))]);
    expect(sampleValue(out, GROUP.sources.name)).toBe(2);
    expect(sampleValue(out, GROUP.sourcesUp.name)).toBe(2);
    expect(sampleValue(out, GROUP.clusterViews.name)).toBe(1);
    expect(sampleValue(out, GROUP.missingPeers.name, { source: "am-0" })).toBe(0);
    expect(sampleValue(out, GROUP.missingPeers.name, { source: "am-1" })).toBe(0);
    expect(sampleValue(out, GROUP.configVersions.name)).toBe(1);
    expect(sampleValue(out, GROUP.versions.name)).toBe(1);
  });

  it("reads two views, one missing peer each and two configs for a split cluster", () => {
    const out = compareGroup("alertmanager", [member("am-0", am("split-0")), member("am-1", am("split-1"))]);
    expect(sampleValue(out, GROUP.clusterViews.name)).toBe(2);
    expect(sampleValue(out, GROUP.missingPeers.name, { source: "am-0" })).toBe(1);
    expect(sampleValue(out, GROUP.missingPeers.name, { source: "am-1" })).toBe(1);
    expect(sampleValue(out, GROUP.configVersions.name)).toBe(2);
    expect(sampleValue(out, GROUP.versions.name)).toBe(1);
  });

  it("leaves a member whose poll failed out of the comparison, counting it only as a source", () => {
    const out = compareGroup("alertmanager", [member("am-0", am("healthy-0")), member("am-1", undefined)]);
    expect(sampleValue(out, GROUP.sources.name)).toBe(2);
    expect(sampleValue(out, GROUP.sourcesUp.name)).toBe(1);
    expect(sampleValue(out, GROUP.clusterViews.name)).toBe(1);
    // am-0 still lists the silent peer; am-1 is not compared, so nothing is missing and it has no series.
    expect(sampleValue(out, GROUP.missingPeers.name, { source: "am-0" })).toBe(0);
    expect(out.get(GROUP.missingPeers.name).map((s) => s.labels.source)).toEqual(["am-0"]);
  });

  it("reads zero views when no member answers", () => {
    const out = compareGroup("alertmanager", [member("am-0", undefined), member("am-1", undefined)]);
    expect(sampleValue(out, GROUP.clusterViews.name)).toBe(0);
    expect(sampleValue(out, GROUP.sourcesUp.name)).toBe(0);
  });
});

// The Prometheus side starts from a targets answer recorded from a real Prometheus 2.42 (8 targets:
// up, down and unknown ones) and changes it as a second replica would differ.
const recorded = () => upstreamFixture<TargetsResponse>("prometheus-targets.json", targetsResponse);
const prom = (edit: (targets: TargetsResponse["data"]["activeTargets"]) => void = () => {}) => {
  const answer = recorded();
  edit(answer.data.activeTargets);
  return prometheusFacts(answer, []);
};
const withHealth = (instance: string, health: string) => (targets: TargetsResponse["data"]["activeTargets"]) => {
  for (const t of targets) if (t.labels.instance === instance) t.health = health;
};

describe("compareGroup: HA Prometheus pairs", () => {
  it("reads one target set and no disagreement for replicas that scrape the same", () => {
    const out = compareGroup("prometheus", [member("a", prom()), member("b", prom())]);
    expect(sampleValue(out, GROUP.targetSets.name)).toBe(1);
    expect(sampleValue(out, GROUP.targetsMissing.name, { source: "a" })).toBe(0);
    expect(sampleValue(out, GROUP.targetsMissing.name, { source: "b" })).toBe(0);
    expect(sampleValue(out, GROUP.healthDisagreements.name)).toBe(0);
  });

  it("counts the targets one replica lacks, on that replica only", () => {
    const lacking = prom((targets) =>
      targets.splice(
        targets.findIndex((t) => t.labels.instance === "127.0.0.1:1"),
        1,
      ),
    );
    const out = compareGroup("prometheus", [member("a", prom()), member("b", lacking)]);
    expect(sampleValue(out, GROUP.targetSets.name)).toBe(2);
    expect(sampleValue(out, GROUP.targetsMissing.name, { source: "a" })).toBe(0);
    expect(sampleValue(out, GROUP.targetsMissing.name, { source: "b" })).toBe(1);
  });

  it("counts up-versus-down as a disagreement, but not unknown", () => {
    const out = compareGroup("prometheus", [
      member("a", prom()),
      member("b", prom(withHealth("127.0.0.1:1", "up"))), // down on a
      member("c", prom(withHealth("127.0.0.1:2", "down"))), // unknown on a and b
    ]);
    expect(sampleValue(out, GROUP.healthDisagreements.name)).toBe(1);
    expect(sampleValue(out, GROUP.targetSets.name)).toBe(1); // same targets, whatever their health
  });

  it("compares three replicas: a target only one has is missing on the other two", () => {
    const extra = prom((targets) => targets.push({ ...(targets[0] as (typeof targets)[number]), scrapePool: "extra" }));
    const out = compareGroup("prometheus", [member("a", prom()), member("b", extra), member("c", prom())]);
    expect(sampleValue(out, GROUP.targetSets.name)).toBe(2);
    expect(sampleValue(out, GROUP.targetsMissing.name, { source: "a" })).toBe(1);
    expect(sampleValue(out, GROUP.targetsMissing.name, { source: "b" })).toBe(0);
    expect(sampleValue(out, GROUP.targetsMissing.name, { source: "c" })).toBe(1);
  });
});

// Digests as the config, rules, flags and buildinfo endpoints give them: a key for each polled endpoint,
// undefined where the member's last poll of it failed or the server lacks it.
const digested = (source: string, digests: Partial<Record<DigestName, string | undefined>>): GroupMember => ({
  ...member(source, prom()),
  digests: new Map(Object.entries(digests) as [DigestName, string | undefined][]),
});
const SAME = { config: "c1", rules: "r1", flags: "f1", version: "2.42.0" };

describe("compareGroup: Prometheus config, rules, flags and versions", () => {
  it("reads one version of each for replicas that agree, and nothing differs", () => {
    const members = [digested("a", SAME), digested("b", SAME)];
    const out = compareGroup("prometheus", members);
    expect(sampleValue(out, GROUP.prometheusConfigVersions.name)).toBe(1);
    expect(sampleValue(out, GROUP.prometheusRuleVersions.name)).toBe(1);
    expect(sampleValue(out, GROUP.prometheusFlagVersions.name)).toBe(1);
    expect(sampleValue(out, GROUP.prometheusVersions.name)).toBe(1);
    expect(groupDifferences("prometheus", members)).toEqual([]);
  });

  it("counts two versions of what one replica changed, and of nothing else", () => {
    for (const name of ["config", "rules", "flags", "version"] as const) {
      const members = [digested("a", SAME), digested("b", { ...SAME, [name]: "changed" })];
      const out = compareGroup("prometheus", members);
      const counts = {
        config: sampleValue(out, GROUP.prometheusConfigVersions.name),
        rules: sampleValue(out, GROUP.prometheusRuleVersions.name),
        flags: sampleValue(out, GROUP.prometheusFlagVersions.name),
        version: sampleValue(out, GROUP.prometheusVersions.name),
      };
      expect(counts).toEqual({ config: 1, rules: 1, flags: 1, version: 1, [name]: 2 });
      expect(groupDifferences("prometheus", members)).toEqual([name === "version" ? "versions" : name]);
    }
  });

  it("leaves out a member whose poll of an endpoint failed, and counts 0 when none answered", () => {
    const out = compareGroup("prometheus", [
      digested("a", SAME),
      digested("b", { ...SAME, config: undefined }),
      digested("c", { ...SAME, rules: undefined }),
    ]);
    expect(sampleValue(out, GROUP.prometheusConfigVersions.name)).toBe(1);
    expect(sampleValue(out, GROUP.prometheusRuleVersions.name)).toBe(1);
    const none = compareGroup("prometheus", [
      digested("a", { config: undefined }),
      digested("b", { config: undefined }),
    ]);
    expect(sampleValue(none, GROUP.prometheusConfigVersions.name)).toBe(0);
  });

  it("serves no count for what no member polls", () => {
    const out = compareGroup("prometheus", [
      digested("a", { version: "2.42.0" }),
      digested("b", { version: "2.42.0" }),
    ]);
    expect(sampleValue(out, GROUP.prometheusVersions.name)).toBe(1);
    expect([...out.families.keys()]).not.toContain(GROUP.prometheusConfigVersions.name);
    expect([...out.families.keys()]).not.toContain(GROUP.prometheusFlagVersions.name);
  });

  it("names differing target sets among the differences", () => {
    const lacking = prom((targets) => targets.pop());
    expect(groupDifferences("prometheus", [member("a", prom()), member("b", lacking)])).toEqual(["targets"]);
  });
});

describe("groupDifferences: Alertmanager clusters", () => {
  it("names the cluster views and config of a split cluster, nothing for a healthy one", () => {
    expect(groupDifferences("alertmanager", [member("a", am("healthy-0")), member("b", am("healthy-1"))])).toEqual([]);
    expect(groupDifferences("alertmanager", [member("a", am("split-0")), member("b", am("split-1"))])).toEqual([
      "cluster views",
      "config",
    ]);
  });
});

describe("prometheusFacts", () => {
  it("keeps one identity per target, sorted, and lets down win for targets that share one", () => {
    const facts = prom((targets) => {
      const dead = targets.find((t) => t.labels.instance === "127.0.0.1:1") as (typeof targets)[number];
      targets.push({ ...dead, health: "up" }); // a colliding twin that is up
    });
    expect(facts.targets.length).toBe(8);
    expect([...facts.targets]).toEqual([...facts.targets].sort((x, y) => x - y));
    expect(new Set(facts.targets).size).toBe(8);
    const again = compareGroup("prometheus", [member("a", prom()), member("b", facts)]);
    expect(sampleValue(again, GROUP.healthDisagreements.name)).toBe(0); // still down on both
  });

  it("tells targets apart by the configured extra labels as well", () => {
    const answer = recorded();
    for (const [i, t] of answer.data.activeTargets.entries())
      t.labels = { ...t.labels, instance: "same", zone: `z${i}` };
    expect(prometheusFacts(answer, []).targets.length).toBeLessThan(8);
    expect(prometheusFacts(answer, [{ from: "zone", to: "zone" }]).targets.length).toBe(8);
  });
});
