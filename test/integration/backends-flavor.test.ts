import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startExporter } from "../harness/exporter.js";
import { freePort, type Managed, startProcess, tempDir, waitFor, waitForHttp } from "../harness/processes.js";
import { samplesOf } from "../helpers/exposition.js";

// Issue 23, point 1: what the exporter is talking to, detected from the real VictoriaMetrics and vmagent
// of Debian's package (1.79.5, installed by scripts/ensure-upstreams.sh), started on 127.0.0.1 as
// scripts/capture-backend-fixtures.sh starts them. VictoriaMetrics 1.79 answers buildinfo `data: {}`;
// vmagent refuses it (HTTP 400 `unsupported path requested`). Two sources of the one VictoriaMetrics in
// a replica group: its buildinfo says no version, so the group compares none.

const VM_BIN = process.env.VICTORIA_METRICS_BIN ?? "/usr/bin/victoria-metrics";
const VMAGENT_BIN = process.env.VMAGENT_BIN ?? "/usr/bin/vmagent";

const dir = tempDir("promstatus-backends");
const processes: Managed[] = [];
const logged: { level: number; msg: string; source?: string }[] = [];
let stopExporter: (() => Promise<void>) | undefined;
let base = "";

/** A scrape config: the process itself, and a target it will not scrape for an hour (never scraped yet). */
const scrapeConfig = (port: number) => `global: {scrape_interval: 1s, scrape_timeout: 500ms}
scrape_configs:
  - job_name: self
    static_configs: [{targets: ['127.0.0.1:${port}']}]
  - job_name: slow
    scrape_interval: 1h
    static_configs: [{targets: ['127.0.0.1:2']}]
`;

beforeAll(async () => {
  const vmPort = await freePort();
  const agentPort = await freePort();
  writeFileSync(join(dir.path, "vm.yml"), scrapeConfig(vmPort));
  writeFileSync(join(dir.path, "agent.yml"), scrapeConfig(agentPort));
  const env = { ...process.env, TZ: "UTC" };
  processes.push(
    startProcess(
      VM_BIN,
      [
        `-httpListenAddr=127.0.0.1:${vmPort}`,
        `-storageDataPath=${join(dir.path, "vm-data")}`,
        `-promscrape.config=${join(dir.path, "vm.yml")}`,
      ],
      join(dir.path, "vm.log"),
      env,
    ),
    startProcess(
      VMAGENT_BIN,
      [
        `-httpListenAddr=127.0.0.1:${agentPort}`,
        `-remoteWrite.url=http://127.0.0.1:${vmPort}/api/v1/write`,
        `-remoteWrite.tmpDataPath=${join(dir.path, "agent-q")}`,
        `-promscrape.config=${join(dir.path, "agent.yml")}`,
      ],
      join(dir.path, "agent.log"),
      env,
    ),
  );
  const [vm, agent] = processes as [Managed, Managed];
  await waitForHttp(`http://127.0.0.1:${vmPort}/health`, vm);
  await waitForHttp(`http://127.0.0.1:${agentPort}/health`, agent);
  const vmUrl = `http://127.0.0.1:${vmPort}`;
  const config = `sources:
  - {name: vm, kind: prometheus, url: "${vmUrl}", interval: 1s, tsdb: {limit: 3}}
  - {name: agent, kind: prometheus, url: "http://127.0.0.1:${agentPort}", interval: 1s}
  - {name: vm-a, kind: prometheus, url: "${vmUrl}", interval: 1s, group: vm-pair}
  - {name: vm-b, kind: prometheus, url: "${vmUrl}", interval: 1s, group: vm-pair}
`;
  const log = pino({ level: "info" }, { write: (line: string) => void logged.push(JSON.parse(line)) });
  const started = await startExporter(dir.path, config, { log });
  stopExporter = () => started.exporter.stop();
  base = started.base;
}, 60_000);

afterAll(async () => {
  await stopExporter?.();
  for (const p of processes) await p.stop();
  dir.remove();
});

const scrape = async () => (await fetch(`${base}/metrics`)).text();
const flavorOf = (text: string, source: string) =>
  samplesOf(text, "promstatus_source_info", { source }).map((s) => [s.labels.kind, s.labels.flavor, s.value]);

describe("VictoriaMetrics and vmagent 1.79.5 (real binaries)", () => {
  it("are told apart from their buildinfo answers, said once in the log, and served as promstatus_source_info", async () => {
    const text = await waitFor(
      "every source's flavor detected",
      async () => {
        const t = await scrape();
        const unknown = samplesOf(t, "promstatus_source_info").filter((s) => s.labels.flavor === "unknown");
        return unknown.length === 0 ? t : undefined;
      },
      20_000,
      250,
    );
    expect(flavorOf(text, "vm")).toEqual([["prometheus", "victoriametrics", 1]]);
    expect(flavorOf(text, "agent")).toEqual([["prometheus", "vmagent", 1]]);
    const said = (source: string) =>
      logged.filter((l) => l.source === source && l.msg.startsWith(`source ${source} is`));
    expect(said("vm").map((l) => [l.level, l.msg])).toEqual([
      [30, "source vm is VictoriaMetrics (detected from its /api/v1/status/buildinfo answer)"],
    ]);
    expect(said("agent").map((l) => l.msg)).toEqual([
      "source agent is vmagent (detected from its refusal of /api/v1/status/buildinfo (HTTP 400))",
    ]);
    // Polled again since, and not said again.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(said("vm")).toHaveLength(1);
  });

  it("a replica group of VictoriaMetrics compares no versions (its buildinfo has none), and the status page names the flavor", async () => {
    const text = await waitFor(
      "the pair compared",
      async () => {
        const t = await scrape();
        const both = samplesOf(t, "promstatus_source_info").filter(
          (s) => s.labels.group === "vm-pair" && s.labels.flavor === "victoriametrics",
        );
        return both.length === 2 && samplesOf(t, "promstatus_group_sources", { group: "vm-pair" }).length
          ? t
          : undefined;
      },
      20_000,
      250,
    );
    expect(samplesOf(text, "promstatus_group_prometheus_versions", { group: "vm-pair" })).toEqual([]);
    const page = await (await fetch(`${base}/`)).text();
    expect(page).toContain('vm <small>prometheus (<span class="flavor">VictoriaMetrics, detected</span>)');
    expect(page).toContain('agent <small>prometheus (<span class="flavor">vmagent, detected</span>)');
  });
});
