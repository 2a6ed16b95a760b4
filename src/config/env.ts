export interface EnvProblem {
  path: (string | number)[];
  message: string;
}

const REFERENCE = /\$\$|\$\{([^}]*)\}/g;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Replaces `${VAR}` in every string value of a parsed config with the environment variable's value
 * (`$$` stands for a literal `$`). Expanding values, not the raw text, keeps a variable's content from
 * changing the YAML structure. Unset or malformed references are reported with their field path.
 */
export function expandEnv(tree: unknown, env: NodeJS.ProcessEnv): { value: unknown; problems: EnvProblem[] } {
  const problems: EnvProblem[] = [];
  const walk = (node: unknown, path: (string | number)[]): unknown => {
    if (typeof node === "string") {
      return node.replace(REFERENCE, (match, name: string | undefined) => {
        if (match === "$$") return "$";
        if (!name || !ENV_NAME.test(name)) {
          problems.push({ path, message: `invalid environment variable reference "${match}"` });
          return match;
        }
        const value = env[name];
        if (value === undefined) {
          problems.push({ path, message: `environment variable ${name} is not set` });
          return match;
        }
        return value;
      });
    }
    if (Array.isArray(node)) return node.map((item, i) => walk(item, [...path, i]));
    if (node !== null && typeof node === "object") {
      return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, walk(v, [...path, k])]));
    }
    return node;
  };
  return { value: walk(tree, []), problems };
}
