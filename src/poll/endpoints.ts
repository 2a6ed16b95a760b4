import type { z } from "zod";
import type { Endpoint, SourceConfig } from "../config/types.js";
import { convertAlertmanagerStatus } from "../convert/alertmanager-status.js";
import type { SampleSet } from "../convert/samples.js";
import { convertTargets } from "../convert/targets.js";
import { convertTsdb } from "../convert/tsdb.js";
import { alertmanagerStatusResponse, targetsResponse, tsdbResponse } from "../upstream/payloads.js";

/** How one endpoint is asked for, checked and converted: one entry per concern. */
export interface EndpointSpec<T = unknown> {
  path: string;
  searchParams(source: SourceConfig): Record<string, string> | undefined;
  schema: z.ZodType<T>;
  convert(payload: T, source: SourceConfig): SampleSet;
}

const spec = <T>(s: EndpointSpec<T>) => s as EndpointSpec<unknown>;

export const ENDPOINTS: Record<Endpoint, EndpointSpec> = {
  tsdb: spec({
    path: "/api/v1/status/tsdb",
    searchParams: (s) => (s.tsdb.limit === undefined ? undefined : { limit: String(s.tsdb.limit) }),
    schema: tsdbResponse,
    convert: (payload, s) => convertTsdb(payload, s.tsdb.limit),
  }),
  targets: spec({
    path: "/api/v1/targets",
    searchParams: () => undefined,
    schema: targetsResponse,
    convert: (payload, s) => convertTargets(payload, s.targets.perTarget),
  }),
  status: spec({
    path: "/api/v2/status",
    searchParams: () => undefined,
    schema: alertmanagerStatusResponse,
    convert: (payload) => convertAlertmanagerStatus(payload),
  }),
};
