import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DAEMON, startDaemonReady } from "../harness/daemon.js";
import { freePort, type Managed, waitFor } from "../harness/processes.js";
import { type Stack, startStack } from "../harness/stack.js";
import { samplesOf, valueIn } from "../helpers/exposition.js";

// Hot reload of the built daemon (SIGHUP and POST /-/reload) while it polls real servers.

let stack: Stack;
let daemon: Managed;
let base: string;
let configFile: string;
// Polled at start, then not again while the test runs (an hourly schedule fired when a run crossed the hour).
const RARELY = "0 0 0 1 1 *";

const scrape = async () => (await fetch(`${base}/metrics`)).text();
const reload = () => fetch(`${base}/-/reload`, { method: "POST" });

function writeConfig(sources: string[]): void {
  writeFileSync(configFile, `sources:\n${sources.map((s) => `  - ${s}`).join("\n")}\n`);
}

const prom = () => `{name: prometheus-0, kind: prometheus, url: "${stack.prometheus.url}", schedule: "${RARELY}"}`;
const am = (name: string, i: number, schedule = RARELY) =>
  `{name: ${name}, kind: alertmanager, url: "${stack.alertmanagers.members[i]?.url}", schedule: "${schedule}"}`;

beforeAll(async () => {
  stack = await startStack({ prefix: "promstatus-reload" });
  configFile = join(stack.dir, "exporter.yml");
  writeConfig([prom(), am("alertmanager-0", 0), am("alertmanager-1", 1)]);
  const address = `127.0.0.1:${await freePort()}`;
  base = `http://${address}`;
  daemon = await startDaemonReady(
    stack.dir,
    [`--config.file=${configFile}`, `--web.listen-address=${address}`, "--web.enable-lifecycle"],
    address,
  );
  await waitFor("first polls", async () => ((await fetch(`${base}/-/ready`)).ok ? true : undefined));
}, 90_000);

afterAll(async () => {
  await daemon?.stop(3000);
  await stack?.stop();
}, 30_000);

describe("config reload", () => {
  it("applies a new config on SIGHUP: new source polled, removed one gone, unchanged one kept", async () => {
    const before = await scrape();
    const promLastSuccess = valueIn(before, "promstatus_last_success_timestamp_seconds", {
      source: "prometheus-0",
      endpoint: "tsdb",
    });
    expect(valueIn(before, "promstatus_config_last_reload_successful")).toBe(1);

    writeConfig([prom(), am("alertmanager-0", 0, "* * * * * *"), am("alertmanager-new", 1)]);
    daemon.child.kill("SIGHUP");
    const after = await waitFor("reloaded", async () => {
      const t = await scrape();
      return samplesOf(t, "promstatus_up", { source: "alertmanager-new" }).length > 0 ? t : undefined;
    });
    expect(valueIn(after, "promstatus_alertmanager_cluster_peers", { source: "alertmanager-new" })).toBe(2);
    expect(samplesOf(after, "promstatus_up", { source: "alertmanager-1" })).toEqual([]);
    expect(samplesOf(after, "promstatus_alertmanager_cluster_peers", { source: "alertmanager-1" })).toEqual([]);
    // The unchanged source was not restarted: same series, same last poll (its schedule is yearly).
    expect(
      valueIn(after, "promstatus_last_success_timestamp_seconds", { source: "prometheus-0", endpoint: "tsdb" }),
    ).toBe(promLastSuccess);
    expect(valueIn(after, "promstatus_tsdb_head_series", { source: "prometheus-0" })).toBeGreaterThan(0);
    // The log says what the reload did to each source.
    const reloaded = readFileSync(daemon.logFile, "utf8")
      .split("\n")
      .filter((line) => line.includes('"config reloaded"'))
      .map((line) => JSON.parse(line) as { added: string[]; removed: string[]; changed: string[] });
    expect(reloaded.at(-1)).toMatchObject({
      added: ["alertmanager-new"],
      removed: ["alertmanager-1"],
      changed: ["alertmanager-0"],
    });
  });

  it("applies a changed schedule", async () => {
    // alertmanager-0 went from yearly to every second in the previous reload: it keeps being polled.
    const first = valueIn(await scrape(), "promstatus_last_success_timestamp_seconds", { source: "alertmanager-0" });
    const later = await waitFor(
      "a newer poll",
      async () => {
        const t = valueIn(await scrape(), "promstatus_last_success_timestamp_seconds", { source: "alertmanager-0" });
        return t > first ? t : undefined;
      },
      5000,
    );
    expect(later).toBeGreaterThan(first);
  });

  it("refuses an invalid config on POST /-/reload and keeps running the old one", async () => {
    const good = readFileSync(configFile, "utf8");
    writeFileSync(configFile, `${good}  - {name: broken, kind: prometheus, url: "not a url"}\n`);
    const res = await reload();
    expect(res.status).toBe(500);
    expect(await res.text()).toContain(`${configFile}:5: sources[3].url: invalid URL "not a url"`);
    const text = await scrape();
    expect(valueIn(text, "promstatus_config_last_reload_successful")).toBe(0);
    expect(valueIn(text, "promstatus_up", { source: "alertmanager-new" })).toBe(1);
    expect(samplesOf(text, "promstatus_up", { source: "broken" })).toEqual([]);
    expect(readFileSync(daemon.logFile, "utf8")).toContain("config reload refused");

    writeFileSync(configFile, good);
    const before = Date.now() / 1000;
    expect((await reload()).status).toBe(200);
    const fixed = await scrape();
    expect(valueIn(fixed, "promstatus_config_last_reload_successful")).toBe(1);
    expect(valueIn(fixed, "promstatus_config_last_reload_success_timestamp_seconds")).toBeGreaterThanOrEqual(
      Math.floor(before),
    );
  });
});

describe("--config.check", () => {
  it("accepts a valid config with exit 0", () => {
    const result = spawnSync(process.execPath, [DAEMON, `--config.file=${configFile}`, "--config.check"], {
      encoding: "utf8",
    });
    expect(result.status).toBe(0);
    expect(result.stdout).toBe(`Checking ${configFile}\n  SUCCESS: 3 sources found\n`);
  });

  it("lists every problem with exit 1", () => {
    const bad = join(stack.dir, "bad.yml");
    writeFileSync(
      bad,
      "global: {timeout: soon}\nsources:\n  - {name: a, kind: nope, url: x}\n  - {name: b, kind: alertmanager, url: ftp://x}\n",
    );
    const result = spawnSync(process.execPath, [DAEMON, `--config.file=${bad}`, "--config.check"], {
      encoding: "utf8",
    });
    expect(result.status).toBe(1);
    expect(result.stdout).toContain(`Checking ${bad}\n  FAILED:\n`);
    expect(result.stdout).toContain(`    ${bad}:1: global.timeout: invalid duration "soon"`);
    expect(result.stdout).toContain(`    ${bad}:3: sources[0].kind: kind must be "prometheus" or "alertmanager"`);
    expect(result.stdout).toContain(`    ${bad}:4: sources[1].url: URL scheme must be http or https, got "ftp"`);
  });

  it("checks the web config too", () => {
    const web = join(stack.dir, "web.yml");
    writeFileSync(web, "basic_auth_users:\n  admin: not-a-hash\n");
    const result = spawnSync(
      process.execPath,
      [DAEMON, `--config.file=${configFile}`, `--web.config.file=${web}`, "--config.check"],
      { encoding: "utf8" },
    );
    expect(result.status).toBe(1);
    expect(result.stdout).toContain(
      `    ${web}:2: basic_auth_users.admin: must be a bcrypt hash ($2a$, $2b$ or $2y$, cost 04 to 31)`,
    );
    expect(result.stdout).not.toContain("not-a-hash");
  });
});
