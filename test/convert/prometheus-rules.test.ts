import { describe, expect, it } from "vitest";
import { convertPrometheusRules, prometheusRulesSha256 } from "../../src/convert/prometheus-rules.js";
import { type PrometheusRulesResponse, prometheusRulesResponse } from "../../src/upstream/payloads.js";
import { fixtureJson, upstreamFixture } from "../helpers/fixtures.js";
import { sampleValue } from "../helpers/samples.js";

// Debian 2.42 with two groups evaluated: three rules ok, one failing (health err).
const captured = () => upstreamFixture("prometheus-rules.json", prometheusRulesResponse);
type Raw = { data: { groups: { name: string; rules: Record<string, unknown>[]; [k: string]: unknown }[] } };
const raw = () => fixtureJson("upstream/prometheus-rules.json") as Raw;
const hashOf = (answer: Raw) => prometheusRulesSha256(prometheusRulesResponse.parse(answer));

describe("convertPrometheusRules", () => {
  it("counts rules by type and health, every pair present, and the groups", () => {
    const samples = convertPrometheusRules(captured());
    const count = (type: string, health: string) =>
      sampleValue(samples, "promstatus_prometheus_rules", { type, health });
    expect([count("alerting", "ok"), count("recording", "ok"), count("recording", "err")]).toEqual([2, 1, 1]);
    expect([count("alerting", "err"), count("alerting", "unknown"), count("recording", "unknown")]).toEqual([0, 0, 0]);
    expect(sampleValue(samples, "promstatus_prometheus_rule_groups")).toBe(2);
    const sha256 = prometheusRulesSha256(captured());
    expect(sampleValue(samples, "promstatus_prometheus_rules_info", { sha256 })).toBe(1);
  });

  it("serves the six known pairs only, whatever types and health values an answer makes up", () => {
    const answer = raw();
    const rules = answer.data.groups[0]?.rules ?? [];
    const template = rules[0] ?? {};
    for (let i = 0; i < 1000; i++) rules.push({ ...template, type: `type-${i}`, health: `health-${i}` });
    rules.push({ ...template, type: "alerting", health: "weird" });
    const samples = convertPrometheusRules(prometheusRulesResponse.parse(answer));
    expect(samples.get("promstatus_prometheus_rules")).toHaveLength(6);
    expect(sampleValue(samples, "promstatus_prometheus_rules", { type: "alerting", health: "unknown" })).toBe(1);
  });
});

describe("prometheusRulesSha256", () => {
  it("does not change with evaluation: health, errors, times, state and alerts", () => {
    const evaluated = raw();
    for (const group of evaluated.data.groups) {
      group.evaluationTime = 0.5;
      group.lastEvaluation = "2030-01-01T00:00:00.123Z";
      for (const rule of group.rules) {
        Object.assign(rule, {
          health: "err",
          lastError: "boom",
          evaluationTime: 9,
          lastEvaluation: "2030-01-01T00:00:00Z",
        });
        if (rule.type === "alerting")
          Object.assign(rule, { state: "firing", alerts: [{ labels: {}, state: "firing" }] });
      }
    }
    expect(hashOf(evaluated)).toBe(prometheusRulesSha256(captured()));
  });

  it("does not change with the order the groups are listed in, nor with 3.x's empty labels of a recording rule", () => {
    const swapped = raw();
    swapped.data.groups.reverse();
    for (const group of swapped.data.groups) for (const rule of group.rules) if (!rule.labels) rule.labels = {};
    expect(hashOf(swapped)).toBe(prometheusRulesSha256(captured()));
  });

  it("changes with a rule's query, labels, annotations, duration or order, and with a group's interval", () => {
    const base = prometheusRulesSha256(captured());
    const changed = (edit: (answer: Raw) => unknown) => {
      const answer = raw();
      edit(answer);
      return hashOf(answer);
    };
    const example = (answer: Raw) => answer.data.groups.find((g) => g.name === "example") as Raw["data"]["groups"][0];
    const alert = (answer: Raw) =>
      example(answer).rules.find((r) => r.name === "TargetDown") as Record<string, unknown>;
    const hashes = [
      changed((r) => Object.assign(alert(r), { query: "up == 0 and on() vector(1)" })),
      changed((r) => Object.assign(alert(r), { labels: { severity: "critical" } })),
      changed((r) => Object.assign(alert(r), { annotations: {} })),
      changed((r) => Object.assign(alert(r), { duration: 600 })),
      changed((r) => example(r).rules.reverse()),
      changed((r) => Object.assign(example(r), { interval: 60 })),
      changed((r) => Object.assign(example(r), { file: "/etc/prometheus/other.yml" })),
    ];
    for (const h of hashes) expect(h).not.toBe(base);
    expect(new Set(hashes).size).toBe(hashes.length);
  });

  it("takes a server without keepFiringFor or limit (before 2.42, 2.31) as one with their defaults", () => {
    const older = raw();
    for (const group of older.data.groups) {
      delete group.limit;
      for (const rule of group.rules) delete rule.keepFiringFor;
    }
    expect(hashOf(older)).toBe(prometheusRulesSha256(captured()));
  });

  it("reads an empty rule set", () => {
    const none: PrometheusRulesResponse = { status: "success", data: { groups: [] } };
    expect(sampleValue(convertPrometheusRules(none), "promstatus_prometheus_rule_groups")).toBe(0);
  });
});
