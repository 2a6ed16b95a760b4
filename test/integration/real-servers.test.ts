import type { AddressInfo } from "node:net";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseFlags } from "../../src/cli/flags.js";
import { parseConfig } from "../../src/config/load.js";
import { Exporter } from "../../src/exporter.js";
import { NO_WEB_CONFIG } from "../../src/http/web-config.js";
import { waitFor } from "../harness/processes.js";
import { type Stack, startStack } from "../harness/stack.js";
import { samplesOf, valueIn } from "../helpers/exposition.js";
import { promtoolCheckMetrics } from "../helpers/promtool.js";

// The exporter, in process, polling a real Prometheus and a real two-node Alertmanager cluster.

let stack: Stack;
let exporter: Exporter;
let metricsUrl: string;

const getJson = async <T>(url: string) => (await (await fetch(url)).json()) as T;
const scrape = async () => (await fetch(metricsUrl)).text();

interface TsdbAnswer {
  data: { headStats: { numSeries: number } };
}
interface TargetsAnswer {
  data: { activeTargets: { health: string; scrapePool: string; labels: { job: string; instance: string } }[] };
}
interface StatusAnswer {
  cluster: { peers: unknown[]; status: string };
  versionInfo: { version: string };
}

beforeAll(async () => {
  stack = await startStack({ prefix: "promstatus-integration" });
  const [am0, am1] = stack.alertmanagers.members;
  const config = parseConfig(
    `global: {schedule: "* * * * * *", timeout: 5s}
sources:
  - name: prometheus-0
    kind: prometheus
    url: ${stack.prometheus.url}
    labels: {region: test-1}
    tsdb: {limit: 5}
  - {name: alertmanager-0, kind: alertmanager, url: "${am0?.url}"}
  - {name: alertmanager-1, kind: alertmanager, url: "${am1?.url}"}
`,
    "integration.yml",
  );
  const flags = parseFlags(["--web.listen-address=127.0.0.1:0"]);
  exporter = await Exporter.start({ config, webConfig: NO_WEB_CONFIG }, flags, pino({ level: "silent" }));
  metricsUrl = `http://127.0.0.1:${(exporter.server.address() as AddressInfo).port}/metrics`;
  await waitFor("exporter ready", async () =>
    (await fetch(metricsUrl.replace("/metrics", "/-/ready"))).ok ? true : undefined,
  );
}, 90_000);

afterAll(async () => {
  await exporter?.stop();
  await stack?.stop();
}, 30_000);

describe("against real Prometheus and Alertmanager", () => {
  it("polls every endpoint successfully", async () => {
    const text = await scrape();
    for (const [source, endpoint] of [
      ["prometheus-0", "tsdb"],
      ["prometheus-0", "targets"],
      ["alertmanager-0", "status"],
      ["alertmanager-1", "status"],
    ]) {
      expect(
        valueIn(text, "promstatus_up", { source: source as string, endpoint: endpoint as string }),
        `${source}/${endpoint}`,
      ).toBe(1);
    }
  });

  it("reports the head series Prometheus reports", async () => {
    // numSeries only grows over a few seconds: the served value lies between an answer fetched
    // before the exporter's latest poll and one fetched after the scrape.
    const before = (await getJson<TsdbAnswer>(`${stack.prometheus.url}/api/v1/status/tsdb`)).data.headStats.numSeries;
    await new Promise((r) => setTimeout(r, 2500));
    const served = valueIn(await scrape(), "promstatus_tsdb_head_series", { source: "prometheus-0", region: "test-1" });
    const after = (await getJson<TsdbAnswer>(`${stack.prometheus.url}/api/v1/status/tsdb`)).data.headStats.numSeries;
    expect(served).toBeGreaterThanOrEqual(before);
    expect(served).toBeLessThanOrEqual(after);
    expect(samplesOf(await scrape(), "promstatus_tsdb_metric_series", { source: "prometheus-0" })).toHaveLength(5);
  });

  it("reports the targets per pool and health, the dead target down", async () => {
    const text = await scrape();
    const { activeTargets } = (await getJson<TargetsAnswer>(`${stack.prometheus.url}/api/v1/targets`)).data;
    for (const pool of ["prometheus", "alertmanager", "dead"]) {
      for (const health of ["up", "down", "unknown"]) {
        const expected = activeTargets.filter((t) => t.scrapePool === pool && t.health === health).length;
        expect(
          valueIn(text, "promstatus_targets", { source: "prometheus-0", scrape_pool: pool, health }),
          `${pool}/${health}`,
        ).toBe(expected);
      }
    }
    expect(valueIn(text, "promstatus_targets", { scrape_pool: "alertmanager", health: "up" })).toBe(2);
    expect(valueIn(text, "promstatus_target_up", { job: "dead", instance: stack.deadTarget })).toBe(0);
    expect(valueIn(text, "promstatus_target_up", { job: "prometheus", instance: stack.prometheus.address })).toBe(1);
    const lastScrape = valueIn(text, "promstatus_target_last_scrape_timestamp_seconds", { job: "prometheus" });
    expect(Math.abs(lastScrape - Date.now() / 1000)).toBeLessThan(30);
  });

  it("reports the cluster peers and the build version of each Alertmanager", async () => {
    const text = await scrape();
    for (const [i, member] of stack.alertmanagers.members.entries()) {
      const status = await getJson<StatusAnswer>(`${member.url}/api/v2/status`);
      const source = `alertmanager-${i}`;
      expect(valueIn(text, "promstatus_alertmanager_cluster_peers", { source })).toBe(status.cluster.peers.length);
      expect(samplesOf(text, "promstatus_alertmanager_peer_info", { source })).toHaveLength(2);
      expect(valueIn(text, "promstatus_alertmanager_build_info", { source, version: status.versionInfo.version })).toBe(
        1,
      );
      expect(valueIn(text, "promstatus_alertmanager_config_receivers", { source })).toBe(3);
      expect(valueIn(text, "promstatus_alertmanager_config_routes", { source })).toBe(3);
    }
    // Both replicas run the same config, so their hashes match.
    const hashes = samplesOf(text, "promstatus_alertmanager_config_info").map((s) => s.labels.config_sha256);
    expect(hashes).toHaveLength(2);
    expect(new Set(hashes).size).toBe(1);
  });

  it("never serves config.original or the secrets in it", async () => {
    const text = await scrape();
    expect(text).not.toContain("harness-webhook-token");
    expect(text).not.toContain("webhook");
  });

  it("is accepted by promtool check metrics, process metrics included", async () => {
    const text = await scrape();
    expect(text).toContain("process_resident_memory_bytes");
    const result = promtoolCheckMetrics(text);
    expect(result.output).toBe("");
    expect(result.status).toBe(0);
  });

  it("drops a target removed from Prometheus's config at the next poll", async () => {
    expect(samplesOf(await scrape(), "promstatus_target_up", { job: "dead" })).toHaveLength(1);
    await stack.prometheus.setJobs(stack.jobs.filter((j) => j.job_name !== "dead"));
    await waitFor("dead target gone from Prometheus", async () => {
      const { activeTargets } = (await getJson<TargetsAnswer>(`${stack.prometheus.url}/api/v1/targets`)).data;
      return activeTargets.some((t) => t.scrapePool === "dead") ? undefined : true;
    });
    const text = await waitFor(
      "dead target gone from /metrics",
      async () => {
        const t = await scrape();
        return samplesOf(t, "promstatus_targets", { scrape_pool: "dead" }).length === 0 ? t : undefined;
      },
      10_000,
    );
    expect(samplesOf(text, "promstatus_target_up", { job: "dead" })).toEqual([]);
    expect(samplesOf(text, "promstatus_target_up", { job: "prometheus" })).toHaveLength(1);
  });
});
