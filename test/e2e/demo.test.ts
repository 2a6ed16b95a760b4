import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { waitFor } from "../harness/processes.js";
import { samplesOf, valueIn } from "../helpers/exposition.js";

// `npm run demo` as a newcomer runs it (the script, after the build the test setup made): it starts
// its Alertmanagers as a replica group, prints what to look at, and every URL it prints answers.

const root = fileURLToPath(new URL("../../", import.meta.url));
let demo: ChildProcess | undefined;
let output = "";

afterAll(async () => {
  if (demo && demo.exitCode === null && demo.signalCode === null) {
    const exited = new Promise((resolve) => demo?.once("exit", resolve));
    demo.kill("SIGINT");
    const timer = setTimeout(() => demo?.kill("SIGKILL"), 15_000);
    await exited;
    clearTimeout(timer);
  }
}, 30_000);

/** The URL printed after `label` on a line of its own. */
function printed(label: string): string {
  const url = new RegExp(`^ {2}${label} +(http\\S+)`, "m").exec(output)?.[1];
  if (!url) throw new Error(`the demo printed no "${label}" line:\n${output}`);
  return url;
}

describe("npm run demo", () => {
  it("starts a replica group of Alertmanagers, prints URLs that answer, and stops everything on Ctrl-C", async () => {
    demo = spawn(process.execPath, ["--import", "tsx", "scripts/demo.ts"], {
      cwd: root,
      stdio: ["ignore", "pipe", "pipe"],
    });
    demo.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    demo.stderr?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    await waitFor("the demo's instructions", async () => (output.includes("Press Ctrl-C") ? true : undefined), 90_000);
    expect(output).toContain('the two Alertmanagers are the replica group "alertmanagers"');

    const page = await fetch(printed("status page"));
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("alertmanagers");

    const metrics = await waitFor("both members of the group polled", async () => {
      const text = await (await fetch(printed("metrics"))).text();
      return samplesOf(text, "promstatus_group_sources_up", { group: "alertmanagers" })[0]?.value === 2
        ? text
        : undefined;
    });
    expect(valueIn(metrics, "promstatus_group_sources", { group: "alertmanagers" })).toBe(2);
    expect(valueIn(metrics, "promstatus_group_alertmanager_cluster_views", { group: "alertmanagers" })).toBe(1);

    const probeUrl = printed("probe");
    const probed = await fetch(probeUrl);
    expect(probed.status).toBe(200);
    const target = new URL(probeUrl).searchParams.get("target") ?? "";
    expect(target).toMatch(/^127\.0\.0\.1:\d+$/); // given as blackbox_exporter users write it
    expect(valueIn(await probed.text(), "promstatus_up", { source: `http://${target}`, endpoint: "tsdb" })).toBe(1);

    const explained = await fetch(printed("probe, explained"));
    expect(explained.status).toBe(200);
    expect(await explained.text()).toMatch(/^Probe of http:\/\/127\.0\.0\.1:\d+ with module "alertmanager"/);

    const dir = dirname(/^Config: (\S+)/m.exec(output)?.[1] ?? "");
    expect(existsSync(dir)).toBe(true);
    const exited = new Promise<number | null>((resolve) => demo?.once("exit", resolve));
    demo.kill("SIGINT");
    expect(await exited).toBe(0);
    expect(output).toContain("stopped.");
    expect(existsSync(dir)).toBe(false); // the stack's directory goes with its processes
  }, 150_000);
});
