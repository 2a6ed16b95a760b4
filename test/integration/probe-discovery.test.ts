import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import type { Exporter } from "../../src/exporter.js";
import { type RealAlertmanagerCluster, startAlertmanagerCluster } from "../harness/alertmanager.js";
import { startExporter } from "../harness/exporter.js";
import { tempDir, waitFor } from "../harness/processes.js";
import { type RealPrometheus, type ScrapeJob, startPrometheus } from "../harness/prometheus.js";
import { valueIn } from "../helpers/exposition.js";
import { instantQuery } from "../helpers/promql.js";

// Fleet discovery the Prometheus way: a real Prometheus reads the servers to watch from a file_sd file
// and scrapes the exporter's /probe for each, with the README's recipe (config/examples). The file
// then gains one server and loses another while everything keeps running.

const RECIPE = fileURLToPath(new URL("../../config/examples/prometheus-probe-file-sd.yml", import.meta.url));
const dir = tempDir("promstatus-probe-sd");
const sub = (name: string) => {
  const path = join(dir.path, name);
  mkdirSync(path, { recursive: true });
  return path;
};
const targetsFile = join(dir.path, "targets", "fleet.json");
let watched: RealPrometheus;
let cluster: RealAlertmanagerCluster;
let scraper: RealPrometheus;
let exporter: Exporter;

/** Replaces the file_sd file in one step, as a config management tool would. */
function writeTargets(groups: { targets: string[]; labels: Record<string, string> }[]) {
  const temp = `${targetsFile}.tmp`;
  writeFileSync(temp, JSON.stringify(groups));
  renameSync(temp, targetsFile);
}

/** The recipe's job, pointed at this test's exporter and file, scraping every second. */
function recipeJob(exporterAddress: string): ScrapeJob {
  const recipe = parse(readFileSync(RECIPE, "utf8")) as { scrape_configs: Record<string, unknown>[] };
  const job = recipe.scrape_configs[0] as Record<string, unknown>;
  const relabel = (job.relabel_configs as Record<string, unknown>[]).map((r) =>
    r.target_label === "__address__" ? { ...r, replacement: exporterAddress } : r,
  );
  return {
    ...(job as unknown as ScrapeJob),
    targets: [],
    scrape_interval: "1s",
    scrape_timeout: "900ms",
    file_sd_configs: [{ files: [join(dir.path, "targets", "*.json")] }],
    relabel_configs: relabel,
  } as ScrapeJob;
}

beforeAll(async () => {
  sub("targets");
  [watched, cluster] = await Promise.all([startPrometheus(sub("watched"), []), startAlertmanagerCluster(sub("am"), 2)]);
  let address: string;
  ({ exporter, address } = await startExporter(dir.path, "modules: {}\n"));
  writeTargets([
    { targets: [watched.url], labels: { module: "prometheus" } },
    { targets: cluster.members.map((m) => m.url), labels: { module: "alertmanager" } },
  ]);
  scraper = await startPrometheus(sub("scraper"), [recipeJob(address)]);
}, 90_000);

afterAll(async () => {
  await Promise.all([scraper?.stop(), watched?.stop(), cluster?.stop()]);
  await exporter?.stop();
  dir.remove();
}, 30_000);

interface ScrapeTarget {
  labels: Record<string, string>;
  health: string;
  lastError: string;
}

const query = (expr: string) => instantQuery(scraper.url, expr);
const valuesBySource = async (expr: string) => (await query(expr)).map((s) => [s.metric.source, Number(s.value[1])]);

describe("/probe scraped by a real Prometheus through file_sd", () => {
  it("uses the recipe docs/probing.md shows, word for word", () => {
    const doc = readFileSync(fileURLToPath(new URL("../../docs/probing.md", import.meta.url)), "utf8");
    const body = readFileSync(RECIPE, "utf8")
      .split("\n")
      .filter((line) => !line.startsWith("#"))
      .join("\n");
    expect(doc).toContain(`\`\`\`yaml\n${body}\`\`\``);
  });

  it("serves every server in the file: target health of the Prometheus, cluster peers of each Alertmanager", async () => {
    const [am0, am1] = cluster.members.map((m) => m.url) as [string, string];
    const up = await waitFor(
      "target health of the watched Prometheus",
      async () => {
        // Right after its start the watched Prometheus may not have scraped itself yet (health unknown: no up).
        const samples = await query(`promstatus_target_up{source="${watched.url}", job="prometheus"} == 1`);
        return samples.length === 1 ? samples[0] : undefined;
      },
      30_000,
    );
    expect(up?.value[1]).toBe("1");
    // honor_labels: the per-target series keep the watched server's own job and instance.
    expect(up?.metric.instance).toBe(watched.address);
    expect(up?.metric.module).toBe("prometheus");
    const peers = await waitFor(
      "both Alertmanagers see the cluster",
      async () => {
        const v = await valuesBySource("promstatus_alertmanager_cluster_peers");
        return v.length === 2 && v.every(([, n]) => n === 2) ? v : undefined;
      },
      30_000,
    );
    expect(peers.map(([s]) => s).sort()).toEqual([am0, am1].sort());
    // The scrape of each probe is healthy and instance names the probed server.
    await waitFor(
      "every probe scraped successfully",
      async () => {
        const res = await fetch(`${scraper.url}/api/v1/targets`);
        const { activeTargets } = ((await res.json()) as { data: { activeTargets: ScrapeTarget[] } }).data;
        const probes = activeTargets.filter((t) => t.labels.job === "promstatus-probe");
        if (probes.length === 3 && probes.every((t) => t.health === "up")) return true;
        throw new Error(JSON.stringify(probes.map((t) => [t.labels.instance, t.health, t.lastError])));
      },
      15_000,
    );
    const scrapes = await query('up{job="promstatus-probe"}');
    expect(scrapes.map((x) => [x.metric.instance, x.value[1]]).sort()).toEqual(
      [watched.url, am0, am1].map((u) => [u, "1"]).sort(),
    );
  });

  it("follows the file: a server added appears, a server removed goes stale, nothing restarts", async () => {
    const [am0, am1] = cluster.members.map((m) => m.url) as [string, string];
    const lastReload = async () =>
      valueIn(
        await (await fetch(`${scraper.url}/metrics`)).text(),
        "prometheus_config_last_reload_success_timestamp_seconds",
      );
    const reloadedAt = await lastReload();
    writeTargets([
      { targets: [watched.url, scraper.url], labels: { module: "prometheus" } },
      { targets: [am0], labels: { module: "alertmanager" } },
    ]);
    const added = await waitFor(
      "the added Prometheus's targets",
      async () => {
        const samples = await query(`promstatus_target_up{source="${scraper.url}", job="promstatus-probe"}`);
        return samples.length > 0 ? samples : undefined;
      },
      30_000,
    );
    expect(added.length).toBeGreaterThan(0);
    // Prometheus marks the removed target's series stale: an instant query no longer returns them.
    await waitFor(
      "the removed Alertmanager's series gone stale",
      async () => {
        const left = await query(`{source="${am1}"}`);
        return left.length === 0 ? true : undefined;
      },
      30_000,
    );
    expect((await valuesBySource(`promstatus_up{source="${am0}"}`)).map(([, v]) => v)).toEqual([1]);
    expect(await lastReload()).toBe(reloadedAt); // file_sd followed the file without a reload
  });
});
