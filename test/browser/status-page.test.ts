/// <reference lib="dom" />
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Exporter } from "../../src/exporter.js";
import { startExporter } from "../harness/exporter.js";
import { tempDir, waitFor } from "../harness/processes.js";
import { type RealPrometheus, startPrometheus } from "../harness/prometheus.js";

// The status page in a real headless browser (Debian's chromium): a real Prometheus that answers, a
// source whose port refuses connections, a few probes. The screenshot is kept in .tmp/artifacts.

const ARTIFACTS = fileURLToPath(new URL("../../.tmp/artifacts/", import.meta.url));
const CHROMIUM = process.env.CHROMIUM_BIN ?? "/usr/bin/chromium";
const dir = tempDir("promstatus-browser");
let prometheus: RealPrometheus;
let exporter: Exporter;
let base: string;
let browser: Browser;

beforeAll(async () => {
  prometheus = await startPrometheus(dir.path, []);
  ({ exporter, base } = await startExporter(
    dir.path,
    `sources:
  - {name: main-prometheus, kind: prometheus, url: "${prometheus.url}", schedule: "* * * * * *"}
  - {name: gone-alertmanager, kind: alertmanager, url: "http://127.0.0.1:1", schedule: "* * * * * *", timeout: 2s}
`,
  ));
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await exporter?.stop();
  await prometheus?.stop();
  dir.remove();
}, 30_000);

describe("status page in Chromium", () => {
  it("shows every source's endpoints, a failing one in red with its reason, and the recent probes", async () => {
    await waitFor("both sources polled", async () => {
      const html = await (await fetch(base)).text();
      return !html.includes("not polled yet") && html.includes("connection") ? true : undefined;
    });
    await fetch(`${base}/probe?target=${encodeURIComponent(prometheus.url)}&module=prometheus`);
    await fetch(`${base}/probe?target=http://127.0.0.1:1&module=alertmanager`);

    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const requested: string[] = [];
    page.on("request", (r) => requested.push(r.url()));
    const response = await page.goto(base);
    expect(response?.status()).toBe(200);
    expect(await page.title()).toBe("Prometheus Status Exporter");

    const failing = page.locator('table[data-source="gone-alertmanager"] tr.failing').first();
    expect(await failing.locator("td.result").textContent()).toBe("failing");
    expect(await failing.locator("td.reason").textContent()).toBe("connection");
    const background = await failing.evaluate((row) => getComputedStyle(row).backgroundColor);
    const [red, green, blue] = (background.match(/\d+/g) ?? []).map(Number);
    expect(red).toBeGreaterThan((green as number) + 20);
    expect(red).toBeGreaterThan((blue as number) + 20);
    const resultColour = await failing.locator("td.result").evaluate((cell) => getComputedStyle(cell).color);
    expect(resultColour).toBe("rgb(176, 0, 0)");

    const ok = page.locator('table[data-source="main-prometheus"] tr.ok');
    expect(await ok.count()).toBe(2); // tsdb and targets
    expect(await ok.locator("td.result").allTextContents()).toEqual(["ok", "ok"]);

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
