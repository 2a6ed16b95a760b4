import { readFile } from "node:fs/promises";
import { isAbsolute } from "node:path";
import { isNode, LineCounter, parseDocument } from "yaml";
import type { z } from "zod";
import { ConfigError, type ConfigProblem, formatPath } from "./config-error.js";
import { expandEnv } from "./env.js";
import { emptyMessage } from "./messages.js";
import { envQuoteHint } from "./yaml-hint.js";

/** What the usual failures to read a file mean. */
const READ_ERRORS: Record<string, string> = {
  ENOENT: "no such file",
  EISDIR: "a directory, not a file",
  EACCES: "permission denied to this process",
  ENOTDIR: "a part of the path is not a directory",
};

export type Locate = (path: readonly PropertyKey[], message: string) => ConfigProblem;

/** Reads a config file, or throws a ConfigError naming it. */
export async function readConfigFile(file: string): Promise<string> {
  try {
    return await readFile(file, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? "";
    const why = READ_ERRORS[code];
    // A relative path is read from the working directory, which is not always the one expected.
    const where = isAbsolute(file) ? "" : ` (relative to the working directory ${process.cwd()})`;
    const message = `cannot read config file (${code || String(err)})${why ? `: ${why}${where}` : ""}`;
    throw new ConfigError(file, [{ field: "", message }]);
  }
}

/**
 * Parses YAML text and validates it against a schema. Every problem names the field path and, where
 * the field is in the file, its line; `locate` does the same for checks made after the schema.
 */
export function parseYaml<T>(
  text: string,
  file: string,
  schema: z.ZodType<T>,
  env?: NodeJS.ProcessEnv,
): { data: T; locate: Locate } {
  const lines = new LineCounter();
  // Warnings would go to stderr through process.emitWarning, quoting the text (secrets included).
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true, prettyErrors: false, logLevel: "error" });
  if (doc.errors.length > 0) {
    const problems: ConfigProblem[] = [];
    const hinted = new Set<number>();
    for (const e of doc.errors) {
      const line = lines.linePos(e.pos[0]).line;
      // The errors after an unquoted ${VAR} on its line follow from it: its hint says it all.
      if (hinted.has(line)) continue;
      const hint = envQuoteHint(text, e.pos[0]);
      if (hint) hinted.add(line);
      const message = `invalid YAML: ${e.message.split("\n")[0]}${hint ? `; ${hint}` : ""}`;
      problems.push({ field: "", message, line });
    }
    throw new ConfigError(file, problems);
  }
  const locate: Locate = (path, message) => {
    // A missing key (`name: is required`) is not in the file: its map's line is the place to look.
    let offset: number | undefined;
    for (let n = path.length; n >= 0 && offset === undefined; n--) {
      const node = doc.getIn(path.slice(0, n) as unknown[], true);
      if (isNode(node) && (n > 0 || path.length === 0)) offset = node.range?.[0];
    }
    const problem: ConfigProblem = { field: formatPath(path), message };
    if (offset !== undefined) problem.line = lines.linePos(offset).line;
    return problem;
  };
  let tree: unknown = doc.toJS() ?? {};
  if (env) {
    const expanded = expandEnv(tree, env);
    if (expanded.problems.length > 0) {
      throw new ConfigError(
        file,
        expanded.problems.map((p) => locate(p.path, p.message)),
      );
    }
    tree = expanded.value;
  }
  const result = schema.safeParse(tree);
  if (!result.success)
    throw new ConfigError(file, byLine(result.error.issues.map((issue) => toProblem(issue, locate, tree))));
  return { data: result.data, locate };
}

function toProblem(issue: z.core.$ZodIssue, locate: Locate, tree: unknown): ConfigProblem {
  let path = issue.path;
  let message = issue.message;
  // Zod reports unknown keys on the parent object; point at the key itself.
  if (issue.code === "unrecognized_keys") {
    path = [...issue.path, issue.keys[0] as string];
    message = issue.keys.length === 1 ? "unknown field" : `unknown fields: ${issue.keys.join(", ")}`;
  }
  // Zod wraps problems with a record's key; the inner message says what is wrong.
  if (issue.code === "invalid_key" && issue.issues[0]) message = issue.issues[0].message;
  // A key written with nothing after it is null to YAML: say it is empty, not "received null".
  if (issue.code === "invalid_type" && issue.expected !== "undefined" && valueAt(tree, issue.path) === null)
    message = emptyMessage(issue.expected, issue.message);
  // Zod's own words ("Invalid input: expected boolean, received string") in the file's terms.
  else if (issue.code === "invalid_type" && message.startsWith("Invalid input"))
    message = `must be ${TYPE_WORDS[issue.expected] ?? issue.expected}, got ${describeValue(valueAt(tree, issue.path))}`;
  return locate(path, message);
}

function valueAt(tree: unknown, path: readonly PropertyKey[]): unknown {
  let node = tree;
  for (const key of path) {
    if (node === null || typeof node !== "object") return undefined;
    node = (node as Record<PropertyKey, unknown>)[key];
  }
  return node;
}

/** Problems in the order of their lines in the file (those without a line last, as found). */
const byLine = (problems: ConfigProblem[]): ConfigProblem[] =>
  problems
    .map((problem, i) => ({ problem, i }))
    .sort((a, b) => (a.problem.line ?? Infinity) - (b.problem.line ?? Infinity) || a.i - b.i)
    .map(({ problem }) => problem);

/** What a type zod expected is called in a YAML file. */
const TYPE_WORDS: Record<string, string> = {
  boolean: "true or false",
  number: "a number",
  string: "a string",
  object: "a map of settings",
  record: "a map",
  array: "a list",
};

/** A value as a message names it: by kind, never as written (it may be a secret of the wrong type). */
function describeValue(value: unknown): string {
  if (value === undefined) return "nothing";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object" && value !== null) return "a map";
  if (typeof value === "boolean") return String(value);
  return `a ${typeof value}`;
}
