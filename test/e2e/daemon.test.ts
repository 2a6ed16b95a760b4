import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DAEMON, startDaemonReady } from "../harness/daemon.js";
import { freePort, type Managed, tempDir, waitFor } from "../harness/processes.js";
import { type Stack, startStack } from "../harness/stack.js";
import { instantQuery } from "../helpers/promql.js";

// The built daemon as a user runs it, scraped by a real Prometheus with honor_labels.

let stack: Stack;
let daemon: Managed;
let exporterAddress: string;
let deadSourceUrl: string;

const query = (expr: string) => instantQuery(stack.prometheus.url, expr);

function logLines(): Record<string, unknown>[] {
  return readFileSync(daemon.logFile, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

beforeAll(async () => {
  exporterAddress = `127.0.0.1:${await freePort()}`;
  stack = await startStack({
    prefix: "promstatus-e2e",
    extraJobs: [{ job_name: "promstatus", targets: [exporterAddress], honor_labels: true }],
  });
  deadSourceUrl = `http://127.0.0.1:${await freePort()}`;
  const [am0, am1] = stack.alertmanagers.members;
  const configFile = join(stack.dir, "exporter.yml");
  writeFileSync(
    configFile,
    `global: {schedule: "*/2 * * * * *", timeout: 3s}
sources:
  - {name: prometheus-0, kind: prometheus, url: "${stack.prometheus.url}"}
  - {name: alertmanager-0, kind: alertmanager, url: "${am0?.url}"}
  - {name: alertmanager-1, kind: alertmanager, url: "${am1?.url}"}
  - {name: gone, kind: alertmanager, url: "${deadSourceUrl}"}
`,
  );
  daemon = await startDaemonReady(
    stack.dir,
    [`--config.file=${configFile}`, `--web.listen-address=${exporterAddress}`],
    exporterAddress,
  );
}, 90_000);

afterAll(async () => {
  await daemon?.stop(1000);
  await stack?.stop();
}, 30_000);

describe("the daemon scraped by a real Prometheus", () => {
  it("stores promstatus_target_up with the targets' own job and instance", async () => {
    const result = await waitFor("promstatus_target_up in Prometheus", async () => {
      const r = await query('promstatus_target_up{job="prometheus"}');
      return r.length > 0 ? r : undefined;
    });
    expect(result).toHaveLength(1);
    expect(result[0]?.metric).toMatchObject({
      instance: stack.prometheus.address,
      source: "prometheus-0",
      scrape_pool: "prometheus",
    });
    expect(result[0]?.value[1]).toBe("1");
    const dead = await query(`promstatus_target_up{job="dead"}`);
    expect(dead.map((r) => r.value[1])).toEqual(["0"]);
  });

  it("stores the peer count of each Alertmanager", async () => {
    const result = await waitFor("cluster peers in Prometheus", async () => {
      const r = await query("promstatus_alertmanager_cluster_peers");
      return r.length === 2 ? r : undefined;
    });
    expect(result.map((r) => [r.metric.source, r.value[1]]).sort()).toEqual([
      ["alertmanager-0", "2"],
      ["alertmanager-1", "2"],
    ]);
  });

  it("is scraped successfully itself", async () => {
    const up = await waitFor("exporter scraped", async () => {
      const r = await query(`up{job="promstatus"}`);
      return r[0]?.value[1] === "1" ? r : undefined;
    });
    expect(up[0]?.metric.instance).toBe(exporterAddress);
    const failures = await waitFor("failures of the dead source in Prometheus", async () => {
      const r = await query(`promstatus_poll_failures_total{source="gone",reason="connection"}`);
      return r.length > 0 ? r : undefined;
    });
    expect(Number(failures[0]?.value[1])).toBeGreaterThanOrEqual(1);
  });

  it("logs start-up, the sources and each failed poll as JSON lines", async () => {
    await waitFor("a failed poll logged", async () =>
      logLines().some((l) => l.msg === "poll failed") ? true : undefined,
    );
    const lines = logLines();
    expect(lines.some((l) => l.msg === "starting prometheus-status-exporter")).toBe(true);
    expect(lines.filter((l) => l.msg === "source loaded").map((l) => l.source)).toEqual([
      "prometheus-0",
      "alertmanager-0",
      "alertmanager-1",
      "gone",
    ]);
    const failed = lines.find((l) => l.msg === "poll failed");
    expect(failed).toMatchObject({ source: "gone", endpoint: "status", reason: "connection" });
  });

  it("exits 0 within 5 s of SIGTERM, logging the shutdown", async () => {
    const started = Date.now();
    const code = await daemon.stop(10_000);
    expect(code).toBe(0);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(logLines().map((l) => l.msg)).toContain("shutdown complete");
  });
});

describe("the daemon refusing to start", () => {
  it("exits 1 on an invalid config, naming the file, the field and the problem", () => {
    const dir = tempDir("promstatus-badconfig");
    try {
      const file = join(dir.path, "bad.yml");
      writeFileSync(
        file,
        "sources:\n  - {name: a, kind: prometheus, url: http://127.0.0.1:9090, timeout: 5 minutes}\n",
      );
      const result = spawnSync(
        process.execPath,
        [DAEMON, `--config.file=${file}`, "--web.listen-address=127.0.0.1:0"],
        { encoding: "utf8" },
      );
      expect(result.status).toBe(1);
      expect(result.stderr).toContain(`${file}:2: sources[0].timeout: invalid duration "5 minutes"`);
    } finally {
      dir.remove();
    }
  });

  it("exits 1 on an unknown flag, naming the nearest and where the flags are listed", () => {
    const result = spawnSync(process.execPath, [DAEMON, "--config.fiel=x"], { encoding: "utf8" });
    expect(result.status).toBe(1);
    expect(result.stderr).toBe("error: Unknown option '--config.fiel' (did you mean --config.file?), try --help\n");
  });

  it("exits 0 on SIGINT too", async () => {
    const dir = tempDir("promstatus-sigint");
    try {
      const port = await freePort();
      const d = await startDaemonReady(
        dir.path,
        ["--config.file=config/exporter.yml", `--web.listen-address=127.0.0.1:${port}`],
        `127.0.0.1:${port}`,
      );
      d.child.kill("SIGINT");
      expect(await d.exited).toBe(0);
    } finally {
      dir.remove();
    }
  });
});
