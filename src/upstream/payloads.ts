import { z } from "zod";
import { schemaFields } from "./schema-fields.js";

// Schemas for the three upstream answers. They check only the fields the converters read, tolerate
// unknown fields (newer versions) and default the optional ones (older versions).

const nameValue = z.object({ name: z.string(), value: z.number() });
const nameValueList = z
  .array(nameValue)
  .nullish()
  .transform((list) => list ?? []);

// A top-level `warnings` array (Thanos Query): kept as given, whatever it holds; its strings are counted.
const answerWarnings = z.unknown().optional();

export const tsdbResponse = z.object({
  status: z.literal("success"),
  data: z.object({
    headStats: z
      .object({
        numSeries: z.number(),
        // In HeadStats since 2.2x (web/api/v1/api.go), missing from the API docs.
        numLabelPairs: z.number().optional(),
        chunkCount: z.number(),
        minTime: z.number(),
        maxTime: z.number(),
      })
      .optional(),
    // VictoriaMetrics instead of headStats: series and label pairs in the index of one day (today, UTC,
    // unless `date` is asked; app/vmselect/prometheus/tsdb_status_response.qtpl, v1.79.5 through v1.150.0).
    totalSeries: z.number().optional().catch(undefined),
    totalLabelValuePairs: z.number().optional().catch(undefined),
    seriesCountByMetricName: nameValueList,
    labelValueCountByLabelName: nameValueList,
    memoryInBytesByLabelName: nameValueList,
    seriesCountByLabelValuePair: nameValueList,
  }),
  warnings: answerWarnings,
});
export type TsdbResponse = z.infer<typeof tsdbResponse>;

// One target that relabelling or a bug left without a field must not invalidate the thousands of
// others: every field falls back to a neutral value (empty label values, health "unknown"), and an
// element that is not an object at all is skipped (null here, filtered out below).
export const activeTargetReference = z
  .object({
    labels: z.record(z.string(), z.string()).catch({}),
    scrapePool: z.string().catch(""),
    health: z.string().catch("unknown"),
    lastError: z.string().catch(""),
    lastScrape: z.string().optional().catch(undefined),
    lastScrapeDuration: z.number().optional().catch(undefined),
    // Since 2.30 (web/api/v1/api.go): Go durations such as "30s" or "1m30s".
    scrapeInterval: z.string().optional().catch(undefined),
    scrapeTimeout: z.string().optional().catch(undefined),
  })
  .nullable()
  .catch(null);
export type ActiveTarget = NonNullable<z.infer<typeof activeTargetReference>>;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const stringOr = <T>(value: unknown, fallback: T): string | T => (typeof value === "string" ? value : fallback);

/**
 * activeTargetReference by hand, for speed: zod checking 100k targets field by field cost ~0.5 s per
 * poll. Same result for every input (test/upstream/payloads.test.ts compares the two on random ones).
 * Labels are kept as the parsed object when every value is a string (no copy).
 */
export function normaliseActiveTarget(input: unknown): ActiveTarget | null {
  if (!isRecord(input)) return null;
  let labels: Record<string, string> = {};
  if (isRecord(input.labels)) {
    const given = input.labels;
    let allStrings = true;
    for (const key in given) {
      if (typeof given[key] !== "string") {
        allStrings = false;
        break;
      }
    }
    // An own "__proto__" key (JSON.parse makes one) is dropped, as the reference's copy drops it.
    if (allStrings)
      labels = Object.hasOwn(given, "__proto__") ? withoutProto(given) : (given as Record<string, string>);
  }
  const target: ActiveTarget = {
    labels,
    scrapePool: stringOr(input.scrapePool, ""),
    health: stringOr(input.health, "unknown"),
    lastError: stringOr(input.lastError, ""),
  };
  if (typeof input.lastScrape === "string") target.lastScrape = input.lastScrape;
  if (typeof input.lastScrapeDuration === "number" && Number.isFinite(input.lastScrapeDuration))
    target.lastScrapeDuration = input.lastScrapeDuration;
  if (typeof input.scrapeInterval === "string") target.scrapeInterval = input.scrapeInterval;
  if (typeof input.scrapeTimeout === "string") target.scrapeTimeout = input.scrapeTimeout;
  return target;
}

function withoutProto(labels: Record<string, unknown>): Record<string, string> {
  const copy: Record<string, string> = {};
  for (const key of Object.keys(labels)) if (key !== "__proto__") copy[key] = labels[key] as string;
  return copy;
}

function normaliseActiveTargets(list: readonly unknown[]): ActiveTarget[] {
  const out: ActiveTarget[] = [];
  for (const item of list) {
    const target = normaliseActiveTarget(item);
    if (target !== null) out.push(target);
  }
  return out;
}

export const targetsResponse = z.object({
  status: z.literal("success"),
  data: z.object({
    activeTargets: z
      .array(z.unknown())
      .nullish()
      .transform((list) => normaliseActiveTargets(list ?? [])),
    // Only counted, and only read where droppedTargetCounts is missing: not checked element by element
    // (a Kubernetes Prometheus may list hundreds of thousands).
    droppedTargets: z
      .array(z.unknown())
      .nullish()
      .transform((list) => list ?? []),
    // Since 2.47 (web/api/v1/api.go): dropped targets per pool, complete even when keep_dropped_targets
    // truncates the list; filled only when dropped targets are shown (state "", "any" or "dropped").
    droppedTargetCounts: z.record(z.string(), z.number()).nullish(),
  }),
  // Thanos Query: a store that failed the call (its targets are missing), HTTP 200 all the same
  // (pkg/api/api.go Respond at v0.42.4). Only the strings are read (convert/answer-warnings.ts).
  warnings: answerWarnings,
});
export type TargetsResponse = z.infer<typeof targetsResponse>;

const optionalString = z.string().optional().default("");

export const alertmanagerStatusResponse = z.object({
  cluster: z.object({
    name: z.string().optional(),
    status: z.string(),
    peers: z
      .array(z.object({ name: z.string(), address: z.string() }))
      .nullish()
      .transform((list) => list ?? []),
  }),
  config: z.object({ original: z.string() }),
  uptime: z.string(),
  versionInfo: z
    .object({
      version: optionalString,
      revision: optionalString,
      branch: optionalString,
      goVersion: optionalString,
      buildUser: optionalString,
      buildDate: optionalString,
    })
    .optional(),
});
export type AlertmanagerStatusResponse = z.infer<typeof alertmanagerStatusResponse>;

// Prometheus's other status endpoints (web/api/v1/api.go, 2.42 through 3.14): small answers, read whole.

const success = <T extends z.ZodType>(data: T) => z.object({ status: z.literal("success"), data });
const stringMap = z
  .record(z.string(), z.string())
  .nullish()
  .transform((map) => map ?? {});

/** GET /api/v1/status/config: the running configuration as Prometheus serialises it (secrets as <secret>). */
export const prometheusConfigResponse = success(z.object({ yaml: z.string() }));
export type PrometheusConfigResponse = z.infer<typeof prometheusConfigResponse>;

// One rule as loaded: alerting rules have duration, keepFiringFor (2.42+), labels and annotations;
// recording rules labels (omitted when empty before 3.0). Health: ok, err or unknown (rules/rule.go).
const ruleReference = z.object({
  type: z.string(),
  name: z.string(),
  query: z.string(),
  health: z.string().catch("unknown"),
  duration: z.number().optional(),
  keepFiringFor: z.number().optional(),
  labels: stringMap,
  annotations: stringMap,
});
export type PrometheusRule = z.infer<typeof ruleReference>;

/** GET /api/v1/rules: groups in the rule manager's order, each group's rules in file order. */
export const prometheusRulesResponse = success(
  z.object({
    groups: z
      .array(
        z.object({
          name: z.string(),
          file: z.string(),
          interval: z.number(),
          // Since 2.31; 0 for no limit.
          limit: z.number().optional(),
          rules: z
            .array(ruleReference)
            .nullish()
            .transform((list) => list ?? []),
        }),
      )
      .nullish()
      .transform((list) => list ?? []),
  }),
);
export type PrometheusRulesResponse = z.infer<typeof prometheusRulesResponse>;

/** GET /api/v1/status/flags: every flag by name (without --), its value as text. */
export const prometheusFlagsResponse = success(z.record(z.string(), z.string()));
export type PrometheusFlagsResponse = z.infer<typeof prometheusFlagsResponse>;

/** GET /api/v1/status/runtimeinfo (2.14+); serverTime since 3.2 (web/web.go, runtimeInfo). */
export const prometheusRuntimeInfoResponse = success(
  z.object({
    startTime: z.string().optional(),
    serverTime: z.string().optional(),
    reloadConfigSuccess: z.boolean().optional(),
    lastConfigTime: z.string().optional(),
  }),
);
export type PrometheusRuntimeInfoResponse = z.infer<typeof prometheusRuntimeInfoResponse>;

/** GET /api/v1/status/buildinfo (2.14+). */
export const prometheusBuildInfoResponse = success(
  z.object({
    version: optionalString,
    revision: optionalString,
    branch: optionalString,
    goVersion: optionalString,
    buildUser: optionalString,
    buildDate: optionalString,
  }),
);
export type PrometheusBuildInfoResponse = z.infer<typeof prometheusBuildInfoResponse>;

/** GET /api/v1/status/walreplay (2.28+): WAL segment numbers (tsdb/head.go, WALReplayStatus). */
export const prometheusWalReplayResponse = success(z.object({ min: z.number(), max: z.number(), current: z.number() }));
export type PrometheusWalReplayResponse = z.infer<typeof prometheusWalReplayResponse>;

/** GET /api/v1/features (3.9+): feature names by category, each true or false (util/features). */
export const prometheusFeaturesResponse = success(z.record(z.string(), z.record(z.string(), z.boolean())));
export type PrometheusFeaturesResponse = z.infer<typeof prometheusFeaturesResponse>;

/**
 * One line naming the first few mismatches in the schema's own words: the path with a key the answer
 * chose shown as `*`, and what was expected (never the value found: it is the upstream's text).
 */
export function describeMismatch(error: z.ZodError, schema: z.ZodType): string {
  const fields = schemaFields(schema);
  const segment = (key: PropertyKey) =>
    typeof key === "number" ? String(key) : typeof key === "string" && fields.has(key) ? key : "*";
  return error.issues
    .slice(0, 3)
    .map((i) => `${i.path.map(segment).join(".") || "(root)"}: ${expected(i)}`)
    .join("; ");
}

function expected(issue: z.core.$ZodIssue): string {
  if (issue.code === "invalid_type") return `expected ${issue.expected}`;
  if (issue.code === "invalid_value") return `expected ${issue.values.map((v) => JSON.stringify(v)).join(" or ")}`;
  return issue.code.replaceAll("_", " ");
}
