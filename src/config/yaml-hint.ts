// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} is config syntax here, written as users write it
const HINT = "inside { } or [ ] a ${...} must be quoted";

/**
 * The fix for a YAML error at `offset` that is the `{` of an unquoted `${VAR}`: inside a flow map or
 * sequence YAML reads that brace as the start of a map. Names only keys and variable names, never
 * the rest of a value (it may hold a secret).
 */
export function envQuoteHint(text: string, offset: number): string | undefined {
  if (text[offset - 1] !== "$" || text[offset] !== "{") return undefined;
  const ref = /^\$\{[A-Za-z0-9_]*\}/.exec(text.slice(offset - 1))?.[0];
  if (ref === undefined) return HINT;
  const lineStart = text.lastIndexOf("\n", offset) + 1;
  const before = text.slice(lineStart, offset - 1);
  const after = text.slice(offset - 1 + ref.length);
  const alone = /^\s*(?:[,}\]]|$)/m.test(after);
  const key = /([A-Za-z_][\w.-]*):\s*$/.exec(before)?.[1];
  if (alone && key !== undefined) return `${HINT}: ${key}: "${ref}"`;
  if (alone && /[[,]\s*$/.test(before)) return `${HINT}: "${ref}"`;
  return `${HINT}, the whole value holding it: "...${ref}..."`;
}
