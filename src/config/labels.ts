/** Valid Prometheus label name, as the text format and PromQL accept it. */
export const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/**
 * Label names the exporter sets itself on some series; a static label with one of these names
 * would collide with them (or with what Prometheus attaches at scrape time).
 */
export const RESERVED_LABELS: ReadonlySet<string> = new Set([
  "source",
  "endpoint",
  "reason",
  "scrape_pool",
  "job",
  "instance",
  "health",
  "metric_name",
  "label_name",
  "label_value",
  "status",
  "peer_name",
  "peer_address",
  "version",
  "revision",
  "branch",
  "go_version",
  "build_user",
  "build_date",
  "config_sha256",
  "node_version",
]);
