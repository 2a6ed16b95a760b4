// Every metric family the exporter derives from upstream answers: the contract with its users.
// Labels listed here come on top of `source` and the source's static labels.

export interface FamilyDef {
  name: string;
  help: string;
  type: "gauge" | "counter";
  labels: readonly string[];
}

const family = (name: string, help: string, labels: readonly string[] = [], type: FamilyDef["type"] = "gauge") =>
  ({ name, help, labels, type }) satisfies FamilyDef;

/** What each source is, one series per source. */
export const SOURCE = {
  info: family(
    "promstatus_source_info",
    "1, labelled with what the source is: its kind and flavor (the server behind the API: prometheus, victoriametrics, vmagent, thanos, mimir; configured, or detected from its answers, unknown until then).",
    ["kind", "flavor"],
  ),
} as const;

/** Series about the polling itself, one set per source and endpoint. */
export const POLL = {
  up: family("promstatus_up", "1 if the last poll of the endpoint succeeded, else 0.", ["endpoint"]),
  duration: family("promstatus_poll_duration_seconds", "How long the last poll of the endpoint took.", ["endpoint"]),
  lastSuccess: family(
    "promstatus_last_success_timestamp_seconds",
    "Unix time when the last successful poll of the endpoint finished.",
    ["endpoint"],
  ),
  failures: family(
    "promstatus_poll_failures_total",
    "Failed polls of the endpoint by reason.",
    ["endpoint", "reason"],
    "counter",
  ),
  fallbacks: family(
    "promstatus_poll_fallback_decodes_total",
    "Polls of the endpoint whose answer its fast reader left to the full JSON parser, at about twice the CPU.",
    ["endpoint"],
    "counter",
  ),
  warnings: family(
    "promstatus_answer_warnings",
    "Warnings in the endpoint's last answer (Thanos Query: a store that did not answer, whose targets or figures are missing from it).",
    ["endpoint"],
  ),
  duplicates: family(
    "promstatus_answer_duplicates_total",
    "Entries of the endpoint's answers left out because an earlier entry gave a series with the same name and labels (the first is kept; targets sharing their labels are merged instead, see promstatus_target_collisions).",
    ["endpoint"],
    "counter",
  ),
  supported: family(
    "promstatus_endpoint_supported",
    "1 if the server has the endpoint, 0 if it answered that it lacks it (404, or 422 in agent mode): an older version or agent mode; the poll then counts as succeeded.",
    ["endpoint"],
  ),
} as const;

// A Thanos Query source's tsdb figures carry aggregation="sum_over_stores" (convert/tsdb.ts): the label
// is listed so that no static label may take its name.
const SUMMED = ["aggregation"] as const;

export const TSDB = {
  headSeries: family("promstatus_tsdb_head_series", "Series in the TSDB head (headStats.numSeries).", SUMMED),
  headChunks: family("promstatus_tsdb_head_chunks", "Chunks in the TSDB head (headStats.chunkCount).", SUMMED),
  headMinTime: family(
    "promstatus_tsdb_head_min_time_seconds",
    "Oldest sample time in the TSDB head; absent when the head is empty.",
    SUMMED,
  ),
  headMaxTime: family(
    "promstatus_tsdb_head_max_time_seconds",
    "Newest sample time in the TSDB head; absent when the head is empty.",
    SUMMED,
  ),
  metricSeries: family("promstatus_tsdb_metric_series", "Head series per metric name (top entries).", [
    "metric_name",
    ...SUMMED,
  ]),
  labelValues: family("promstatus_tsdb_label_values", "Distinct values per label name (top entries).", [
    "label_name",
    ...SUMMED,
  ]),
  labelMemory: family(
    "promstatus_tsdb_label_memory_bytes",
    "Memory used by the values of each label name (top entries).",
    ["label_name", ...SUMMED],
  ),
  labelPairSeries: family("promstatus_tsdb_label_pair_series", "Head series per label name/value pair (top entries).", [
    "label_name",
    "label_value",
    ...SUMMED,
  ]),
  headLabelPairs: family(
    "promstatus_tsdb_head_label_pairs",
    "Distinct label name/value pairs in the TSDB head (headStats.numLabelPairs); absent where not reported.",
    SUMMED,
  ),
  daySeries: family(
    "promstatus_tsdb_day_series",
    "Series in the index for the current day (VictoriaMetrics' totalSeries); not a head count.",
    SUMMED,
  ),
  dayLabelPairs: family(
    "promstatus_tsdb_day_label_pairs",
    "Distinct label name/value pairs in the index for the current day (VictoriaMetrics' totalLabelValuePairs).",
    SUMMED,
  ),
  agentMode: family(
    "promstatus_prometheus_agent_mode",
    "1 if the Prometheus runs in agent mode (it has no TSDB status to report), else 0.",
  ),
} as const;

const TARGET_LABELS = ["scrape_pool", "job", "instance"] as const;

export const TARGETS = {
  up: family(
    "promstatus_target_up",
    "1 if the target's health is up, 0 if down; absent while unknown (not scraped yet).",
    TARGET_LABELS,
  ),
  scrapeDuration: family(
    "promstatus_target_scrape_duration_seconds",
    "Duration of the target's last scrape; absent for a target never scraped.",
    TARGET_LABELS,
  ),
  lastScrape: family(
    "promstatus_target_last_scrape_timestamp_seconds",
    "Unix time of the target's last scrape; absent for a target never scraped.",
    TARGET_LABELS,
  ),
  scrapeInterval: family(
    "promstatus_target_scrape_interval_seconds",
    "The target's scrape interval; absent where the server does not report it (before 2.30).",
    TARGET_LABELS,
  ),
  scrapeTimeout: family(
    "promstatus_target_scrape_timeout_seconds",
    "The target's scrape timeout; absent where the server does not report it (before 2.30).",
    TARGET_LABELS,
  ),
  collisions: family(
    "promstatus_target_collisions",
    "Active targets merged into another target's series because they share all per-target labels.",
    ["scrape_pool"],
  ),
  count: family("promstatus_targets", "Active targets per scrape pool and health.", ["scrape_pool", "health"]),
  downByReason: family(
    "promstatus_targets_down_by_reason",
    "Down targets per scrape pool by the class of their last scrape error.",
    ["scrape_pool", "reason"],
  ),
  dropped: family("promstatus_targets_dropped", "Targets dropped by relabelling, per scrape pool.", ["scrape_pool"]),
} as const;

export const ALERTMANAGER = {
  peers: family("promstatus_alertmanager_cluster_peers", "Peers in the Alertmanager cluster, this one included."),
  clusterStatus: family(
    "promstatus_alertmanager_cluster_status",
    "1 for the current cluster status, 0 for the other known values.",
    ["status"],
  ),
  peerInfo: family("promstatus_alertmanager_peer_info", "One series per cluster peer.", ["peer_name", "peer_address"]),
  startTime: family("promstatus_alertmanager_start_time_seconds", "Unix time when the Alertmanager started."),
  buildInfo: family("promstatus_alertmanager_build_info", "Build information reported by the Alertmanager.", [
    "version",
    "revision",
    "branch",
    "go_version",
    "build_user",
    "build_date",
  ]),
  receivers: family("promstatus_alertmanager_config_receivers", "Receivers in the running configuration."),
  routes: family(
    "promstatus_alertmanager_config_routes",
    "Nodes of the route tree in the running configuration, the root included.",
  ),
  inhibitRules: family("promstatus_alertmanager_config_inhibit_rules", "Inhibit rules in the running configuration."),
  templates: family("promstatus_alertmanager_config_templates", "Template paths in the running configuration."),
  configInfo: family(
    "promstatus_alertmanager_config_info",
    "1, labelled with the SHA-256 of the running configuration text.",
    ["config_sha256"],
  ),
} as const;

/** From the status endpoints of a Prometheus (config, rules, flags, runtimeinfo, buildinfo, walreplay, features). */
export const PROMETHEUS = {
  configInfo: family(
    "promstatus_prometheus_config_info",
    "1, labelled with the SHA-256 of the running configuration (canonicalised YAML, replica external labels left out).",
    ["sha256"],
  ),
  reloadSuccess: family(
    "promstatus_prometheus_config_last_reload_successful",
    "1 if the last configuration reload succeeded, else 0 (runtimeinfo reloadConfigSuccess).",
  ),
  reloadTime: family(
    "promstatus_prometheus_config_last_reload_success_timestamp_seconds",
    "Unix time of the last successful configuration reload (runtimeinfo lastConfigTime).",
  ),
  startTime: family("promstatus_prometheus_start_time_seconds", "Unix time when the Prometheus started."),
  clockSkew: family(
    "promstatus_prometheus_clock_skew_seconds",
    "The server's clock minus the exporter's at the midpoint of the request (positive: the server is ahead); absent before Prometheus 3.2.",
  ),
  clockSkewUncertainty: family(
    "promstatus_prometheus_clock_skew_uncertainty_seconds",
    "Half the duration of the request the clock skew was measured with: the skew is exact to within this.",
  ),
  rules: family("promstatus_prometheus_rules", "Rules by type (alerting, recording) and health (ok, err, unknown).", [
    "type",
    "health",
  ]),
  ruleGroups: family("promstatus_prometheus_rule_groups", "Rule groups loaded."),
  rulesInfo: family(
    "promstatus_prometheus_rules_info",
    "1, labelled with the SHA-256 of the rule set as loaded (groups, files, intervals, rules; not their evaluation).",
    ["sha256"],
  ),
  flagsInfo: family(
    "promstatus_prometheus_flags_info",
    "1, labelled with the SHA-256 of the command-line flags, those that differ per replica left out.",
    ["sha256"],
  ),
  buildInfo: family("promstatus_prometheus_build_info", "Build information reported by the Prometheus.", [
    "version",
    "revision",
    "branch",
    "go_version",
    "build_user",
    "build_date",
  ]),
  walReplayProgress: family(
    "promstatus_prometheus_wal_replay_progress",
    "Progress of the WAL replay from 0 to 1 (segments replayed of those to replay); 1 once replayed or with nothing to replay.",
  ),
  ready: family(
    "promstatus_prometheus_ready",
    "1 if the Prometheus is ready (its API answers), 0 while its readiness gate answers 503 (starting up or shutting down).",
  ),
  featuresInfo: family(
    "promstatus_prometheus_features_info",
    "1, labelled with the SHA-256 of the features the server reports (Prometheus 3.9+).",
    ["sha256"],
  ),
} as const;

/** One set per replica group: labels listed here come on top of `group` (and nothing else). */
export const GROUP = {
  sources: family("promstatus_group_sources", "Sources configured in the replica group."),
  sourcesUp: family(
    "promstatus_group_sources_up",
    "Members of the group whose last poll of every enabled endpoint succeeded.",
  ),
  clusterViews: family(
    "promstatus_group_alertmanager_cluster_views",
    "Distinct peer sets among the answering members: 1 when they agree, more for a partition or a member that never joined.",
  ),
  missingPeers: family(
    "promstatus_group_alertmanager_missing_peers",
    "Other answering members of the group absent from this member's peer list.",
    ["source"],
  ),
  configVersions: family(
    "promstatus_group_alertmanager_config_versions",
    "Distinct configuration hashes among the answering members.",
  ),
  versions: family(
    "promstatus_group_alertmanager_versions",
    "Distinct Alertmanager versions among the answering members.",
  ),
  targetSets: family(
    "promstatus_group_prometheus_target_sets",
    "Distinct sets of active targets (scrape pool and per-target labels) among the answering members.",
  ),
  targetsMissing: family(
    "promstatus_group_prometheus_targets_missing",
    "Targets that another answering member has and this member lacks.",
    ["source"],
  ),
  healthDisagreements: family(
    "promstatus_group_prometheus_health_disagreements",
    "Targets up on one answering member and down on another.",
  ),
  prometheusConfigVersions: family(
    "promstatus_group_prometheus_config_versions",
    "Distinct configuration hashes (replica external labels left out) among the members whose config endpoint answered.",
  ),
  prometheusRuleVersions: family(
    "promstatus_group_prometheus_rule_versions",
    "Distinct rule-set hashes among the members whose rules endpoint answered.",
  ),
  prometheusFlagVersions: family(
    "promstatus_group_prometheus_flag_versions",
    "Distinct flag hashes (per-replica flags left out) among the members whose flags endpoint answered.",
  ),
  prometheusVersions: family(
    "promstatus_group_prometheus_versions",
    "Distinct Prometheus versions among the members whose buildinfo endpoint answered.",
  ),
} as const;

export const GROUP_FAMILIES: readonly FamilyDef[] = Object.values(GROUP);

/** All families derived from upstream answers, in exposition order. */
export const SOURCE_FAMILIES: readonly FamilyDef[] = [
  ...Object.values(SOURCE),
  ...Object.values(POLL),
  ...Object.values(TSDB),
  ...Object.values(TARGETS),
  ...Object.values(ALERTMANAGER),
  ...Object.values(PROMETHEUS),
];
