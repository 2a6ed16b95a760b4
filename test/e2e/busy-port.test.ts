import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DAEMON } from "../harness/daemon.js";
import { freePort, tempDir } from "../harness/processes.js";

// The built daemon started on a port this test already holds: one log line naming the address, exit 1.

const dir = tempDir("promstatus-busy-port");
let holder: Server;
let port: number;
let configFile: string;

beforeAll(async () => {
  port = await freePort();
  holder = createServer();
  await new Promise<void>((resolve) => holder.listen(port, "127.0.0.1", resolve));
  configFile = join(dir.path, "exporter.yml");
  // A scheduled source: its decoder thread is started before the bind, and must not keep the process up.
  const unused = await freePort();
  writeFileSync(configFile, `sources:\n  - {name: p, kind: prometheus, url: "http://127.0.0.1:${unused}"}\n`);
});

afterAll(async () => {
  await new Promise((resolve) => holder?.close(resolve));
  dir.remove();
});

describe("a busy listen address", () => {
  it("is said in one log line naming the address, no stack trace, and exit code 1", async () => {
    const run = promisify(execFile)(
      process.execPath,
      [DAEMON, `--config.file=${configFile}`, `--web.listen-address=127.0.0.1:${port}`],
      { timeout: 15_000 },
    );
    const failure = (await run.then(
      () => ({ code: 0, stdout: "", stderr: "" }),
      (error: { code: number; stdout: string; stderr: string }) => error,
    )) as { code: number; stdout: string; stderr: string };
    expect(failure.code).toBe(1);
    expect(failure.stderr).toBe("");
    const lines = failure.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { level: number; msg: string; address?: string; code?: string });
    const errors = lines.filter((l) => l.level >= 50);
    expect(errors).toEqual([
      expect.objectContaining({
        msg: `cannot listen on 127.0.0.1:${port}: the address is already in use (another process listens on it; choose another --web.listen-address)`,
        address: `127.0.0.1:${port}`,
        code: "EADDRINUSE",
      }),
    ]);
    expect(failure.stdout).not.toMatch(/\n\s+at /);
  });

  it("is said in logfmt with --log.format=logfmt", async () => {
    const failure = (await promisify(execFile)(
      process.execPath,
      [DAEMON, `--config.file=${configFile}`, `--web.listen-address=127.0.0.1:${port}`, "--log.format=logfmt"],
      { timeout: 15_000 },
    ).then(
      () => ({ code: 0, stdout: "" }),
      (error: { code: number; stdout: string }) => error,
    )) as { code: number; stdout: string };
    expect(failure.code).toBe(1);
    const lines = failure.stdout.trim().split("\n");
    expect(lines.every((l) => /^ts=\S+ level=(debug|info|warn|error) msg=/.test(l))).toBe(true);
    expect(lines.filter((l) => l.includes(" level=error "))).toEqual([
      expect.stringContaining(
        `msg="cannot listen on 127.0.0.1:${port}: the address is already in use (another process listens on it; choose another --web.listen-address)"`,
      ),
    ]);
    expect(lines.find((l) => l.includes(" level=error "))).toMatch(/ address=127\.0\.0\.1:\d+ code=EADDRINUSE/);
  });
});
