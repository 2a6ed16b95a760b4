import type { z } from "zod";
import type { Endpoint } from "../config/types.js";
import { convertAlertmanagerStatus } from "../convert/alertmanager-status.js";
import { alertmanagerFacts, prometheusFacts, type ReplicaFacts } from "../convert/replica-facts.js";
import type { SampleSet } from "../convert/samples.js";
import { convertTargets } from "../convert/targets.js";
import { convertTsdb } from "../convert/tsdb.js";
import { alertmanagerStatusResponse, targetsResponse, tsdbResponse } from "../upstream/payloads.js";
import type { ConvertOptions } from "./decode-types.js";

// The reference path of each endpoint: the whole answer checked against its schema and converted to
// samples. Apart from the endpoint table so that a thread that only streams never loads the schemas.

/** How a whole answer of one endpoint is checked and converted. */
export interface ReferenceSpec<T = unknown> {
  schema: z.ZodType<T>;
  convert(payload: T, options: ConvertOptions): SampleSet;
  /** What replicas of a group are compared by, from this endpoint's answer (one endpoint per kind). */
  facts?(payload: T, options: ConvertOptions): ReplicaFacts;
}

const spec = <T>(s: ReferenceSpec<T>) => s as ReferenceSpec<unknown>;

export const REFERENCE: Record<Endpoint, ReferenceSpec> = {
  tsdb: spec({ schema: tsdbResponse, convert: (payload, o) => convertTsdb(payload, o.limit) }),
  targets: spec({
    schema: targetsResponse,
    convert: (payload, o) => convertTargets(payload, { perTarget: o.perTarget, extraLabels: o.targetLabels }),
    facts: (payload, o) => prometheusFacts(payload, o.targetLabels),
  }),
  status: spec({
    schema: alertmanagerStatusResponse,
    convert: (payload) => convertAlertmanagerStatus(payload),
    facts: (payload) => alertmanagerFacts(payload),
  }),
};
