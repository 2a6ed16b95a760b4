/** Zod error for a scalar field: "is required" when the key is missing, `wrong` when it has another type. */
export const typeError = (wrong: string) => (issue: { input?: unknown }) =>
  issue.input === undefined ? "is required" : wrong;
