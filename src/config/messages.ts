/** Zod error for a scalar field: "is required" when the key is missing, `wrong` when it has another type. */
export const typeError = (wrong: string) => (issue: { input?: unknown }) =>
  issue.input === undefined ? "is required" : wrong;

/** The message for a key written with no value (YAML null) where a value of type `expected` belongs. */
export function emptyMessage(expected: string, message: string): string {
  if (expected === "object") return "is empty (expected settings under it)";
  if (expected === "record") return "is empty (expected entries under it; {} for none)";
  if (expected === "array") return "is empty (expected a list under it; [] for none)";
  // A custom message says what belongs there; zod's own says "expected string, received null".
  return `is empty (${message.startsWith("Invalid input") ? `expected ${expected}` : message})`;
}
