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

describe("Prober memory", () => {
  it("counts a target's failures across its probes, per module", async () => {
    const modules = config("modules: {am: {kind: alertmanager}}\n");
    const p = new Prober(() => modules, 500, pino({ level: "silent" }));
    const closed = `http://127.0.0.1:${await freePort()}`;
    const failures = { source: closed, endpoint: "status", reason: "connection" };
    const seen: number[] = [];
    for (let i = 0; i < 3; i++)
      seen.push(valueIn(await probeText(p, closed, "am"), "promstatus_poll_failures_total", failures));
    expect(seen).toEqual([1, 2, 3]);
    // Another module is another count; the built-in one starts from its own first probe.
    expect(valueIn(await probeText(p, closed, "alertmanager"), "promstatus_poll_failures_total", failures)).toBe(1);
    p.close();
  });

  it("goes on counting across a reload that leaves the module as it was", async () => {
    let modules = config("modules: {am: {kind: alertmanager}}\n");
    const p = new Prober(() => modules, 500, pino({ level: "silent" }));
    const closed = `http://127.0.0.1:${await freePort()}`;
    const failures = { source: closed, endpoint: "status", reason: "connection" };
    await probeText(p, closed, "am");
    modules = config("modules: {am: {kind: alertmanager}, other: {kind: prometheus}}\n");
    expect(valueIn(await probeText(p, closed, "am"), "promstatus_poll_failures_total", failures)).toBe(2);
    p.close();
  });

  it("starts over after a reload that changed the module", async () => {
    let modules = config("modules: {am: {kind: alertmanager}}\n");
    const p = new Prober(() => modules, 500, pino({ level: "silent" }));
    const closed = `http://127.0.0.1:${await freePort()}`;
    const failures = { source: closed, endpoint: "status", reason: "connection" };
    await probeText(p, closed, "am");
    expect(valueIn(await probeText(p, closed, "am"), "promstatus_poll_failures_total", failures)).toBe(2);
    modules = config("modules: {am: {kind: alertmanager, timeout: 3s}}\n");
    expect(valueIn(await probeText(p, closed, "am"), "promstatus_poll_failures_total", failures)).toBe(1);
    p.close();
  });
});
