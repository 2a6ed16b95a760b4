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
  spared: {kind: alertmanager, min_interval: 3s}
  zipped: {kind: prometheus, compression: gzip}
  unzipped: {kind: prometheus, compression: none}
  with-auth:
    kind: prometheus
    basic_auth: {username: monitor, password: pw-never-shown}
    allowed_targets: ["http://127\\\\.0\\\\.0\\\\.1:[0-9]+"]
  status-only: {kind: prometheus, tsdb: {enabled: false}, targets: {enabled: false}, buildinfo: {enabled: true}, walreplay: {enabled: true}}
  am-group: {kind: alertmanager, group: probed-ams, allowed_targets: ["http://127\\\\.0\\\\.0\\\\.1:[0-9]+"]}
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

  it("compares the members a grouped module probed on /metrics, as a scheduled group's", async () => {
    const metrics = async () => (await fetch(`${base}/metrics`)).text();
    const group = { group: "probed-ams" };
    expect(samplesOf(await metrics(), "promstatus_group_sources", group)).toEqual([]);
    const [first, second] = cluster.members.map((m) => m.url) as [string, string];
    expect((await probe({ target: first, module: "am-group" })).status).toBe(200);
    let text = await metrics();
    expect(valueIn(text, "promstatus_group_sources", group)).toBe(1);
    expect((await probe({ target: second, module: "am-group" })).status).toBe(200);
    // Compared again at most once a second (prober.ts REGROUP_EVERY_MS).
    text = await waitFor("the second member compared", async () => {
      const t = await metrics();
      return valueIn(t, "promstatus_group_sources", group) === 2 ? t : undefined;
    });
    expect(valueIn(text, "promstatus_group_sources_up", group)).toBe(2);
    // The two members gossip with each other: one view of the cluster, one config, nobody missing.
    expect(valueIn(text, "promstatus_group_alertmanager_cluster_views", group)).toBe(1);
    expect(valueIn(text, "promstatus_group_alertmanager_config_versions", group)).toBe(1);
    for (const source of [first, second])
      expect(valueIn(text, "promstatus_group_alertmanager_missing_peers", { ...group, source })).toBe(0);
    expect(promtoolCheckMetrics(text).status).toBe(0);
  });

  it("fails a module's status endpoints where every one answers 404 (an Alertmanager), not where one answers", async () => {
    const am = cluster.members[0]?.url as string;
    const down = await (await probe({ target: am, module: "status-only" })).text();
    for (const endpoint of ["buildinfo", "walreplay"])
      expect(valueIn(down, "promstatus_up", { source: am, endpoint })).toBe(0);
    const up = await (await probe({ target: prometheus.url, module: "status-only" })).text();
    for (const endpoint of ["buildinfo", "walreplay"])
      expect(valueIn(up, "promstatus_up", { source: prometheus.url, endpoint })).toBe(1);
  });

  it("answers 400 for a missing or invalid target, an unknown module and a target the module does not allow", async () => {
    const cases: [Record<string, string>, RegExp][] = [
      [{ module: "prometheus" }, /target parameter is missing/],
      [{ target: prometheus.url }, /^module parameter is missing; known modules: .*\bprometheus\b/],
      [
        { target: prometheus.url, module: "nope" },
        /^unknown module "nope"; known modules: slow, local-only, spared, zipped, unzipped, with-auth, status-only, am-group, prometheus, alertmanager$/m,
      ],
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

  it("takes a target without a scheme as http://, as blackbox_exporter does", async () => {
    const text = await (await probe({ target: prometheus.address, module: "prometheus" })).text();
    expect(valueIn(text, "promstatus_up", { source: prometheus.url, endpoint: "tsdb" })).toBe(1);
    expect(valueIn(text, "promstatus_up", { source: prometheus.url, endpoint: "targets" })).toBe(1);
  });

  it("refuses a target holding a user or password, and never shows the password", async () => {
    const target = prometheus.url.replace("http://", "http://monitor:s3cr3t-probe@");
    const res = await probe({ target, module: "prometheus" });
    expect(res.status).toBe(400);
    const text = await res.text();
    expect(text).toContain(
      `target must not hold a user or password: "${prometheus.url.replace("http://", "http://monitor:xxxxx@")}"`,
    );
    expect(text).not.toContain("s3cr3t-probe");
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
    const slow = await countingAlertmanager(500);
    const target = slow.url;
    try {
      const answers = await Promise.all([1, 2, 3].map(() => probe({ target, module: "alertmanager" })));
      const texts = await Promise.all(answers.map((a) => a.text()));
      expect(slow.requests).toBe(1);
      for (const text of texts) expect(valueIn(text, "promstatus_up", { source: target, endpoint: "status" })).toBe(1);
      await probe({ target, module: "alertmanager" }); // after it finished: a probe of its own
      expect(slow.requests).toBe(2);
    } finally {
      slow.close();
    }
  });
});

/** A local upstream answering a recorded Alertmanager status after `delayMs`, counting requests. */
async function countingAlertmanager(delayMs: number) {
  const status = fixtureText("upstream/alertmanager-status-clustered.json");
  const counter = { requests: 0, url: "", close: () => {} };
  const server = createServer((_req, res) => {
    counter.requests++;
    setTimeout(() => res.writeHead(200, { "content-type": "application/json" }).end(status), delayMs);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  counter.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  counter.close = () => {
    server.closeAllConnections();
    server.close();
  };
  return counter;
}

describe("/probe min_interval", () => {
  it("serves probes within the module's min_interval from the last result, then polls again", async () => {
    // A counting upstream (a real Alertmanager does not count requests).
    const upstream = await countingAlertmanager(0);
    const other = await countingAlertmanager(0);
    try {
      const first = await (await probe({ target: upstream.url, module: "spared" })).text();
      const again = await Promise.all(
        [1, 2, 3].map(async () => (await probe({ target: upstream.url, module: "spared" })).text()),
      );
      expect(upstream.requests).toBe(1);
      for (const text of again) {
        expect(valueIn(text, "promstatus_up", { source: upstream.url, endpoint: "status" })).toBe(1);
        expect(text).toBe(first);
      }
      const account = await (await probe({ target: upstream.url, module: "spared", debug: "true" })).text();
      expect(account).toMatch(/Served a result \d+\.\d+s old \(module min_interval 3s\)/);
      // Another target of the same module has its own interval; the built-in module has none.
      await probe({ target: other.url, module: "spared" });
      expect(other.requests).toBe(1);
      await probe({ target: upstream.url, module: "alertmanager" });
      expect(upstream.requests).toBe(2);
      await new Promise((resolve) => setTimeout(resolve, 3100));
      await probe({ target: upstream.url, module: "spared" });
      expect(upstream.requests).toBe(3);
    } finally {
      upstream.close();
      other.close();
    }
  });
});

describe("compression", () => {
  it("asks a real Prometheus on loopback for plain answers unless the module says gzip", async () => {
    const encodings = async (module: string) => {
      const text = await (await probe({ target: prometheus.url, module, debug: "true" })).text();
      return [...text.matchAll(/result: success, HTTP 200, \d+ bytes( \(gzip\))?/g)].map((m) => m[1] ?? "plain");
    };
    expect(await encodings("prometheus")).toEqual(["plain", "plain"]); // auto, on loopback
    expect(await encodings("unzipped")).toEqual(["plain", "plain"]);
    expect(await encodings("zipped")).toEqual([" (gzip)", " (gzip)"]);
  });
});

describe("/probe debug account", () => {
  it("tells what was requested and answered, then the metrics", async () => {
    const res = await probe({ target: prometheus.url, module: "prometheus", debug: "true" });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/plain");
    const text = await res.text();
    const redacted = prometheus.url;
    expect(text).toContain(`Probe of ${redacted} with module "prometheus"`);
    expect(text).toContain(`request: GET ${redacted}/api/v1/status/tsdb`);
    expect(text).toContain(`request: GET ${redacted}/api/v1/targets`);
    expect(text).toMatch(/Endpoint tsdb\n.*\n {2}result: success, HTTP 200, \d+ bytes.*, \d+ series, \d+\.\d{3}s/);
    expect(text).toContain("budget 10.000s (the module's timeout)");
    const metrics = text.split("Metrics that would have been returned:\n")[1] as string;
    expect(valueIn(metrics, "promstatus_up", { source: redacted, endpoint: "tsdb" })).toBe(1);
  });

  it("gives a failure's reason and error, the budget's origin, and never a module's credentials", async () => {
    const text = await (
      await probe(
        { target: hangingUrl, module: "with-auth", debug: "true" },
        { "X-Prometheus-Scrape-Timeout-Seconds": "1" },
      )
    ).text();
    expect(text).toContain("budget 0.500s (X-Prometheus-Scrape-Timeout-Seconds 1 minus --probe.timeout-offset 0.5s)");
    expect(text).toMatch(/Endpoint tsdb\n.*\n {2}result: failure, reason timeout/);
    expect(text).toContain("credentials: basic_auth");
    expect(text).not.toContain("pw-never-shown");
  });

  it("keeps the last probes for the status page, each with its account at /logs", async () => {
    await probe({ target: "http://169.254.169.254", module: "local-only" });
    await probe({ target: cluster.members[0]?.url as string, module: "alertmanager" });
    const html = await (await fetch(`${base}/`)).text();
    const rows = [
      ...html.matchAll(
        /<tr class="(ok|failing)"><td>[^<]+<\/td><td>([^<]+)<\/td><td>([^<]+)<\/td><td class="result">([^<]+)<\/td>.*?href="logs\?id=(\d+)"/g,
      ),
    ];
    expect(rows[0]?.slice(1, 5)).toEqual(["ok", "alertmanager", cluster.members[0]?.url, "success"]);
    expect(rows[1]?.slice(1, 5)).toEqual(["failing", "local-only", "http://169.254.169.254", "refused"]);
    const account = await (await fetch(`${base}/logs?id=${rows[0]?.[5]}`)).text();
    expect(account).toContain(`Probe of ${cluster.members[0]?.url} with module "alertmanager"`);
    expect(account).toContain("Endpoint status");
    expect(await (await fetch(`${base}/logs?id=${rows[1]?.[5]}`)).text()).toMatch(
      /Probe refused: .*not in allowed_targets/,
    );
    expect((await fetch(`${base}/logs?id=999999`)).status).toBe(404);
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
