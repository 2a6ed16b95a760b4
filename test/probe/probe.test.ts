import { afterEach, describe, expect, it } from "vitest";
import { targetsAnswer } from "../../scripts/bench/generate.js";
import { parseConfig } from "../../src/config/load.js";
import type { ModuleConfig } from "../../src/config/types.js";
import { isPacked } from "../../src/exposition/pack.js";
import { DEBUG_METRICS_BYTES, debugAnswer } from "../../src/probe/debug-account.js";
import { runProbe } from "../../src/probe/probe.js";
import { samplesOf, valueIn } from "../helpers/exposition.js";
import { type FakeUpstream, startFakeUpstream } from "../helpers/fake-upstream.js";
import { linesText } from "../helpers/families.js";
import { fixtureText } from "../helpers/fixtures.js";
import { promtoolCheckMetrics } from "../helpers/promtool.js";

let upstream: FakeUpstream | undefined;
afterEach(async () => {
  await upstream?.close();
  upstream = undefined;
});

const modules = parseConfig("modules: {}\n", "/tmp/exporter.yml").modules;

describe("runProbe", () => {
  it("answers with the plain text of families the decoder thread packed", async () => {
    upstream = await startFakeUpstream((req, res) => {
      if (req.url?.startsWith("/api/v1/targets")) res.writeHead(200).end(targetsAnswer(3000));
      else res.writeHead(200).end(fixtureText("upstream/prometheus-tsdb.json"));
    });
    const module = modules.get("prometheus") as ModuleConfig;
    const run = await runProbe({ module, target: upstream.url }, undefined, 500);
    const targets = run.endpoints.find((e) => e.endpoint === "targets")?.outcome;
    if (!targets?.ok) throw new Error("the targets poll failed");
    const up = targets.families.find(([name]) => name === "promstatus_target_up")?.[1];
    expect(up && isPacked(up)).toBe(true);

    const text = run.exposition.toString("utf8");
    expect(text).toContain(linesText(up));
    const source = { source: upstream.url };
    expect(samplesOf(text, "promstatus_target_scrape_interval_seconds", source)).toHaveLength(3000);
    // A target not scraped yet (the answer has some) has no up.
    const unknown = samplesOf(text, "promstatus_targets", { ...source, health: "unknown" });
    const notScraped = unknown.reduce((n, s) => n + s.value, 0);
    expect(notScraped).toBeGreaterThan(0);
    expect(samplesOf(text, "promstatus_target_up", source)).toHaveLength(3000 - notScraped);
    expect(promtoolCheckMetrics(text).status).toBe(0);
    const whole = run.exposition.byteLength;
    expect(debugAnswer(run, { how: "polled" }, whole)).toContain(linesText(up));
    // The module's settings, the series limit a hostile answer is held to among them.
    expect(debugAnswer(run, { how: "polled" })).toContain("\n  series_limit: 100000\n");
    expect(debugAnswer(run, { how: "polled" })).toContain("\n  status endpoints: none\n"); // off for modules
    const withStatus = parseConfig(
      "modules: {p: {kind: prometheus, buildinfo: {enabled: true}, walreplay: {enabled: true}}}\n",
      "/tmp/exporter.yml",
    ).modules.get("p") as ModuleConfig;
    expect(debugAnswer({ ...run, module: withStatus }, { how: "polled" })).toContain(
      "\n  status endpoints: buildinfo, walreplay\n",
    );

    // Quoted up to a bound, cut at a line end: each debug answer is a string of its own.
    expect(whole).toBeGreaterThan(DEBUG_METRICS_BYTES);
    const cutAnswer = debugAnswer(run, { how: "polled" });
    const [account, quoted] = cutAnswer.split("Metrics that would have been returned:\n") as [string, string];
    expect(cutAnswer.length).toBeLessThan(account.length + DEBUG_METRICS_BYTES + 300);
    const lines = quoted.split("\n");
    const note = lines.at(-2) as string;
    const kept = `${lines.slice(0, -2).join("\n")}\n`;
    expect(kept.length).toBeLessThanOrEqual(DEBUG_METRICS_BYTES);
    expect(text.startsWith(kept)).toBe(true);
    expect(note).toBe(
      `# ... ${whole - kept.length} more bytes of metrics left out of this debug answer (the first ${kept.length} of ${whole} are above); the answer without debug=true has them all.`,
    );
    expect(debugAnswer(run, { how: "polled" }, 10)).toMatch(/returned:\n# \.\.\. \d+ more bytes/);
  });
});

describe("runProbe exposition budget", () => {
  it("fails the largest endpoint as too_large when the answer's series would exceed the budget", async () => {
    upstream = await startFakeUpstream((req, res) => {
      if (req.url?.startsWith("/api/v1/targets")) res.writeHead(200).end(targetsAnswer(3000));
      else res.writeHead(200).end(fixtureText("upstream/prometheus-tsdb.json"));
    });
    const module = modules.get("prometheus") as ModuleConfig;
    const budget = 100_000; // the tsdb series fit, the 3000 targets' do not
    const run = await runProbe({ module, target: upstream.url }, undefined, 500, budget);
    const outcome = (endpoint: string) => run.endpoints.find((e) => e.endpoint === endpoint)?.outcome;
    expect(outcome("tsdb")?.ok).toBe(true);
    const targets = outcome("targets");
    if (targets?.ok !== false) throw new Error("the targets endpoint was not failed");
    expect(targets.error.reason).toBe("too_large");
    expect(targets.error.message).toMatch(
      /^its series are \d+ bytes of text \(\d+ with the other endpoints'\), over the 100000 a probe may answer with$/,
    );
    // Built from what fits: the poll's own series say why the targets are missing.
    expect(run.exposition.byteLength).toBeLessThan(budget + 10_000);
    const text = run.exposition.toString("utf8");
    expect(samplesOf(text, "promstatus_target_up")).toHaveLength(0);
    expect(valueIn(text, "promstatus_up", { endpoint: "targets" })).toBe(0);
    expect(valueIn(text, "promstatus_poll_failures_total", { endpoint: "targets", reason: "too_large" })).toBe(1);
    expect(valueIn(text, "promstatus_up", { endpoint: "tsdb" })).toBe(1);
  });
});

describe("probe target checks", () => {
  const modules = parseConfig("modules: {}\n", "/tmp/exporter.yml").modules;

  it("refuses a target longer than 1024 characters, without quoting it", async () => {
    const { validateProbe } = await import("../../src/probe/probe.js");
    const long = `http://host:9090/${"a".repeat(1100)}`;
    expect(validateProbe(modules, { target: long, module: "prometheus", scrapeTimeoutSeconds: undefined })).toBe(
      "target is longer than 1024 characters",
    );
    expect(
      validateProbe(modules, { target: "http://host:9090/", module: "prometheus", scrapeTimeoutSeconds: undefined }),
    ).toMatchObject({ target: "http://host:9090" });
    // The target as fetched: probes of it share a poll, a min_interval result and a `source` label.
    expect(
      validateProbe(modules, { target: "HTTPS://Host:443//", module: "prometheus", scrapeTimeoutSeconds: undefined }),
    ).toMatchObject({ target: "https://host" });
  });

  it("refuses an unknown module naming the known ones, built-in and configured", async () => {
    const { validateProbe } = await import("../../src/probe/probe.js");
    const configured = parseConfig("modules: {prom-tls: {kind: prometheus}}\n", "/tmp/exporter.yml").modules;
    expect(
      validateProbe(configured, { target: "http://h:9090", module: "nope", scrapeTimeoutSeconds: undefined }),
    ).toBe(`unknown module "nope"; known modules: ${[...configured.keys()].join(", ")}`);
    // No module at all (blackbox_exporter would take its default): the same list, to pick from.
    expect(validateProbe(configured, { target: "http://h:9090", module: "", scrapeTimeoutSeconds: undefined })).toBe(
      `module parameter is missing; known modules: ${[...configured.keys()].join(", ")}`,
    );
    expect([...configured.keys()].sort()).toEqual(["alertmanager", "prom-tls", "prometheus"]);
  });

  it("takes a target without a scheme as http://, as blackbox_exporter does", async () => {
    const { validateProbe } = await import("../../src/probe/probe.js");
    const check = (target: string) =>
      validateProbe(modules, { target, module: "prometheus", scrapeTimeoutSeconds: undefined });
    expect(check("127.0.0.1:9090")).toMatchObject({ target: "http://127.0.0.1:9090" });
    expect(check("Prom-1:9090/prefix/")).toMatchObject({ target: "http://prom-1:9090/prefix" });
    expect(check("[::1]:9093")).toMatchObject({ target: "http://[::1]:9093" });
    expect(check("https://prom:9090")).toMatchObject({ target: "https://prom:9090" });
    // Other schemes are still refused, and a password given without a scheme is still seen as one.
    expect(check("ftp://prom:21")).toBe('target must be an http or https URL: "ftp://prom:21"');
    expect(check("monitor:s3cr3t@prom:9090")).toBe(
      'target must not hold a user or password: "http://monitor:xxxxx@prom:9090"',
    );
  });

  // A run of slashes that does not end the target made `/\/+$/` quadratic (220 ms for 16,000, minutes
  // for the 200,000 here; /probe refuses targets over 1024 characters before this runs); the
  // test's own timeout is what fails without the fix.
  it("takes trailing slashes off a target at once, however many slashes it holds", async () => {
    const module = modules.get("prometheus") as ModuleConfig;
    const slashes = "/".repeat(100_000);
    const run = await runProbe({ module, target: `http://127.0.0.1:9/${slashes}x${slashes}` }, undefined, 500);
    expect(run.endpoints[0]?.url).toMatch(/\/x\/api\/v1\//);
  }, 10_000);
});
