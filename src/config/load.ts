import { readFile } from "node:fs/promises";
import { dirname, resolve as resolvePath } from "node:path";
import { isNode, LineCounter, parseDocument } from "yaml";
import type { z } from "zod";
import { expandEnv } from "./env.js";
import { checkFiles } from "./files.js";
import { resolveConfig } from "./resolve.js";
import { configSchema } from "./schema.js";
import type { ExporterConfig } from "./types.js";

export interface ConfigProblem {
  /** Field path such as `sources[1].timeout`; empty for the file as a whole. */
  field: string;
  message: string;
  line?: number;
}

/** A config that cannot be used; its message names the file, each field and what is wrong. */
export class ConfigError extends Error {
  constructor(
    readonly file: string,
    readonly problems: ConfigProblem[],
  ) {
    super(problems.map((p) => formatProblem(file, p)).join("\n"));
    this.name = "ConfigError";
  }
}

function formatProblem(file: string, p: ConfigProblem): string {
  const where = p.line === undefined ? file : `${file}:${p.line}`;
  return p.field ? `${where}: ${p.field}: ${p.message}` : `${where}: ${p.message}`;
}

export function formatPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((out, key) => {
    if (typeof key === "number") return `${out}[${key}]`;
    return out ? `${out}.${String(key)}` : String(key);
  }, "");
}

/** Reads, parses and validates a config file, filling in defaults. Throws ConfigError. */
export async function loadConfig(file: string, env: NodeJS.ProcessEnv = process.env): Promise<ExporterConfig> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? "";
    throw new ConfigError(file, [{ field: "", message: `cannot read config file (${code || String(err)})` }]);
  }
  return parseConfig(text, file, env);
}

/**
 * Parses, expands and validates config text. `file` names it in messages and anchors relative paths.
 */
export function parseConfig(text: string, file: string, env: NodeJS.ProcessEnv = process.env): ExporterConfig {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, uniqueKeys: true, prettyErrors: false });
  if (doc.errors.length > 0) {
    throw new ConfigError(
      file,
      doc.errors.map((e) => ({
        field: "",
        message: `invalid YAML: ${e.message.split("\n")[0]}`,
        line: lineCounter.linePos(e.pos[0]).line,
      })),
    );
  }
  const located = (path: readonly PropertyKey[], message: string) => locate(path, message, doc, lineCounter);
  const expanded = expandEnv(doc.toJS() ?? {}, env);
  if (expanded.problems.length > 0) {
    throw new ConfigError(
      file,
      expanded.problems.map((p) => located(p.path, p.message)),
    );
  }
  const result = configSchema.safeParse(expanded.value);
  if (!result.success) {
    throw new ConfigError(
      file,
      result.error.issues.map((issue) => toProblem(issue, doc, lineCounter)),
    );
  }
  const config = resolveConfig(result.data, dirname(resolvePath(file)));
  const fileProblems = checkFiles(config);
  if (fileProblems.length > 0)
    throw new ConfigError(
      file,
      fileProblems.map((p) => located(p.path, p.message)),
    );
  return config;
}

function toProblem(issue: z.core.$ZodIssue, doc: ReturnType<typeof parseDocument>, lines: LineCounter): ConfigProblem {
  let path = issue.path;
  let message = issue.message;
  // Zod reports unknown keys on the parent object; point at the key itself.
  if (issue.code === "unrecognized_keys") {
    path = [...issue.path, issue.keys[0] as string];
    message = issue.keys.length === 1 ? "unknown field" : `unknown fields: ${issue.keys.join(", ")}`;
  }
  // Zod wraps problems with a record's key; the inner message says what is wrong.
  if (issue.code === "invalid_key" && issue.issues[0]) message = issue.issues[0].message;
  return locate(path, message, doc, lines);
}

/** A problem at a field path, with the line of that field in the file where it can be found. */
function locate(
  path: readonly PropertyKey[],
  message: string,
  doc: ReturnType<typeof parseDocument>,
  lines: LineCounter,
): ConfigProblem {
  const node = doc.getIn(path as unknown[], true);
  const offset = isNode(node) ? node.range?.[0] : undefined;
  const problem: ConfigProblem = { field: formatPath(path), message };
  if (offset !== undefined) problem.line = lines.linePos(offset).line;
  return problem;
}
