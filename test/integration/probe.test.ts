import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Exporter } from "../../src/exporter.js";
import { probeTimeoutMs } from "../../src/probe/probe.js";
import { type RealAlertmanagerCluster, startAlertmanagerCluster } from "../harness/alertmanager.js";
import { startExporter } from "../harness/exporter.js";
import { tempDir, waitFor } from "../harness/processes.js";
import { type RealPrometheus, startPrometheus } from "../harness/prometheus.js";
import { samplesOf, valueIn } from "../helpers/exposition.js";
import { fixtureText } from "../helpers/fixtures.js";
import { promtoolCheckMetrics } from "../helpers/promtool.js";

// /probe (multi-target mode) against a real Prometheus and a real two-node Alertmanager cluster; a
// local server that never answers plays the hanging upstream (a real one cannot be made to hang).

const dir = tempDir("promstatus-probe");
let prometheus: RealPrometheus;
let cluster: RealAlertmanagerCluster;
let hanging: Server;
let hangingUrl: string;
let exporter: Exporter;
let base: string;

beforeAll(async () => {
  [prometheus, cluster] = await Promise.all([
    startPrometheus(join(dir.path), []),
    startAlertmanagerCluster(dir.path, 2),
  ]);
  hanging = createServer(() => {});
  await new Promise<void>((resolve) => hanging.listen(0, "127.0.0.1", resolve));
  hangingUrl = `http://127.0.0.1:${(hanging.address() as AddressInfo).port}`;
  ({ exporter, base } = await startExporter(
    dir.path,
    `modules:
  slow: {kind: prometheus, timeout: 20s}
  local-only: {kind: alertmanager, allowed_targets: ["http://127\\\\.0\\\\.0\\\\.1:[0-9]+"]}
sources:
  - {name: unused, kind: alertmanager, url: "http://127.0.0.1:1", schedule: "0 0 1 1 *"}
`,
  ));
}, 60_000);

afterAll(async () => {
  await exporter?.stop();
  await Promise.all([prometheus?.stop(), cluster?.stop()]);
  hanging?.closeAllConnections();
  hanging?.close();
  dir.remove();
}, 30_000);

const probe = (params: Record<string, string>, headers: Record<string, string> = {}) =>
  fetch(`${base}/probe?${new URLSearchParams(params)}`, { headers });

describe("/probe", () => {
  it("polls a real Prometheus now and answers with its families, source set to the target", async () => {
    // Right after its start a Prometheus may not have discovered its own target yet.
    const text = await waitFor("the self-scrape target listed", async () => {
      const res = await probe({ target: prometheus.url, module: "prometheus" });
      expect(res.status).toBe(200);
      const body = await res.text();
      return samplesOf(body, "promstatus_target_up", { job: "prometheus" }).length > 0 ? body : undefined;
    });
    expect(valueIn(text, "promstatus_up", { source: prometheus.url, endpoint: "tsdb" })).toBe(1);
    expect(valueIn(text, "promstatus_up", { source: prometheus.url, endpoint: "targets" })).toBe(1);
    expect(samplesOf(text, "promstatus_target_up", { source: prometheus.url, job: "prometheus" })).toHaveLength(1);
    expect(samplesOf(text, "promstatus_tsdb_head_series", { source: prometheus.url })).toHaveLength(1);
    expect(promtoolCheckMetrics(text).status).toBe(0);
  });

  it("polls each member of a real Alertmanager cluster with the built-in alertmanager module", async () => {
    for (const member of cluster.members) {
      const text = await (await probe({ target: member.url, module: "alertmanager" })).text();
      expect(valueIn(text, "promstatus_up", { source: member.url, endpoint: "status" })).toBe(1);
      expect(
        samplesOf(text, "promstatus_alertmanager_cluster_peers", { source: member.url })[0]?.value,
      ).toBeGreaterThan(0);
    }
  });

  it("answers 400 for a missing or invalid target, an unknown module and a target the module does not allow", async () => {
    const cases: [Record<string, string>, RegExp][] = [
      [{ module: "prometheus" }, /target parameter is missing/],
      [{ target: prometheus.url }, /module parameter is missing/],
      [{ target: prometheus.url, module: "nope" }, /unknown module "nope"/],
      [{ target: "not a url", module: "prometheus" }, /target is not a URL/],
      [{ target: "file:///etc/passwd", module: "prometheus" }, /http or https/],
      [{ target: `${prometheus.url}/?x=1`, module: "prometheus" }, /without query/],
      [{ target: "http://169.254.169.254", module: "local-only" }, /not in allowed_targets of module "local-only"/],
    ];
    for (const [params, message] of cases) {
      const res = await probe(params);
      expect(res.status, JSON.stringify(params)).toBe(400);
      expect(await res.text()).toMatch(message);
    }
    expect((await probe({ target: cluster.members[0]?.url as string, module: "local-only" })).status).toBe(200);
  });

  it("never shows a password given in the target", async () => {
    const target = prometheus.url.replace("http://", "http://monitor:s3cr3t-probe@");
    const text = await (await probe({ target, module: "prometheus" })).text();
    expect(text).not.toContain("s3cr3t-probe");
    expect(samplesOf(text, "promstatus_up", { endpoint: "tsdb" })[0]?.labels.source).toBe(
      prometheus.url.replace("http://", "http://monitor:xxxxx@"),
    );
    const refused = await (await probe({ target: `${target}/?q`, module: "prometheus" })).text();
    expect(refused).not.toContain("s3cr3t-probe");
  });

  it("gives up before Prometheus does: the scrape timeout header minus the offset bounds the poll", async () => {
    const started = performance.now();
    const res = await probe({ target: hangingUrl, module: "slow" }, { "X-Prometheus-Scrape-Timeout-Seconds": "1.5" });
    const seconds = (performance.now() - started) / 1000;
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(valueIn(text, "promstatus_up", { source: hangingUrl, endpoint: "tsdb" })).toBe(0);
    expect(
      valueIn(text, "promstatus_poll_failures_total", { source: hangingUrl, endpoint: "tsdb", reason: "timeout" }),
    ).toBe(1);
    expect(seconds).toBeLessThan(5); // the module alone would wait 20 s
  });
});

describe("/probe coalescing", () => {
  it("lets identical probes in flight share one upstream request", async () => {
    // A slow upstream (a real one cannot be slowed on demand) answering with a recorded Alertmanager status.
    const status = fixtureText("upstream/alertmanager-status-clustered.json");
    let requests = 0;
    const slow = createServer((_req, res) => {
      requests++;
      setTimeout(() => res.writeHead(200, { "content-type": "application/json" }).end(status), 500);
    });
    await new Promise<void>((resolve) => slow.listen(0, "127.0.0.1", resolve));
    const target = `http://127.0.0.1:${(slow.address() as AddressInfo).port}`;
    try {
      const answers = await Promise.all([1, 2, 3].map(() => probe({ target, module: "alertmanager" })));
      const texts = await Promise.all(answers.map((a) => a.text()));
      expect(requests).toBe(1);
      for (const text of texts) expect(valueIn(text, "promstatus_up", { source: target, endpoint: "status" })).toBe(1);
      await probe({ target, module: "alertmanager" }); // after it finished: a probe of its own
      expect(requests).toBe(2);
    } finally {
      slow.closeAllConnections();
      slow.close();
    }
  });
});

describe("probeTimeoutMs", () => {
  it("takes the module's timeout, or the scrape timeout minus the offset when that is smaller", () => {
    expect(probeTimeoutMs(10_000, undefined, 500)).toBe(10_000);
    expect(probeTimeoutMs(10_000, "3", 500)).toBe(2500);
    expect(probeTimeoutMs(1000, "30", 500)).toBe(1000);
    expect(probeTimeoutMs(10_000, "garbage", 500)).toBe(10_000);
    expect(probeTimeoutMs(10_000, "0.2", 500)).toBe(1); // never zero or negative
  });
});
