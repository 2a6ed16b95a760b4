import { SOURCE_FAMILIES } from "../convert/families.js";

/** Valid Prometheus label name, as the text format and PromQL accept it. */
export const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/**
 * Label names the exporter sets itself on a source's series; a static label with one of these names
 * would collide with them. Derived from the metric catalogue so the two cannot drift apart.
 */
export const RESERVED_LABELS: ReadonlySet<string> = new Set(["source", ...SOURCE_FAMILIES.flatMap((f) => f.labels)]);
