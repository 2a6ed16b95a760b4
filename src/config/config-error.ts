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

/** A config that is used, but probably does not say what was meant; told at load, never refused. */
export interface ConfigWarning extends ConfigProblem {
  file: string;
}

/** `file:line: field: message`, as every config problem and warning is told. */
export function formatProblem(file: string, p: ConfigProblem): string {
  const where = p.line === undefined ? file : `${file}:${p.line}`;
  return p.field ? `${where}: ${p.field}: ${p.message}` : `${where}: ${p.message}`;
}

export function formatPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((out, key) => {
    if (typeof key === "number") return `${out}[${key}]`;
    return out ? `${out}.${String(key)}` : String(key);
  }, "");
}
