import { SOURCE_FAMILIES } from "../catalogue/families.js";

/** Valid Prometheus label name, as the text format and PromQL accept it. */
export const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/**
 * Label names the exporter sets itself on a source's series; a static label with one of these names
 * would collide with them. Derived from the metric catalogue so the two cannot drift apart.
 */
export const RESERVED_LABELS: ReadonlySet<string> = new Set([
  "source",
  "group",
  ...SOURCE_FAMILIES.flatMap((f) => f.labels),
]);

/**
 * The name a target label is served under. The text format the exporter serves (0.0.4) takes only
 * legacy names, while Prometheus 3.x allows any UTF-8 label name: other characters become `_` and a
 * leading digit gets a `_` before it, as Prometheus's own "underscores" escaping does.
 */
export function servedLabelName(name: string): string {
  const safe = name.replace(/[^a-zA-Z0-9_]/g, "_");
  return /^[0-9]/.test(safe) ? `_${safe}` : safe;
}
