import { PROMETHEUS } from "../catalogue/families.js";
import type { PrometheusRule, PrometheusRulesResponse } from "../upstream/payloads.js";
import { digestOf } from "./prometheus-digest.js";
import type { DigestFacts } from "./replica-facts.js";
import { SampleSet } from "./samples.js";

/** Rule types and health values of `/api/v1/rules` (rules/rule.go): each pair gets a series, 0 or more. */
const TYPES = ["alerting", "recording"] as const;
const HEALTHS = ["ok", "err", "unknown"] as const;

/** A rule as loaded: what it is, never how its last evaluation went (health, times, alerts, state). */
function loaded(rule: PrometheusRule) {
  const { type, name, query, labels } = rule;
  if (type !== "alerting") return { type, name, query, labels };
  // keepFiringFor since 2.42: an older server's missing field is its default, 0.
  const { duration = 0, keepFiringFor = 0, annotations } = rule;
  return { type, name, query, duration, keepFiringFor, labels, annotations };
}

/**
 * SHA-256 of a rule set as loaded: each group's name, file, interval and limit and its rules in order,
 * groups sorted by file and name. Nothing that changes with evaluation (health, lastError,
 * lastEvaluation, evaluationTime, state, alerts) is in it, so replicas with one rule set agree.
 */
export function prometheusRulesSha256(payload: PrometheusRulesResponse): string {
  const groups = payload.data.groups
    .map(({ name, file, interval, limit = 0, rules }) => ({ name, file, interval, limit, rules: rules.map(loaded) }))
    .sort((a, b) => (a.file === b.file ? compare(a.name, b.name) : compare(a.file, b.file)));
  return digestOf(groups);
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export function convertPrometheusRules(payload: PrometheusRulesResponse): SampleSet {
  const out = new SampleSet();
  const counts = new Map<string, { type: string; health: string; n: number }>();
  for (const type of TYPES) for (const health of HEALTHS) counts.set(`${type}\0${health}`, { type, health, n: 0 });
  // Only the known pairs are series, whatever the answer says: a type or health value of its own per
  // rule would be a series each (a hostile answer of 300k rules gave 300k). Another health is `unknown`;
  // a rule of another type is not counted.
  for (const group of payload.data.groups) {
    for (const { type, health } of group.rules) {
      const known = (HEALTHS as readonly string[]).includes(health) ? health : "unknown";
      const entry = counts.get(`${type}\0${known}`);
      if (entry) entry.n++;
    }
  }
  for (const { type, health, n } of counts.values()) out.add(PROMETHEUS.rules.name, { type, health }, n);
  out.add(PROMETHEUS.ruleGroups.name, {}, payload.data.groups.length);
  out.add(PROMETHEUS.rulesInfo.name, { sha256: prometheusRulesSha256(payload) }, 1);
  return out;
}

export function prometheusRulesFacts(payload: PrometheusRulesResponse): DigestFacts {
  return { kind: "digest", value: prometheusRulesSha256(payload) };
}
