import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { startExporter } from "../harness/exporter.js";
import { freePort, type Managed, startProcess, tempDir, waitFor, waitForHttp } from "../harness/processes.js";
import { type RealPrometheus, startPrometheus } from "../harness/prometheus.js";
import { type BackendAnswer, startBackendFake } from "../helpers/backend-fake.js";
import { samplesOf } from "../helpers/exposition.js";
import { type FakeUpstream, startFakeUpstream } from "../helpers/fake-upstream.js";
import { fixtureText } from "../helpers/fixtures.js";
import { promtoolCheckMetrics } from "../helpers/promtool.js";

// Issue 23, "no alert fires on any of the cases above when the fleet is healthy": one exporter watching
// a healthy fleet of the other backends, and a real Prometheus evaluating the shipped rules on what it
// serves. Healthy includes what a fleet looks like while it starts: targets not scraped yet.
// - VictoriaMetrics 1.79.5 (Debian's, real): an up target and one never scraped yet (down, empty error,
//   lastScrape 1970 in its own answer);
// - vmagent 1.79.5 (real): the same; it refuses tsdb and buildinfo (HTTP 400);
// - Thanos Query v0.42.4 (fake from its code, test/fixtures/backends/thanos-0.42/): every store answers;
// - three Mimir 3.1 Alertmanagers of one tenant in a group (fake from its code, ../mimir-3.1/): ready,
//   no gossip name, no peers; the tenant's X-Scope-OrgID configured;
// - two more real VictoriaMetrics in a replica group, scraping the same targets.

const VM_BIN = process.env.VICTORIA_METRICS_BIN ?? "/usr/bin/victoria-metrics";
const VMAGENT_BIN = process.env.VMAGENT_BIN ?? "/usr/bin/vmagent";
const rulesFile = fileURLToPath(
  new URL("../../helm/prometheus-status-exporter/files/prometheus-status-exporter.rules.yml", import.meta.url),
);
const RULE_COUNT = (parse(readFileSync(rulesFile, "utf8")) as { groups: { rules: unknown[] }[] }).groups.flatMap(
  (g) => g.rules,
).length;

// VictoriaMetrics scrapes a target first at a fixed phase of its interval on the wall clock
// (lib/promscrape/scrapework.go: a hash of the target against the time modulo the interval): with a
// year's interval the chance that a test of a minute sees that moment is about 2 in a million. The
// targets are closed ports, so a scrape would show as an error (checked at the end).
const NEVER = "8760h";
const scrapeConfig = (
  upJob: string,
  upTarget: string,
  slowTarget: string,
) => `global: {scrape_interval: 1s, scrape_timeout: 500ms}
scrape_configs:
  - job_name: ${upJob}
    static_configs: [{targets: ['${upTarget}']}]
  - job_name: slow
    scrape_interval: ${NEVER}
    static_configs: [{targets: ['${slowTarget}']}]
`;

/** Every endpoint each source polls, and whether its server has it (promstatus_endpoint_supported). */
const GROUPED_VM = {
  tsdb: 1,
  targets: 1,
  config: 1, // VictoriaMetrics answers its -promscrape.config as {yaml: …}
  rules: 1, // a stub: {groups: []}
  flags: 0, // HTTP 400 unsupported path requested
  runtimeinfo: 0,
  buildinfo: 1, // data: {} (1.79)
  walreplay: 0,
  features: 0,
};
const EXPECTED_ENDPOINTS: Record<string, Record<string, number>> = {
  vm: { tsdb: 1, targets: 1, runtimeinfo: 0, buildinfo: 1, walreplay: 0 },
  agent: { tsdb: 0, targets: 1, runtimeinfo: 0, buildinfo: 0, walreplay: 0 },
  // Thanos's runtimeinfo is its own (no reload status, no serverTime); walreplay is a 404.
  thanos: { tsdb: 1, targets: 1, runtimeinfo: 1, buildinfo: 1, walreplay: 0 },
  "mimir-0": { status: 1 },
  "mimir-1": { status: 1 },
  "mimir-2": { status: 1 },
  "vm-a": GROUPED_VM,
  "vm-b": GROUPED_VM,
};
const EXPECTED_FLAVORS: Record<string, string> = {
  vm: "victoriametrics",
  agent: "vmagent",
  thanos: "thanos",
  "mimir-0": "mimir",
  "mimir-1": "mimir",
  "mimir-2": "mimir",
  "vm-a": "victoriametrics",
  "vm-b": "victoriametrics",
};
const POLLED = Object.entries(EXPECTED_ENDPOINTS).flatMap(([source, e]) =>
  Object.keys(e).map((endpoint) => ({ source, endpoint })),
);

const THANOS = "backends/thanos-0.42";
/** Thanos Query v0.42.4 with every store answering (test/fixtures/backends/thanos-0.42/README.md). */
const THANOS_HEALTHY: Record<string, BackendAnswer> = {
  "/api/v1/status/buildinfo": { body: `${THANOS}/query-buildinfo.json` },
  "/api/v1/status/runtimeinfo": { body: `${THANOS}/query-runtimeinfo.json` },
  "/api/v1/status/tsdb": { body: `${THANOS}/query-tsdb.json` },
  "/api/v1/targets": { body: `${THANOS}/query-targets-healthy.json` },
};

const TENANT = "team-a";
/**
 * One tenant's Alertmanager of Mimir 3.1 under /alertmanager: the status with X-Scope-OrgID, else
 * dskit's 401 `no org id` (test/fixtures/backends/mimir-3.1/README.md).
 */
const startMimirFake = () =>
  startFakeUpstream((req, res) => {
    if (new URL(req.url ?? "/", "http://x").pathname !== "/alertmanager/api/v2/status") {
      res.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end("404 page not found\n");
    } else if (req.headers["x-scope-orgid"] !== TENANT) {
      res
        .writeHead(401, { "content-type": "text/plain; charset=utf-8" })
        .end(fixtureText("backends/mimir-3.1/alertmanager-status-no-tenant.txt"));
    } else {
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(fixtureText("backends/mimir-3.1/alertmanager-status.json"));
    }
  });

const dir = tempDir("promstatus-no-false-alerts");
const subdir = (name: string) => {
  const path = join(dir.path, name);
  mkdirSync(path);
  return path;
};
const processes: Managed[] = [];
const fakes: FakeUpstream[] = [];
let mimir: FakeUpstream[] = [];
const urls = { vm: "", agent: "", vmA: "", vmB: "" };
let ruler: RealPrometheus | undefined;
let stopExporter: (() => Promise<void>) | undefined;
let base = "";

/** A real VictoriaMetrics (or vmagent, writing to the first VictoriaMetrics) on 127.0.0.1, in its own directory. */
function startVm(bin: string, name: string, port: number, config: string): Managed {
  const path = subdir(name);
  writeFileSync(join(path, "scrape.yml"), config);
  const storage =
    bin === VMAGENT_BIN
      ? [`-remoteWrite.url=${urls.vm}/api/v1/write`, `-remoteWrite.tmpDataPath=${join(path, "queue")}`]
      : [`-storageDataPath=${join(path, "data")}`];
  const managed = startProcess(
    bin,
    [`-httpListenAddr=127.0.0.1:${port}`, `-promscrape.config=${join(path, "scrape.yml")}`, ...storage],
    join(path, "log"),
    { ...process.env, TZ: "UTC" },
  );
  processes.push(managed);
  return managed;
}

beforeAll(async () => {
  const [vmPort, agentPort, vmAPort, vmBPort] = [
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
  ];
  urls.vm = `http://127.0.0.1:${vmPort}`;
  urls.agent = `http://127.0.0.1:${agentPort}`;
  urls.vmA = `http://127.0.0.1:${vmAPort}`;
  urls.vmB = `http://127.0.0.1:${vmBPort}`;
  const [unscrapedVm, unscrapedAgent, unscrapedPair] = [await freePort(), await freePort(), await freePort()];
  // The pair's configs are the same text (an HA pair: the same targets), so their config and targets agree.
  const pairConfig = scrapeConfig("vm", `127.0.0.1:${vmPort}`, `127.0.0.1:${unscrapedPair}`);
  const servers: [string, Managed][] = [
    [urls.vm, startVm(VM_BIN, "vm", vmPort, scrapeConfig("self", `127.0.0.1:${vmPort}`, `127.0.0.1:${unscrapedVm}`))],
    [
      urls.agent,
      startVm(
        VMAGENT_BIN,
        "agent",
        agentPort,
        scrapeConfig("self", `127.0.0.1:${agentPort}`, `127.0.0.1:${unscrapedAgent}`),
      ),
    ],
    [urls.vmA, startVm(VM_BIN, "vm-a", vmAPort, pairConfig)],
    [urls.vmB, startVm(VM_BIN, "vm-b", vmBPort, pairConfig)],
  ];
  const [thanos, ...mimirs] = await Promise.all([
    startBackendFake(THANOS_HEALTHY),
    startMimirFake(),
    startMimirFake(),
    startMimirFake(),
    ...servers.map(([url, managed]) => waitForHttp(`${url}/health`, managed)),
  ]);
  mimir = mimirs.slice(0, 3) as FakeUpstream[];
  fakes.push(thanos as FakeUpstream, ...mimir);
  const source = (name: string, kind: string, url: string, extra = "") =>
    `  - {name: ${name}, kind: ${kind}, url: "${url}"${extra}}`;
  const config = [
    // A poll's timeout covers its decode, and so the start of a decoder thread on the first one: on a
    // CI machine busy with other test files that took over 1.5 s (the timeout's 2 s failed a poll of
    // every grouped source at start, a slow machine rather than an answer misread).
    "global: {interval: 1s, timeout: 5s}",
    "sources:",
    source("vm", "prometheus", urls.vm),
    source("agent", "prometheus", urls.agent),
    source("thanos", "prometheus", (thanos as FakeUpstream).url),
    ...mimir.map((m, i) =>
      source(
        `mimir-${i}`,
        "alertmanager",
        `${m.url}/alertmanager`,
        `, group: mimir-am, headers: {X-Scope-OrgID: ${TENANT}}`,
      ),
    ),
    source("vm-a", "prometheus", urls.vmA, ", group: vm-pair"),
    source("vm-b", "prometheus", urls.vmB, ", group: vm-pair"),
    "",
  ].join("\n");
  const started = await startExporter(dir.path, config);
  stopExporter = () => started.exporter.stop();
  base = started.base;
  ruler = await startPrometheus(subdir("ruler"), [{ job_name: "promstatus", targets: [started.address] }], {
    ruleFiles: [rulesFile],
    selfScrape: false,
  });
}, 45_000);

afterAll(async () => {
  await stopExporter?.();
  await Promise.all([...processes.map((p) => p.stop()), ruler?.stop(), ...fakes.map((f) => f.close())]);
  dir.remove();
}, 30_000);

const scrape = async () => (await fetch(`${base}/metrics`)).text();
const endpointKey = (s: { labels: Record<string, string> }) => `${s.labels.source} ${s.labels.endpoint}`;

/** The exposition once every source's flavor is known and every endpoint polled has answered once. */
const settled = () =>
  waitFor(
    "every source polled and told",
    async () => {
      const text = await scrape();
      const up = new Set(samplesOf(text, "promstatus_up").map(endpointKey));
      const unpolled = POLLED.filter((p) => !up.has(`${p.source} ${p.endpoint}`)).map(
        (p) => `${p.source} ${p.endpoint}`,
      );
      const unknown = samplesOf(text, "promstatus_source_info")
        .filter((s) => s.labels.flavor === "unknown")
        .map((s) => s.labels.source);
      // Thrown: waitFor's timeout says what is still missing.
      if (unpolled.length || unknown.length) throw new Error(`not polled: ${unpolled}; flavor unknown: ${unknown}`);
      return text;
    },
    15_000,
    250,
  );

describe("a healthy fleet of VictoriaMetrics, vmagent, Thanos Query and Mimir Alertmanagers", () => {
  it("serves up 1 for every endpoint polled, supported 0 for those the server lacks, each flavor, and promtool accepts it", async () => {
    const text = await settled();
    const flavors = Object.fromEntries(
      samplesOf(text, "promstatus_source_info").map((s) => [s.labels.source, s.labels.flavor]),
    );
    expect(flavors).toEqual(EXPECTED_FLAVORS);
    const up = samplesOf(text, "promstatus_up").map((s) => [endpointKey(s), s.value]);
    expect(Object.fromEntries(up)).toEqual(Object.fromEntries(POLLED.map((p) => [`${p.source} ${p.endpoint}`, 1])));
    const supported = Object.fromEntries(
      samplesOf(text, "promstatus_endpoint_supported").map((s) => [endpointKey(s), s.value]),
    );
    expect(supported).toEqual(
      Object.fromEntries(
        Object.entries(EXPECTED_ENDPOINTS).flatMap(([source, e]) =>
          Object.entries(e).map(([endpoint, v]) => [`${source} ${endpoint}`, v]),
        ),
      ),
    );
    expect(samplesOf(text, "promstatus_poll_failures_total").filter((s) => s.value > 0)).toEqual([]);
    const check = promtoolCheckMetrics(text);
    expect(check.output).toBe("");
    expect(check.status).toBe(0);
  });

  it("raises no alert, pending or firing, over several polls and rule evaluations", async () => {
    const text = await settled();
    const series = samplesOf(text, "promstatus_up").length;
    // A few more polls of every endpoint (each polled every second); one that fails is left to the
    // alerts below to show.
    const since = Date.now() / 1000;
    await waitFor(
      "every endpoint polled twice more",
      async () => {
        const t = await scrape();
        const fresh = new Set(
          samplesOf(t, "promstatus_last_success_timestamp_seconds")
            .filter((s) => s.value >= since + 2)
            .map(endpointKey),
        );
        const up = samplesOf(t, "promstatus_up").filter((s) => s.value === 1);
        return up.every((s) => fresh.has(endpointKey(s))) ? t : undefined;
      },
      15_000,
      250,
    );
    // The ruler has all of it, then evaluates the rules a few rounds more.
    const query = async (q: string) => {
      const res = (await (await fetch(`${ruler?.url}/api/v1/query?query=${encodeURIComponent(q)}`)).json()) as {
        data: { result: { metric: Record<string, string>; value: [number, string] }[] };
      };
      return res.data.result;
    };
    await waitFor(
      "the ruler scraping every endpoint's series",
      async () => ((await query("count(promstatus_up)"))[0]?.value[1] === String(series) ? true : undefined),
      15_000,
      250,
    );
    type RuleGroup = { lastEvaluation: string; rules: { name: string; health: string; lastError?: string }[] };
    const rules = async () =>
      ((await (await fetch(`${ruler?.url}/api/v1/rules`)).json()) as { data: { groups: RuleGroup[] } }).data.groups;
    const scraped = Date.now();
    const groups = await waitFor(
      "three rounds of rule evaluation",
      async () => {
        const g = await rules();
        return g.length > 0 && g.every((x) => Date.parse(x.lastEvaluation) >= scraped + 3000) ? g : undefined;
      },
      15_000,
      250,
    );
    // Every shipped rule loaded and evaluated without error: a rule that fails to evaluate raises nothing.
    const evaluated = groups.flatMap((g) => g.rules);
    expect(evaluated).toHaveLength(RULE_COUNT);
    expect(
      evaluated.filter((r) => r.health !== "ok").map((r) => `${r.name}: ${r.health} ${r.lastError ?? ""}`),
    ).toEqual([]);

    // The never-scraped targets were never scraped during all of it (their own answers: down, no
    // error, 1970), and the others up: so this was the case of issue 23, throughout.
    type Target = { scrapePool: string; health: string; lastError: string; lastScrape: string };
    const scraped20xx = ["up", "", expect.stringMatching(/^20\d\d$/)];
    const never = ["slow", "down", "", "1970"];
    const expectedTargets: [string, unknown[][]][] = [
      [urls.vm, [["self", ...scraped20xx], never]],
      [urls.agent, [["self", ...scraped20xx], never]],
      [urls.vmA, [never, ["vm", ...scraped20xx]]],
      [urls.vmB, [never, ["vm", ...scraped20xx]]],
    ];
    for (const [url, expected] of expectedTargets) {
      const answer = (await (await fetch(`${url}/api/v1/targets`)).json()) as { data: { activeTargets: Target[] } };
      const seen = answer.data.activeTargets.map((t) => [
        t.scrapePool,
        t.health,
        t.lastError,
        t.lastScrape.slice(0, 4),
      ]);
      expect(seen.sort(), url).toEqual(expected);
    }

    // Any alert active at any evaluation since the ruler started (ALERTS is written for pending ones
    // too), and those active now.
    const active = (await query("max_over_time(ALERTS[10m])")).map(
      (r) =>
        `${r.metric.alertname}{${Object.entries(r.metric)
          .filter(([k]) => k !== "alertname" && k !== "__name__")
          .map(([k, v]) => `${k}="${v}"`)
          .join(",")}}`,
    );
    const now = (
      (await (await fetch(`${ruler?.url}/api/v1/alerts`)).json()) as {
        data: { alerts: { labels: Record<string, string>; state: string; value: string }[] };
      }
    ).data.alerts.map((a) => `${a.state} ${JSON.stringify(a.labels)} value ${a.value}`);
    expect(active, `alerts raised on a healthy fleet:\n${active.join("\n")}`).toEqual([]);
    expect(now, `alerts pending or firing now:\n${now.join("\n")}`).toEqual([]);
  });

  it("sends Mimir's tenant header with every request, and compares no versions or peers where they mean nothing", async () => {
    const text = await settled();
    for (const m of mimir) {
      expect(m.requests.length).toBeGreaterThan(0);
      expect(m.requests.filter((r) => r.headers["x-scope-orgid"] !== TENANT)).toEqual([]);
    }
    const group = (name: string) => samplesOf(text, "promstatus_group_sources", { group: name }).map((s) => s.value)[0];
    expect(group("mimir-am")).toBe(3);
    expect(group("vm-pair")).toBe(2);
    expect(samplesOf(text, "promstatus_group_prometheus_versions", { group: "vm-pair" })).toEqual([]);
    for (const name of [
      "promstatus_group_alertmanager_cluster_views",
      "promstatus_group_alertmanager_missing_peers",
      "promstatus_group_alertmanager_versions",
    ])
      expect(samplesOf(text, name, { group: "mimir-am" }), name).toEqual([]);
    // Thanos: every store answered, so no warnings.
    expect(samplesOf(text, "promstatus_answer_warnings", { source: "thanos", endpoint: "targets" })[0]?.value).toBe(0);
  });
});
