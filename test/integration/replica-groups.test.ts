import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import type { Exporter } from "../../src/exporter.js";
import {
  ALERTMANAGER_CONFIG,
  type RealAlertmanagerCluster,
  startAlertmanagerCluster,
} from "../harness/alertmanager.js";
import { startExporter } from "../harness/exporter.js";
import { freePort, tempDir, waitFor } from "../harness/processes.js";
import { type RealPrometheus, startPrometheus } from "../harness/prometheus.js";
import { parseExposition, samplesOf, valueIn } from "../helpers/exposition.js";
import { startMetricsTarget } from "../helpers/metrics-target.js";
import { promtoolCheckMetrics } from "../helpers/promtool.js";

// Replica groups against real servers (Debian's Alertmanager 0.25 and Prometheus 2.42):
// - am-healthy: a two-node cluster;
// - am-split: two nodes, the second pointed at a wrong peer so it never joins, and on another config;
// - prom-ha: two Prometheus whose file_sd target lists differ by one target;
// then a third Prometheus scrapes the exporter with the shipped rules loaded.

const rulesFile = fileURLToPath(
  new URL("../../helm/prometheus-status-exporter/files/prometheus-status-exporter.rules.yml", import.meta.url),
);
const dir = tempDir("promstatus-groups");
const GROUP_ALERTS = new Set(
  (parse(readFileSync(rulesFile, "utf8")) as { groups: { rules: { alert: string; expr: string }[] }[] }).groups
    .flatMap((g) => g.rules)
    .filter((r) => r.expr.includes("promstatus_group_"))
    .map((r) => r.alert),
);
const subdir = (name: string) => {
  const path = join(dir.path, name);
  mkdirSync(path);
  return path;
};
let healthy: RealAlertmanagerCluster;
let split: RealAlertmanagerCluster;
let promA: RealPrometheus;
let promB: RealPrometheus;
let ruler: RealPrometheus;
let target: Server;
let exporter: Exporter;
let base: string;
const scrape = async () => (await fetch(`${base}/metrics`)).text();

/** A Prometheus replica whose targets come from a file_sd file listing `targets`. */
async function replica(name: string, targets: string[]): Promise<RealPrometheus> {
  const path = subdir(name);
  const sd = join(path, "targets.json");
  writeFileSync(sd, JSON.stringify([{ targets, labels: { env: "test" } }]));
  // The file_sd file named relative to each replica's own directory: the two configs are the same text
  // (an HA pair whose discovery, not config, differs), so only the target sets differ between them.
  return startPrometheus(path, [{ job_name: "app", targets: [], file_sd_configs: [{ files: ["targets.json"] }] }], {
    selfScrape: false,
    relativePaths: true,
  });
}

beforeAll(async () => {
  target = await startMetricsTarget();
  const up = `127.0.0.1:${(target.address() as AddressInfo).port}`;
  const dead = `127.0.0.1:${await freePort()}`;
  const nowhere = `127.0.0.1:${await freePort()}`; // no Alertmanager gossips here
  [healthy, split, promA, promB] = await Promise.all([
    startAlertmanagerCluster(subdir("am-healthy"), 2),
    startAlertmanagerCluster(subdir("am-split"), 2, {
      peers: (i) => (i === 0 ? [] : [nowhere]),
      config: (i) =>
        i === 0 ? ALERTMANAGER_CONFIG : ALERTMANAGER_CONFIG.replace("receiver: default", "receiver: team-a"),
    }),
    replica("prom-a", [up, dead]),
    replica("prom-b", [up]),
  ]);
  const source = (name: string, kind: string, url: string, group: string) =>
    `  - {name: ${name}, kind: ${kind}, url: "${url}", group: ${group}}`;
  const started = await startExporter(
    dir.path,
    [
      `global: {schedule: "* * * * * *", timeout: 2s}`,
      "sources:",
      ...healthy.members.map((m, i) => source(`am-healthy-${i}`, "alertmanager", m.url, "am-healthy")),
      ...split.members.map((m, i) => source(`am-split-${i}`, "alertmanager", m.url, "am-split")),
      source("prom-a", "prometheus", promA.url, "prom-ha"),
      source("prom-b", "prometheus", promB.url, "prom-ha"),
      "",
    ].join("\n"),
  );
  ({ exporter, base } = started);
  const address = started.address;
  ruler = await startPrometheus(subdir("ruler"), [{ job_name: "promstatus", targets: [address] }], {
    ruleFiles: [rulesFile],
  });
}, 90_000);

afterAll(async () => {
  await exporter?.stop();
  await Promise.all([healthy?.stop(), split?.stop(), promA?.stop(), promB?.stop(), ruler?.stop()]);
  target?.close();
  dir.remove();
}, 30_000);

/** The exposition once both Prometheus replicas report the app targets and the healthy cluster has formed. */
const settled = () =>
  waitFor(
    "groups compared",
    async () => {
      const text = await scrape();
      const ready =
        valueIn(text, "promstatus_group_sources_up", { group: "am-healthy" }) === 2 &&
        valueIn(text, "promstatus_group_alertmanager_cluster_views", { group: "am-healthy" }) === 1 &&
        valueIn(text, "promstatus_group_sources_up", { group: "prom-ha" }) === 2 &&
        samplesOf(text, "promstatus_targets", { source: "prom-b", scrape_pool: "app", health: "up" })[0]?.value === 1;
      return ready ? text : undefined;
    },
    45_000,
    250,
  );

describe("replica groups against real servers", () => {
  it("reads a healthy Alertmanager cluster as 1 view, 0 missing peers and 1 config", async () => {
    const text = await settled();
    expect(valueIn(text, "promstatus_group_sources", { group: "am-healthy" })).toBe(2);
    expect(valueIn(text, "promstatus_group_alertmanager_cluster_views", { group: "am-healthy" })).toBe(1);
    for (const source of ["am-healthy-0", "am-healthy-1"]) {
      expect(valueIn(text, "promstatus_group_alertmanager_missing_peers", { group: "am-healthy", source })).toBe(0);
    }
    expect(valueIn(text, "promstatus_group_alertmanager_config_versions", { group: "am-healthy" })).toBe(1);
    expect(valueIn(text, "promstatus_group_alertmanager_versions", { group: "am-healthy" })).toBe(1);
  });

  it("reads the split cluster as 2 views, 1 missing peer on each member and 2 configs", async () => {
    const text = await settled();
    expect(valueIn(text, "promstatus_group_sources_up", { group: "am-split" })).toBe(2);
    expect(valueIn(text, "promstatus_group_alertmanager_cluster_views", { group: "am-split" })).toBe(2);
    for (const source of ["am-split-0", "am-split-1"]) {
      expect(valueIn(text, "promstatus_group_alertmanager_missing_peers", { group: "am-split", source })).toBe(1);
    }
    expect(valueIn(text, "promstatus_group_alertmanager_config_versions", { group: "am-split" })).toBe(2);
  });

  it("reads the HA pair whose file_sd lists differ by one target as 2 target sets, 1 missing on the lacking one", async () => {
    const text = await settled();
    expect(valueIn(text, "promstatus_group_prometheus_target_sets", { group: "prom-ha" })).toBe(2);
    expect(valueIn(text, "promstatus_group_prometheus_targets_missing", { group: "prom-ha", source: "prom-b" })).toBe(
      1,
    );
    expect(valueIn(text, "promstatus_group_prometheus_targets_missing", { group: "prom-ha", source: "prom-a" })).toBe(
      0,
    );
    // The shared target is up on both; the one only prom-a has is not a disagreement.
    expect(valueIn(text, "promstatus_group_prometheus_health_disagreements", { group: "prom-ha" })).toBe(0);
  });

  it("labels every series of a grouped source with its group, and promtool accepts the whole", async () => {
    const text = await settled();
    const ofSource = parseExposition(text).filter(
      (s) => s.labels.source === "am-split-1" && !s.name.startsWith("promstatus_group_"),
    );
    expect(ofSource.length).toBeGreaterThan(5);
    for (const s of ofSource) expect(s.labels.group, s.name).toBe("am-split");
    const check = promtoolCheckMetrics(text);
    expect(check.output).toBe("");
    expect(check.status).toBe(0);
  });

  it("shows each group's members, their views and config hashes on the landing page", async () => {
    await settled();
    const html = await (await fetch(base)).text();
    // Groups whose members differ are headed in red with what differs; a healthy one is not.
    expect(html).toContain('<h3 class="differs">am-split <small>alertmanager</small></h3>');
    expect(html).toContain('<p class="differs">Members differ: cluster views, config</p>');
    expect(html).toContain("<h3>am-healthy <small>alertmanager</small></h3>");
    expect(html).toContain('<h3 class="differs">prom-ha <small>prometheus</small></h3>');
    expect(html).toContain('<p class="differs">Members differ: targets</p>');
    // Split members see themselves only, and run different configs: both cells marked.
    expect(html).toMatch(
      /<tr class="ok"><td>am-split-1<\/td><td class="result">up<\/td><td>\d{4}-\d\d-\d\dT[\d:]+Z<\/td><td class="odd">1 peer: \w+ \(self\)<\/td><td class="odd"><code>[0-9a-f]{12}<\/code>/,
    );
    // prom-a has the extra target: its view is the odd one; its config hash is the same as prom-b's.
    expect(html).toMatch(
      /<tr class="ok"><td>prom-a<\/td><td class="result">up<\/td><td>[^<]+<\/td><td class="odd">2 targets, \d down<\/td><td><code>[0-9a-f]{12}<\/code>/,
    );
  });

  it("makes a Prometheus with the shipped rules raise the split group's alerts and none for the healthy group", async () => {
    await settled();
    type Alert = { labels: Record<string, string>; state: string };
    const alerts = await waitFor(
      "the split group's alerts",
      async () => {
        const res = (await (await fetch(`${ruler.url}/api/v1/alerts`)).json()) as { data: { alerts: Alert[] } };
        const list = res.data.alerts;
        const names = new Set(list.filter((a) => a.labels.group === "am-split").map((a) => a.labels.alertname));
        const all = [
          "PromStatusAlertmanagerClusterPartitioned",
          "PromStatusAlertmanagerPeerMissing",
          "PromStatusAlertmanagerConfigDrift",
        ];
        return all.every((n) => names.has(n)) && list.some((a) => a.labels.group === "prom-ha") ? list : undefined;
      },
      45_000,
      500,
    );
    for (const a of alerts) expect(["pending", "firing"]).toContain(a.state);
    // Per-source alerts carry the group label as well (a member still settling right after its start):
    // what must not be there is any group alert for the healthy cluster.
    const groupAlerts = (group: string) =>
      alerts.filter((a) => a.labels.group === group && GROUP_ALERTS.has(a.labels.alertname as string));
    expect(groupAlerts("am-healthy")).toEqual([]);
    expect(groupAlerts("prom-ha").map((a) => a.labels.alertname)).toEqual([
      "PromStatusPrometheusReplicasTargetsDiffer",
    ]);
    // One alert per member, not one per member and exporter replica or per source polled.
    const peerMissing = alerts.filter((a) => a.labels.alertname === "PromStatusAlertmanagerPeerMissing");
    expect(peerMissing.map((a) => a.labels.source).sort()).toEqual(["am-split-0", "am-split-1"]);
  });
});
