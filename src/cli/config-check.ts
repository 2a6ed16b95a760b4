import { ConfigError, formatProblem } from "../config/config-error.js";
import { loadConfig } from "../config/load.js";
import { loadWebConfig } from "../http/web-config.js";
import type { Flags } from "./flags.js";

interface Checked {
  summary: string;
  /** file:line: field: message, each; a warning does not fail the check. */
  warnings?: string[];
}

/**
 * `--config.check`, like `promtool check config`: validates each file, prints every problem and
 * warning (file, line, field, message; never a value's secret) and returns the exit code.
 */
export async function checkConfig(flags: Flags, out: NodeJS.WritableStream): Promise<number> {
  const checks: [string, () => Promise<Checked>][] = [
    [
      flags.configFile,
      async () => {
        const { sources, modules, warnings } = await loadConfig(flags.configFile);
        // An exporter that only answers /probe: what it answers with is its modules.
        const probeOnly = sources.length === 0 ? `; probe modules: ${[...modules.keys()].join(", ")}` : "";
        return {
          summary: `${sources.length} source${sources.length === 1 ? "" : "s"} found${probeOnly}`,
          warnings: warnings.map((w) => formatProblem(w.file, w)),
        };
      },
    ],
  ];
  if (flags.webConfigFile) {
    const file = flags.webConfigFile;
    checks.push([
      file,
      async () => {
        const web = await loadWebConfig(file);
        const users = web.users.size;
        return { summary: `TLS ${web.tls ? "on" : "off"}, ${users} basic auth user${users === 1 ? "" : "s"}` };
      },
    ]);
  }
  let failed = false;
  for (const [file, check] of checks) {
    out.write(`Checking ${file}\n`);
    try {
      const { summary, warnings = [] } = await check();
      for (const warning of warnings) out.write(`  WARNING: ${warning}\n`);
      out.write(`  SUCCESS: ${summary}\n`);
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      failed = true;
      out.write(`  FAILED:\n${err.message.replace(/^/gm, "    ")}\n`);
    }
  }
  return failed ? 1 : 0;
}
