/// <reference lib="dom" />
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Exporter } from "../../src/exporter.js";
import { type RealAlertmanagerCluster, startAlertmanagerCluster } from "../harness/alertmanager.js";
import { startExporter } from "../harness/exporter.js";
import { tempDir, waitFor } from "../harness/processes.js";
import { type RealPrometheus, startPrometheus } from "../harness/prometheus.js";

// The status page in a real headless browser (Debian's chromium): a real Prometheus with a target down,
// a pair of Prometheus replicas whose targets differ, two clustered Alertmanagers as a group, a source
// whose port refuses connections, a refused config reload and a few probes. The screenshot is kept in
// .tmp/artifacts (docs/status-page.png is a copy of it).

const ARTIFACTS = fileURLToPath(new URL("../../.tmp/artifacts/", import.meta.url));
const CHROMIUM = process.env.CHROMIUM_BIN ?? "/usr/bin/chromium";
const dir = tempDir("promstatus-browser");
let prometheus: RealPrometheus;
let replicas: RealPrometheus[] = [];
let alertmanagers: RealAlertmanagerCluster;
let exporter: Exporter;
let base: string;
let browser: Browser;

beforeAll(async () => {
  const sub = (name: string) => {
    const path = join(dir.path, name);
    mkdirSync(path);
    return path;
  };
  // A job whose target refuses connections: one target down of two.
  prometheus = await startPrometheus(sub("main"), [{ job_name: "node", targets: ["127.0.0.1:1"] }]);
  // Replicas that should scrape the same, but one has a job the other lacks.
  replicas = await Promise.all([
    startPrometheus(sub("replica-a"), []),
    startPrometheus(sub("replica-b"), [{ job_name: "extra", targets: ["127.0.0.1:1"] }]),
  ]);
  alertmanagers = await startAlertmanagerCluster(sub("alertmanagers"), 2);
  const [a, b] = replicas as [RealPrometheus, RealPrometheus];
  const [am0, am1] = alertmanagers.members.map((m) => m.url);
  const configText = `sources:
  - {name: main-prometheus, kind: prometheus, url: "${prometheus.url}", interval: 1s}
  - {name: prometheus-a, kind: prometheus, url: "${a.url}", interval: 1s, group: prometheus-pair}
  - {name: prometheus-b, kind: prometheus, url: "${b.url}", interval: 1s, group: prometheus-pair}
  - {name: alertmanager-0, kind: alertmanager, url: "${am0}", interval: 1s, group: alertmanagers}
  - {name: alertmanager-1, kind: alertmanager, url: "${am1}", interval: 1s, group: alertmanagers}
  - {name: gone-alertmanager, kind: alertmanager, url: "http://127.0.0.1:1", interval: 1s, timeout: 2s}
`;
  const configFile = join(dir.path, "exporter.yml");
  writeFileSync(configFile, configText);
  ({ exporter, base } = await startExporter(dir.path, configText, { flags: [`--config.file=${configFile}`] }));
  // A reload the exporter refuses: the running config stays, and the page says so.
  writeFileSync(configFile, `${configText}  - {name: broken, kind: prometheus}\n`);
  expect(await exporter.reload()).toBeDefined();
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await exporter?.stop();
  await Promise.all([prometheus?.stop(), ...replicas.map((r) => r.stop()), alertmanagers?.stop()]);
  dir.remove();
}, 30_000);

describe("status page in Chromium", () => {
  it("shows the summary, every source's figures and endpoints, a failing one in red, a differing group, the probes", async () => {
    await waitFor(
      "every source polled, the down targets scraped, the Alertmanagers clustered",
      async () => {
        const html = await (await fetch(base)).text();
        const ready =
          !html.includes("not polled yet") &&
          html.includes("6 sources: 3 ok,") && // the Alertmanagers' cluster settled
          html.includes("connection") &&
          html.includes("2 of 5 targets down") &&
          html.includes("Members differ") &&
          (html.match(/2 peers: /g) ?? []).length >= 2;
        return ready ? true : undefined;
      },
      30_000,
    );
    await fetch(`${base}/probe?target=${encodeURIComponent(prometheus.url)}&module=prometheus`);
    await fetch(`${base}/probe?target=http://127.0.0.1:1&module=alertmanager`);

    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const requested: string[] = [];
    page.on("request", (r) => requested.push(r.url()));
    const response = await page.goto(base);
    expect(response?.status()).toBe(200);
    expect(await page.title()).toBe("Prometheus Status Exporter");

    // The summary on top, visible: sources, targets down of total, the group that differs, the refused reload.
    const summary = page.locator("ul.summary");
    expect(await summary.isVisible()).toBe(true);
    expect(await summary.locator("li").allTextContents()).toEqual([
      "6 sources: 3 ok, 2 with warnings (main-prometheus, prometheus-b), 1 failing (gone-alertmanager)",
      "2 of 5 targets down (main-prometheus, prometheus-b)",
      // Its config differs too where the config endpoint is polled: one replica has a job the other lacks.
      expect.stringMatching(/^1 of 2 replica groups differs \(prometheus-pair: targets(, config)?\)$/),
      expect.stringMatching(
        /^This exporter's config reload was refused at \S+Z \(\d+ problems?\): the running config stays; the log says why$/,
      ),
    ]);
    const box = await summary.boundingBox();
    expect(box?.y).toBeLessThan(300); // above the fold
    const bullet = await summary
      .locator("li.failing")
      .first()
      .evaluate((li) => getComputedStyle(li, "::before").color);
    expect(bullet).toBe("rgb(192, 0, 0)");

    // Per source: a Prometheus's targets and head series, an Alertmanager's cluster and peers.
    const overview = (name: string) => page.locator(`table.overview tr:has(a[href="#source-${name}"])`);
    const main = await overview("main-prometheus").locator("td").allTextContents();
    expect(main.slice(0, 7)).toEqual(["main-prometheus", "prometheus", "", "1 target down", "1", "1", "2"]);
    expect(Number((main[7] ?? "").replace(/,/g, ""))).toBeGreaterThan(100); // head series
    expect(await overview("main-prometheus").getAttribute("class")).toBe("warning");
    const am = await overview("alertmanager-0").locator("td").allTextContents();
    expect(am[3]).toBe("ok");
    expect(am[8]).toBe("ready");
    expect(am[9]).toMatch(/^2 peers: \S+, \S+$/);

    // The group whose members differ stands out, with what differs.
    const differs = page.locator("h3.differs");
    expect(await differs.count()).toBe(1);
    expect(await differs.textContent()).toBe("prometheus-pair prometheus");
    expect(await page.locator("p.differs").textContent()).toMatch(/^Members differ: targets(, config)?$/);
    expect(await differs.evaluate((h) => getComputedStyle(h).color)).toBe("rgb(176, 0, 0)");
    // A pair: neither is the odd one out, both members' views are marked.
    expect(await page.locator('table[data-group="prometheus-pair"] td.odd').count()).toBeGreaterThanOrEqual(2);
    expect(await page.locator('table[data-group="alertmanagers"].differs').count()).toBe(0);

    const failing = page.locator('table[data-source="gone-alertmanager"] tr.failing').first();
    expect(await failing.locator("td.result").textContent()).toBe("failing");
    expect(await failing.locator("td.reason").textContent()).toBe("connection");
    const background = await failing.evaluate((row) => getComputedStyle(row).backgroundColor);
    const [red, green, blue] = (background.match(/\d+/g) ?? []).map(Number);
    expect(red).toBeGreaterThan((green as number) + 20);
    expect(red).toBeGreaterThan((blue as number) + 20);
    const resultColour = await failing.locator("td.result").evaluate((cell) => getComputedStyle(cell).color);
    expect(resultColour).toBe("rgb(176, 0, 0)");

    const rows = page.locator('table[data-source="main-prometheus"] tr:has(td)');
    const endpoints = await rows.locator("td:first-child").allTextContents();
    expect(endpoints.slice(0, 2)).toEqual(["tsdb", "targets"]);
    // Every endpoint it polls answered (none failing, none pending).
    expect(await rows.locator("td.result").allTextContents()).toEqual(endpoints.map(() => "ok"));

    const probes = page.locator("table.probes tr.ok, table.probes tr.failing");
    expect(await probes.count()).toBe(2);
    expect(await probes.nth(0).locator("td.result").textContent()).toBe("failure"); // newest first
    expect(await probes.nth(1).locator("td.result").textContent()).toBe("success");
    await probes.nth(0).locator("a", { hasText: "debug" }).click();
    expect(await page.locator("body").textContent()).toMatch(
      /Endpoint status\n.*\n\s+result: failure, reason connection/,
    );

    // Nothing but the page itself was loaded: no external assets.
    expect(requested.every((url) => url.startsWith(base))).toBe(true);
    await page.goto(base);
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, "status-page.png"), fullPage: true });
    await page.close();
  }, 60_000);
});
