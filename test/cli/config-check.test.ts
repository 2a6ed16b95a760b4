import { Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { checkConfig } from "../../src/cli/config-check.js";
import { parseFlags } from "../../src/cli/flags.js";

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/config/${name}`, import.meta.url));

async function check(file: string): Promise<{ code: number; out: string }> {
  let out = "";
  const sink = new Writable({
    write(chunk, _encoding, done) {
      out += String(chunk);
      done();
    },
  });
  const code = await checkConfig(parseFlags([`--config.file=${file}`]), sink);
  return { code, out };
}

describe("--config.check", () => {
  it("prints each warning with file, line and field, and still succeeds", async () => {
    const file = fixture("warn-five-field-cron.yml");
    const { code, out } = await check(file);
    expect(code).toBe(0);
    expect(out.split("\n")).toEqual([
      `Checking ${file}`,
      `  WARNING: ${file}:5: global.schedule: schedule "*/30 * * * *" runs every 30 minutes (5 fields: minute hour day month weekday); for every 30 seconds use interval: 30s`,
      `  WARNING: ${file}:8: sources[1].schedule: schedule "0 3 * * *" has 5 fields: the first is minutes (minute hour day month weekday); for every few seconds use interval, e.g. interval: 30s`,
      "  SUCCESS: 3 sources found",
      "",
    ]);
  });

  it("prints a source URL that is not a base URL with the one to use, its password redacted", async () => {
    const file = fixture("warn-url-not-base.yml");
    const { code, out } = await check(file);
    expect(code).toBe(0);
    expect(out).toContain(
      `  WARNING: ${file}:10: sources[1].url: url "https://monitor:xxxxx@am.example.com/alertmanager/api/v2/status" ends in the API path /api/v2/status, which the exporter adds itself; use "https://monitor:xxxxx@am.example.com/alertmanager"\n`,
    );
    expect(out).not.toContain("s3cret");
  });

  it("fails a password_file that is a directory, naming file, line and field", async () => {
    const file = fixture("invalid-password-file-directory.yml");
    expect(await check(file)).toEqual({
      code: 1,
      out: `Checking ${file}\n  FAILED:\n    ${file}:3: sources[0].basic_auth.password_file: ${fixture("secrets")} is a directory, not a file\n`,
    });
  });

  it("names the probe modules of a config that only answers /probe", async () => {
    const file = fixture("valid-probe-only.yml");
    const { code, out } = await check(file);
    expect(code).toBe(0);
    expect(out).toMatch(/ {2}SUCCESS: 0 sources found; probe modules: .*\bprometheus\b.*\n$/);
    expect(out).toMatch(/probe modules: .*\balertmanager\b/);
  });

  it("prints no warning for a config without one", async () => {
    const file = fixture("valid-interval.yml");
    expect(await check(file)).toEqual({ code: 0, out: `Checking ${file}\n  SUCCESS: 3 sources found\n` });
  });
});
