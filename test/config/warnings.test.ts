import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { formatProblem } from "../../src/config/config-error.js";
import { loadConfig } from "../../src/config/load.js";
import { startExporter } from "../harness/exporter.js";
import { tempDir } from "../harness/processes.js";
import { fixtureText } from "../helpers/fixtures.js";

const dir = fileURLToPath(new URL("../fixtures/config/", import.meta.url));
const path = (name: string) => `${dir}${name}`;
const warnFixtures = readdirSync(dir).filter((f) => f.startsWith("warn-"));
const told = async (file: string) => (await loadConfig(file)).warnings.map((w) => formatProblem(w.file, w));

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe("config warnings", () => {
  // Each warn-*.yml names, in '# warn: :line: field: message' lines, every warning it must give and no other.
  it.each(warnFixtures)("%s is loaded, with the warnings it names", async (name) => {
    const expected = [...fixtureText(`config/${name}`).matchAll(/^# warn: (.*)$/gm)].map((m) => m[1] as string);
    expect(expected.length, `${name} lacks '# warn:' lines`).toBeGreaterThan(0);
    const warnings = await told(path(name));
    expect(warnings).toHaveLength(expected.length);
    expected.forEach((text, i) => {
      expect(warnings[i]).toContain(`${path(name)}${text}`);
    });
  });

  it("never tell a password from a URL", async () => {
    const warnings = await told(path("warn-url-not-base.yml"));
    expect(warnings.join("\n")).toContain("monitor:xxxxx@");
    expect(warnings.join("\n")).not.toContain("s3cret");
  });

  it("gives none for the shipped config", async () => {
    expect(await told(fileURLToPath(new URL("../../config/exporter.yml", import.meta.url)))).toEqual([]);
  });

  it("call an interval of 30s one's own, and only a schedule set nowhere the default one", async () => {
    const folder = tempDir("promstatus-warnings");
    cleanups.push(async () => folder.remove());
    const source = (name: string, more: string) =>
      `  - {name: ${name}, kind: alertmanager, url: "http://127.0.0.1:1", timeout: 1m${more}}\n`;
    const write = (name: string, text: string) => {
      writeFileSync(join(folder.path, name), text);
      return join(folder.path, name);
    };
    const withCron = write(
      "cron.yml",
      `global: {schedule: "0 */5 * * * *"}\nsources:\n${source("a", ", interval: 30s")}`,
    );
    expect(await told(withCron)).toEqual([
      expect.stringContaining("sources[0].timeout: timeout 1m is longer than the interval 30s: polls never overlap"),
    ]);
    const plain = write("plain.yml", `sources:\n${source("a", ", interval: 30s")}${source("b", "")}`);
    expect(await told(plain)).toEqual([
      expect.stringContaining("sources[0].timeout: timeout 1m is longer than the interval 30s: polls never overlap"),
      expect.stringContaining(
        "sources[1].timeout: timeout 1m is longer than the 30s between polls (the default schedule)",
      ),
    ]);
    const globalInterval = write("global.yml", `global: {interval: 30s}\nsources:\n${source("a", "")}`);
    expect(await told(globalInterval)).toEqual([
      expect.stringContaining("sources[0].timeout: timeout 1m is longer than the interval 30s: polls never overlap"),
    ]);
  });

  it("are logged at warn level once per load: at start, and again at a reload", async () => {
    const folder = tempDir("promstatus-warnings");
    cleanups.push(async () => folder.remove());
    const file = join(folder.path, "exporter.yml");
    const text = 'sources:\n  - {name: a, kind: alertmanager, url: "http://127.0.0.1:1", schedule: "*/30 * * * *"}\n';
    writeFileSync(file, text);
    const lines: { level: number; msg: string; file?: string; line?: number; field?: string }[] = [];
    const log = pino({ level: "info" }, { write: (l: string) => void lines.push(JSON.parse(l)) });
    const { exporter } = await startExporter(folder.path, text, { flags: [`--config.file=${file}`], log });
    cleanups.push(() => exporter.stop());
    const said = () => lines.filter((l) => l.msg.startsWith('schedule "*/30 * * * *" runs every 30 minutes'));
    expect(said()).toEqual([expect.objectContaining({ level: 40, file, line: 2, field: "sources[0].schedule" })]);
    expect(await exporter.reload()).toBeUndefined();
    expect(said()).toHaveLength(2);
  });
});
