import type { z } from "zod";
import type { Endpoint } from "../config/types.js";
import { convertAlertmanagerStatus } from "../convert/alertmanager-status.js";
import { answerWarnings } from "../convert/answer-warnings.js";
import { convertPrometheusBuildInfo, prometheusBuildFacts } from "../convert/prometheus-build.js";
import { convertPrometheusConfig, prometheusConfigFacts } from "../convert/prometheus-config.js";
import { convertPrometheusFeatures } from "../convert/prometheus-features.js";
import { convertPrometheusFlags, prometheusFlagsFacts } from "../convert/prometheus-flags.js";
import { convertPrometheusRules, prometheusRulesFacts } from "../convert/prometheus-rules.js";
import { convertPrometheusRuntimeInfo } from "../convert/prometheus-runtime.js";
import { convertPrometheusWalReplay } from "../convert/prometheus-walreplay.js";
import { alertmanagerFacts, prometheusFacts, type ReplicaFacts } from "../convert/replica-facts.js";
import type { SampleSet } from "../convert/samples.js";
import { convertTargets } from "../convert/targets.js";
import { convertTsdb } from "../convert/tsdb.js";
import {
  alertmanagerStatusResponse,
  prometheusBuildInfoResponse,
  prometheusConfigResponse,
  prometheusFeaturesResponse,
  prometheusFlagsResponse,
  prometheusRulesResponse,
  prometheusRuntimeInfoResponse,
  prometheusWalReplayResponse,
  targetsResponse,
  tsdbResponse,
} from "../upstream/payloads.js";
import type { ConvertOptions } from "./decode-types.js";

// The reference path of each endpoint: the whole answer checked against its schema and converted to
// samples. Apart from the endpoint table so that a thread that only streams never loads the schemas.

/** How a whole answer of one endpoint is checked and converted. */
export interface ReferenceSpec<T = unknown> {
  schema: z.ZodType<T>;
  convert(payload: T, options: ConvertOptions): SampleSet;
  /** What replicas of a group are compared by, from this endpoint's answer. */
  facts?(payload: T, options: ConvertOptions): ReplicaFacts;
  /** The answer's warnings for the log (Thanos Query's), distinct and bounded (convert/answer-warnings.ts). */
  warnings?(payload: T): string[];
}

const warningsOf = (payload: { warnings?: unknown }) => answerWarnings(payload.warnings).distinct;

const spec = <T>(s: ReferenceSpec<T>) => s as ReferenceSpec<unknown>;

const replicaLabels = (o: ConvertOptions) => o.replicaLabels ?? [];

export const REFERENCE: Record<Endpoint, ReferenceSpec> = {
  tsdb: spec({
    schema: tsdbResponse,
    convert: (payload, o) => convertTsdb(payload, o.limit, o.flavor),
    warnings: (payload) => warningsOf(payload),
  }),
  targets: spec({
    schema: targetsResponse,
    convert: (payload, o) =>
      convertTargets(payload, { perTarget: o.perTarget, extraLabels: o.targetLabels, flavor: o.flavor }),
    facts: (payload, o) => prometheusFacts(payload, o.targetLabels),
    warnings: (payload) => warningsOf(payload),
  }),
  status: spec({
    schema: alertmanagerStatusResponse,
    convert: (payload) => convertAlertmanagerStatus(payload),
    facts: (payload) => alertmanagerFacts(payload),
  }),
  config: spec({
    schema: prometheusConfigResponse,
    convert: (payload, o) => convertPrometheusConfig(payload, replicaLabels(o)),
    facts: (payload, o) => prometheusConfigFacts(payload, replicaLabels(o)),
  }),
  rules: spec({
    schema: prometheusRulesResponse,
    convert: (payload) => convertPrometheusRules(payload),
    facts: (payload) => prometheusRulesFacts(payload),
  }),
  flags: spec({
    schema: prometheusFlagsResponse,
    convert: (payload, o) => convertPrometheusFlags(payload, o.flagsIgnore),
    facts: (payload, o) => prometheusFlagsFacts(payload, o.flagsIgnore),
  }),
  runtimeinfo: spec({
    schema: prometheusRuntimeInfoResponse,
    convert: (payload, o) => convertPrometheusRuntimeInfo(payload, o.request),
  }),
  buildinfo: spec({
    schema: prometheusBuildInfoResponse,
    convert: (payload) => convertPrometheusBuildInfo(payload),
    facts: (payload) => prometheusBuildFacts(payload),
  }),
  walreplay: spec({ schema: prometheusWalReplayResponse, convert: (payload) => convertPrometheusWalReplay(payload) }),
  features: spec({ schema: prometheusFeaturesResponse, convert: (payload) => convertPrometheusFeatures(payload) }),
};
