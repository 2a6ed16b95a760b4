import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Exporter } from "../../src/exporter.js";
import { startExporter } from "../harness/exporter.js";
import { tempDir } from "../harness/processes.js";
import { samplesOf, valueIn } from "../helpers/exposition.js";
import { type HeldUpstream, startHeldUpstream } from "../helpers/held-upstream.js";
import { promtoolCheckMetrics } from "../helpers/promtool.js";

// --probe.max-concurrent over HTTP: an upstream that holds its answers (a real one cannot be made to
// hang on demand) keeps two probes in flight while others arrive.

const dir = tempDir("promstatus-probe-limit");
let upstream: HeldUpstream;
let exporter: Exporter;
let base: string;

beforeAll(async () => {
  upstream = await startHeldUpstream();
  ({ exporter, base } = await startExporter(dir.path, "modules:\n  spared: {kind: alertmanager, min_interval: 10m}\n", {
    flags: ["--probe.max-concurrent=2"],
  }));
}, 60_000);

afterAll(async () => {
  upstream?.release();
  await exporter?.stop();
  await upstream?.close();
  dir.remove();
}, 30_000);

const probe = (target: string, module = "alertmanager") =>
  fetch(`${base}/probe?${new URLSearchParams({ target, module })}`);
const metrics = async () => (await fetch(`${base}/metrics`)).text();
const probes = (text: string, module: string, result: string) =>
  valueIn(text, "promstatus_probes_total", { module, result });

describe("/probe with --probe.max-concurrent=2", () => {
  it("answers a third poll 503 with Retry-After at once, serves shared and cached probes, and counts it all", async () => {
    // Distinct targets of one upstream: its paths.
    const [a, b, c] = ["a", "b", "c"].map((path) => `${upstream.url}/${path}`) as [string, string, string];
    upstream.release();
    expect((await probe(c, "spared")).status).toBe(200); // kept for min_interval
    upstream.hold();
    const first = probe(a);
    const second = probe(b);
    await upstream.received(3);
    expect(valueIn(await metrics(), "promstatus_probes_in_flight")).toBe(2);

    // Answered while both polls are held: it did not wait for a slot.
    const rejected = await probe(c);
    expect(rejected.status).toBe(503);
    expect(rejected.headers.get("retry-after")).toBe("1");
    expect(rejected.headers.get("content-type")).toContain("text/plain");
    expect(await rejected.text()).toMatch(/^[^\n]*limit of 2 set by --probe\.max-concurrent[^\n]*\n$/);
    const joined = probe(a); // identical to the first: shares its poll
    expect((await probe(c, "spared")).status).toBe(200); // from min_interval, no poll
    expect((await probe(c, "no-such-module")).status).toBe(400);
    expect((await probe("ftp://host", "spared")).status).toBe(400);
    expect(upstream.requests).toBe(3);

    upstream.release();
    expect((await Promise.all([first, second, joined])).map((res) => res.status)).toEqual([200, 200, 200]);
    expect(valueIn(await metrics(), "promstatus_probes_in_flight")).toBe(0);
    expect((await probe(c)).status).toBe(200);
    expect(upstream.requests).toBe(4); // the joined probe polled nothing of its own

    const text = await metrics();
    expect(probes(text, "alertmanager", "success")).toBe(4);
    expect(probes(text, "alertmanager", "rejected")).toBe(1);
    expect(probes(text, "spared", "success")).toBe(2);
    expect(probes(text, "spared", "refused")).toBe(1);
    expect(probes(text, "spared", "rejected")).toBe(0); // configured modules start from zero
    expect(probes(text, "", "refused")).toBe(1); // an unknown module name never becomes a label value
    expect(samplesOf(text, "promstatus_probes_total", { module: "no-such-module" })).toHaveLength(0);
    const check = promtoolCheckMetrics(text);
    expect(check.output).toBe("");
    expect(check.status).toBe(0);

    // The status page lists the eight probes answered; the rejection is counted only.
    const html = await (await fetch(`${base}/`)).text();
    const rows = [
      ...html.matchAll(/<tr class="(?:ok|failing)"><td>[^<]+<\/td><td>[^<]*<\/td><td>[^<]*<\/td><td class="result">/g),
    ];
    expect(rows).toHaveLength(8);
  });
});
