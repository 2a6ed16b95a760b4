import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SOURCE_FAMILIES } from "../../src/catalogue/families.js";
import { parseConfig } from "../../src/config/load.js";
import type { Endpoint, SourceConfig } from "../../src/config/types.js";
import { familyHeader } from "../../src/exposition/text-format.js";
import { plainText } from "../../src/exposition/unpack.js";
import { type PollOutcome, pollEndpoint } from "../../src/poll/poll-endpoint.js";
import { freePort, type Managed, startProcess, tempDir, waitFor, waitForHttp } from "../harness/processes.js";
import { samplesOf, valueIn } from "../helpers/exposition.js";
import { promtoolCheckMetrics } from "../helpers/promtool.js";

// Debian's real VictoriaMetrics single node and vmagent (1.79.5; scripts/ensure-upstreams.sh installs
// them) on 127.0.0.1, polled by the exporter as configured sources: a target never scraped yet is
// unknown, dropped targets are not published, tsdb is asked with topN and its one-day figures served,
// and vmagent's missing tsdb is an answer. Set up as scripts/capture-backend-fixtures.sh does.

const VM_BIN = process.env.VICTORIA_METRICS_BIN ?? "/usr/bin/victoria-metrics";
const VMAGENT_BIN = process.env.VMAGENT_BIN ?? "/usr/bin/vmagent";

let dir: ReturnType<typeof tempDir>;
const processes: Managed[] = [];
let vmUrl = "";
let agentUrl = "";

/** Scrapes itself (up), a closed port (down) and, every hour, two never scraped yet; one target dropped. */
const scrapeConfig = (ownPort: number) => `global: {scrape_interval: 1s, scrape_timeout: 500ms}
scrape_configs:
  - job_name: self
    static_configs: [{targets: ['127.0.0.1:${ownPort}']}]
  - job_name: dead
    static_configs: [{targets: ['127.0.0.1:1']}]
  - job_name: slow
    scrape_interval: 1h
    static_configs: [{targets: ['127.0.0.1:2', '127.0.0.1:3']}]
  - job_name: relabelled
    static_configs: [{targets: ['127.0.0.1:5', '127.0.0.1:6']}]
    relabel_configs: [{source_labels: [__address__], regex: '.*:6', action: drop}]
`;

beforeAll(async () => {
  dir = tempDir("promstatus-backends");
  const [vmPort, agentPort] = [await freePort(), await freePort()];
  writeFileSync(join(dir.path, "vm.yml"), scrapeConfig(vmPort));
  writeFileSync(join(dir.path, "agent.yml"), scrapeConfig(agentPort));
  // Berlin: VictoriaMetrics writes lastScrape in the process's zone, so never scraped is 1970-01-01T01:00:00+01:00.
  const env = { ...process.env, TZ: "Europe/Berlin" };
  const vm = startProcess(
    VM_BIN,
    [
      `-httpListenAddr=127.0.0.1:${vmPort}`,
      `-storageDataPath=${join(dir.path, "vm-data")}`,
      `-promscrape.config=${join(dir.path, "vm.yml")}`,
    ],
    join(dir.path, "vm.log"),
    env,
  );
  processes.push(vm);
  const agent = startProcess(
    VMAGENT_BIN,
    [
      `-httpListenAddr=127.0.0.1:${agentPort}`,
      `-remoteWrite.url=http://127.0.0.1:${vmPort}/api/v1/write`,
      `-remoteWrite.tmpDataPath=${join(dir.path, "agent-q")}`,
      `-promscrape.config=${join(dir.path, "agent.yml")}`,
    ],
    join(dir.path, "agent.log"),
    env,
  );
  processes.push(agent);
  vmUrl = `http://127.0.0.1:${vmPort}`;
  agentUrl = `http://127.0.0.1:${agentPort}`;
  await Promise.all([waitForHttp(`${vmUrl}/health`, vm), waitForHttp(`${agentUrl}/health`, agent)]);
}, 60_000);

afterAll(async () => {
  await Promise.all(processes.map((p) => p.stop()));
  dir?.remove();
}, 30_000);

function source(name: string, url: string, extra: string): SourceConfig {
  const file = join(dir.path, "exporter.yml");
  const yaml = `name: ${name}\nkind: prometheus\nurl: ${url}\ntimeout: 5s\n${extra}`;
  const config = parseConfig(`sources:\n  - ${yaml.trim().replace(/\n/g, "\n    ")}\n`, file);
  return config.sources[0] as SourceConfig;
}

/** The outcome's series as /metrics serves them: each family's HELP and TYPE, then its lines. */
async function exposition(outcomes: PollOutcome[]): Promise<string> {
  let text = "";
  for (const def of SOURCE_FAMILIES) {
    const parts = outcomes.flatMap((o) => (o.ok ? o.families.filter(([n]) => n === def.name).map(([, l]) => l) : []));
    const lines = (await plainText(parts)).toString("utf8");
    if (lines) text += familyHeader(def) + lines;
  }
  return text;
}

const poll = (s: SourceConfig, endpoint: Endpoint) => pollEndpoint(s, endpoint);

describe("real VictoriaMetrics and vmagent 1.79.5", () => {
  it("VictoriaMetrics: never-scraped targets unknown with no 1970, no dropped counts, tsdb by topN with its day figures", async () => {
    const vm = source("vm", vmUrl, "flavor: victoriametrics\ntsdb: {limit: 15}");
    // Wait for the first scrapes of the 1s jobs (the 1h job's are spread over its hour).
    const targets = await waitFor("VictoriaMetrics' first scrapes", async () => {
      const o = await poll(vm, "targets");
      const text = await exposition([o]);
      return o.ok && valueIn(text, "promstatus_targets", { scrape_pool: "dead", health: "down" }) === 1 ? o : undefined;
    });
    // Its index is searchable a few seconds after the first samples came in (VictoriaMetrics flushes each second).
    const tsdb = await waitFor("VictoriaMetrics' index", async () => {
      const o = await poll(vm, "tsdb");
      return samplesOf(await exposition([o]), "promstatus_tsdb_metric_series").length > 0 ? o : undefined;
    });
    const text = await exposition([targets, tsdb]);
    expect(valueIn(text, "promstatus_targets", { scrape_pool: "slow", health: "unknown" })).toBe(2);
    expect(valueIn(text, "promstatus_targets", { scrape_pool: "slow", health: "down" })).toBe(0);
    expect(samplesOf(text, "promstatus_target_last_scrape_timestamp_seconds", { scrape_pool: "slow" })).toEqual([]);
    expect(
      valueIn(text, "promstatus_targets_down_by_reason", { scrape_pool: "dead", reason: "connection_refused" }),
    ).toBe(1);
    expect(samplesOf(text, "promstatus_targets_dropped")).toEqual([]);
    // topN=15 was read: VictoriaMetrics lists 10 without it (limit is ignored).
    expect(samplesOf(text, "promstatus_tsdb_metric_series")).toHaveLength(15);
    expect(valueIn(text, "promstatus_tsdb_day_series")).toBeGreaterThan(0);
    expect(valueIn(text, "promstatus_tsdb_day_label_pairs")).toBeGreaterThan(0);
    expect(samplesOf(text, "promstatus_tsdb_head_series")).toEqual([]);
    expect(promtoolCheckMetrics(text)).toEqual({ status: 0, output: "" });
  });

  it("vmagent: its missing tsdb is an answer (supported 0, advice to disable it), its targets as VictoriaMetrics'", async () => {
    const agent = source("agent", agentUrl, "flavor: vmagent");
    const [tsdb, targets] = [await poll(agent, "tsdb"), await poll(agent, "targets")];
    expect(tsdb.ok && tsdb.notice).toContain("Set `tsdb: {enabled: false}`");
    const text = await exposition([tsdb, targets]);
    expect(valueIn(text, "promstatus_targets", { scrape_pool: "slow", health: "unknown" })).toBe(2);
    expect(samplesOf(text, "promstatus_targets_dropped")).toEqual([]);
    expect(samplesOf(text, "promstatus_prometheus_agent_mode")).toEqual([]);
    expect(promtoolCheckMetrics(text)).toEqual({ status: 0, output: "" });
  });
});
