import { Gauge } from "prom-client";
import { describe, expect, it } from "vitest";
import { ProcessMetrics } from "../../src/publish/process-metrics.js";

const cpuSeconds = (text: string) => /^process_cpu_user_seconds_total (\S+)$/m.exec(text)?.[1];
const burnCpu = () => {
  const until = performance.now() + 60;
  let x = 0;
  while (performance.now() < until) x += Math.sqrt(x + 1);
  return x;
};

/** The text a scrape serves of them. */
const textOf = async (metrics: ProcessMetrics) => (await metrics.metrics()).join("");

describe("ProcessMetrics", () => {
  it("collects the runtime's metrics once for scrapes within its max age, and again after it", async () => {
    const shared = new ProcessMetrics("t", 60_000);
    const [first] = await shared.metrics();
    burnCpu();
    // The runtime's part is the same text, so /metrics keeps what it made of it (http/head-part.ts).
    const [again] = await shared.metrics();
    expect(again).toBe(first);
    expect(cpuSeconds(again)).toBe(cpuSeconds(first));

    const fresh = new ProcessMetrics("t", 0);
    const before = await textOf(fresh);
    burnCpu();
    expect(Number(cpuSeconds(await textOf(fresh)))).toBeGreaterThan(Number(cpuSeconds(before)));
  });

  it("renders the exporter's own metrics (build info, reloads) at every scrape, however recent the last", async () => {
    const metrics = new ProcessMetrics("9.9.9", 60_000);
    const reloads = new Gauge({ name: "promstatus_test_reloads", help: "x", registers: [metrics.registry] });
    reloads.set(1);
    expect(await textOf(metrics)).toMatch(/^promstatus_test_reloads 1$/m);
    reloads.set(2);
    const text = await textOf(metrics);
    expect(text).toMatch(/^promstatus_test_reloads 2$/m);
    expect(text).toMatch(/^promstatus_exporter_build_info\{version="9\.9\.9",node_version="v\d+/m);
  });
});
