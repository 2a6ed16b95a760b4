import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { GROUP_FAMILIES, SOURCE_FAMILIES } from "../../src/catalogue/families.js";
import { findBinaries } from "../harness/binaries.js";

const root = fileURLToPath(new URL("../../", import.meta.url));
const rulesFile = join(root, "helm/prometheus-status-exporter/files/prometheus-status-exporter.rules.yml");
const dashboardFile = join(root, "helm/prometheus-status-exporter/files/dashboard.json");

// Every metric the exporter serves under its own prefix (source families, build and reload info).
const SERVED = new Set([
  ...SOURCE_FAMILIES.map((f) => f.name),
  ...GROUP_FAMILIES.map((f) => f.name),
  "promstatus_exporter_build_info",
  "promstatus_config_last_reload_successful",
  "promstatus_config_last_reload_success_timestamp_seconds",
]);

/** Metric names an expression refers to (ours all start with promstatus_). */
function metricsIn(expr: string): string[] {
  return [...expr.matchAll(/\b(promstatus_[a-z0-9_]+)\b/g)].map((m) => m[1] as string);
}

function promtool(...args: string[]) {
  const result = spawnSync(findBinaries().promtool, args, { cwd: join(root, "test/rules"), encoding: "utf8" });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

describe("alert rules", () => {
  it("pass promtool check rules", () => {
    const result = promtool("check", "rules", rulesFile);
    expect(result.output).toContain("SUCCESS: 20 rules found");
    expect(result.status).toBe(0);
  });

  it("fire and stay quiet as their promtool unit tests expect", () => {
    const result = promtool("test", "rules", "prometheus-status-exporter.rules.test.yml");
    expect(result.output).toContain("SUCCESS");
    expect(result.status).toBe(0);
  });

  it("every alert has a unit test", () => {
    const rules = parse(readFileSync(rulesFile, "utf8")) as { groups: { rules: { alert: string }[] }[] };
    const tests = readFileSync(join(root, "test/rules/prometheus-status-exporter.rules.test.yml"), "utf8");
    for (const { alert } of rules.groups.flatMap((g) => g.rules)) expect(tests, alert).toContain(`alertname: ${alert}`);
  });

  it("refer only to metrics the exporter serves", () => {
    const rules = parse(readFileSync(rulesFile, "utf8")) as { groups: { rules: { expr: string }[] }[] };
    const used = rules.groups.flatMap((g) => g.rules).flatMap((r) => metricsIn(r.expr));
    expect(used.length).toBeGreaterThan(8);
    for (const name of used) expect(SERVED, name).toContain(name);
  });
});

describe("Grafana dashboard", () => {
  const dashboard = JSON.parse(readFileSync(dashboardFile, "utf8")) as {
    panels: {
      id: number;
      title: string;
      type: string;
      gridPos: { x: number; y: number; w: number; h: number };
      datasource?: { uid: string };
      targets?: { expr: string; datasource?: { uid: string } }[];
    }[];
    templating: { list: { query: unknown }[] };
  };
  const exprs = dashboard.panels.flatMap((p) => p.targets ?? []).map((t) => t.expr);

  it("refers only to metrics the exporter serves", () => {
    const used = new Set([...exprs, ...dashboard.templating.list.map((v) => String(v.query))].flatMap(metricsIn));
    for (const name of used) expect(SERVED, name).toContain(name);
  });

  it("covers the fleet, targets by health, cardinality top-N and the Alertmanager cluster", () => {
    const titles = dashboard.panels.filter((p) => p.type === "row").map((p) => p.title);
    expect(titles).toEqual([
      "Fleet overview",
      "Targets",
      "Cardinality",
      "Alertmanager cluster",
      "Replica groups",
      "Prometheus replicas",
    ]);
    const used = new Set(exprs.flatMap(metricsIn));
    for (const name of [
      "promstatus_up",
      "promstatus_targets",
      "promstatus_targets_down_by_reason",
      "promstatus_target_collisions",
      "promstatus_tsdb_metric_series",
      "promstatus_alertmanager_cluster_peers",
      "promstatus_alertmanager_config_info",
      "promstatus_prometheus_config_info",
      "promstatus_prometheus_rules_info",
      "promstatus_prometheus_flags_info",
      "promstatus_prometheus_build_info",
      "promstatus_prometheus_clock_skew_seconds",
      "promstatus_prometheus_clock_skew_uncertainty_seconds",
      "promstatus_prometheus_wal_replay_progress",
      "promstatus_prometheus_ready",
      ...GROUP_FAMILIES.map((f) => f.name),
    ]) {
      expect(used, name).toContain(name);
    }
    expect(exprs.some((e) => e.startsWith("topk($topn, promstatus_tsdb_metric_series"))).toBe(true);
  });

  it("lays its panels out on the 24-column grid without overlaps, each with its own id and the datasource variable", () => {
    const variable = `\${datasource}`;
    const taken = new Map<string, string>();
    for (const { title, gridPos, type, datasource, targets } of dashboard.panels) {
      expect(gridPos.x + gridPos.w, title).toBeLessThanOrEqual(24);
      for (let x = gridPos.x; x < gridPos.x + gridPos.w; x++) {
        for (let y = gridPos.y; y < gridPos.y + gridPos.h; y++) {
          expect(taken.get(`${x},${y}`), `${title} overlaps`).toBeUndefined();
          taken.set(`${x},${y}`, title);
        }
      }
      if (type === "row") continue;
      expect(datasource?.uid, title).toBe(variable);
      for (const t of targets ?? []) expect(t.datasource?.uid, title).toBe(variable);
    }
    expect(new Set(dashboard.panels.map((p) => p.id)).size).toBe(dashboard.panels.length);
  });
});
