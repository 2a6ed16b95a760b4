import { ConfigError } from "../config/config-error.js";
import { loadConfig } from "../config/load.js";
import { loadWebConfig } from "../http/web-config.js";
import type { Flags } from "./flags.js";

/**
 * `--config.check`, like `promtool check config`: validates each file, prints every problem (file,
 * line, field, message; never a value's secret) and returns the exit code.
 */
export async function checkConfig(flags: Flags, out: NodeJS.WritableStream): Promise<number> {
  const checks: [string, () => Promise<string>][] = [
    [
      flags.configFile,
      async () => {
        const { sources } = await loadConfig(flags.configFile);
        return `${sources.length} source${sources.length === 1 ? "" : "s"} found`;
      },
    ],
  ];
  if (flags.webConfigFile) {
    const file = flags.webConfigFile;
    checks.push([
      file,
      async () => {
        const web = await loadWebConfig(file);
        return `TLS ${web.tls ? "on" : "off"}, ${web.users.size} basic auth user${web.users.size === 1 ? "" : "s"}`;
      },
    ]);
  }
  let failed = false;
  for (const [file, check] of checks) {
    out.write(`Checking ${file}\n`);
    try {
      out.write(`  SUCCESS: ${await check()}\n`);
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      failed = true;
      out.write(`  FAILED:\n${err.message.replace(/^/gm, "    ")}\n`);
    }
  }
  return failed ? 1 : 0;
}
