import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/load.js";
import { Prober } from "../../src/probe/prober.js";
import { freePort } from "../harness/processes.js";
import { valueIn } from "../helpers/exposition.js";

// A probe's counters go on from the target's last probe, as a scheduled source's do: a target that always
// fails must read as failing to rate(), not as 1, 1, 1.

const config = (yaml: string) => parseConfig(yaml, "/tmp/exporter.yml").modules;

async function probeText(p: Prober, target: string, module: string): Promise<string> {
  const answer = await p.probe({ target, module, scrapeTimeoutSeconds: undefined, debug: false });
  if (answer.status !== 200 || answer.type !== "metrics") throw new Error(`probe answered ${answer.status}`);
  return answer.body.toString("utf8");
}

/**
 * A prober whose modules are `yaml` until `reload` swaps them, and a target nothing listens on; `failures`
 * reads a probe answer's connection failures of that target.
 */
async function closedTarget(yaml: string) {
  let modules = config(yaml);
  const prober = new Prober(() => modules, 500, pino({ level: "silent" }));
  const target = `http://127.0.0.1:${await freePort()}`;
  const labels = { source: target, endpoint: "status", reason: "connection" };
  return {
    prober,
    reload: (next: string) => {
      modules = config(next);
    },
    failures: async (module: string) =>
      valueIn(await probeText(prober, target, module), "promstatus_poll_failures_total", labels),
  };
}

describe("Prober memory", () => {
  it("counts a target's failures across its probes, per module", async () => {
    const { prober, failures } = await closedTarget("modules: {am: {kind: alertmanager}}\n");
    const seen: number[] = [];
    for (let i = 0; i < 3; i++) seen.push(await failures("am"));
    expect(seen).toEqual([1, 2, 3]);
    // Another module is another count; the built-in one starts from its own first probe.
    expect(await failures("alertmanager")).toBe(1);
    prober.close();
  });

  it("goes on counting across a reload that leaves the module as it was", async () => {
    const { prober, reload, failures } = await closedTarget("modules: {am: {kind: alertmanager}}\n");
    await failures("am");
    reload("modules: {am: {kind: alertmanager}, other: {kind: prometheus}}\n");
    expect(await failures("am")).toBe(2);
    prober.close();
  });

  it("starts over after a reload that changed the module", async () => {
    const { prober, reload, failures } = await closedTarget("modules: {am: {kind: alertmanager}}\n");
    await failures("am");
    expect(await failures("am")).toBe(2);
    reload("modules: {am: {kind: alertmanager, timeout: 3s}}\n");
    expect(await failures("am")).toBe(1);
    prober.close();
  });
});
