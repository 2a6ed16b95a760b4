import { dirname, resolve } from "node:path";
import { ConfigError } from "./config-error.js";
import { checkFiles } from "./files.js";
import { resolveConfig } from "./resolve.js";
import { configSchema } from "./schema.js";
import type { ExporterConfig } from "./types.js";
import { configWarnings } from "./warnings.js";
import { parseYaml, readConfigFile } from "./yaml-file.js";

export { ConfigError } from "./config-error.js";

/** Reads, expands, validates a config file and fills in defaults. Throws ConfigError. */
export async function loadConfig(file: string, env: NodeJS.ProcessEnv = process.env): Promise<ExporterConfig> {
  return parseConfig(await readConfigFile(file), file, env);
}

/**
 * Parses, expands and validates config text. `file` names it in messages and anchors relative paths.
 */
export function parseConfig(text: string, file: string, env: NodeJS.ProcessEnv = process.env): ExporterConfig {
  const { data, locate } = parseYaml(text, file, configSchema, env);
  const config = resolveConfig(data, dirname(resolve(file)));
  const fileProblems = checkFiles(config);
  if (fileProblems.length > 0)
    throw new ConfigError(
      file,
      fileProblems.map((p) => locate(p.path, p.message)),
    );
  const warnings = configWarnings(data).map((w) => ({ file, ...locate(w.path, w.message) }));
  return { ...config, warnings };
}
