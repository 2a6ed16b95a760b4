import type { z } from "zod";
import type { Endpoint, SourceConfig } from "../config/types.js";
import { convertAlertmanagerStatus } from "../convert/alertmanager-status.js";
import type { SampleSet } from "../convert/samples.js";
import { convertTargets } from "../convert/targets.js";
import { convertTsdb } from "../convert/tsdb.js";
import { alertmanagerStatusResponse, targetsResponse, tsdbResponse } from "../upstream/payloads.js";

/** What converters need from a source's config (plain data: it crosses to worker threads). */
export interface ConvertOptions {
  perTarget: boolean;
  limit: number | undefined;
}

export interface SourceHints {
  /** The server reports droppedTargetCounts, so dropped targets need not be listed. */
  droppedCounts: boolean;
}

/** How one endpoint is asked for, checked and converted: one entry per concern. */
export interface EndpointSpec<T = unknown> {
  path: string;
  searchParams(source: SourceConfig, hints: SourceHints): Record<string, string> | undefined;
  schema: z.ZodType<T>;
  convert(payload: T, options: ConvertOptions): SampleSet;
  /** What an answer tells about the server, for how to ask next time. */
  learn?(payload: T): Partial<SourceHints>;
}

const spec = <T>(s: EndpointSpec<T>) => s as EndpointSpec<unknown>;

export const ENDPOINTS: Record<Endpoint, EndpointSpec> = {
  tsdb: spec({
    path: "/api/v1/status/tsdb",
    searchParams: (s) => (s.tsdb.limit === undefined ? undefined : { limit: String(s.tsdb.limit) }),
    schema: tsdbResponse,
    convert: (payload, o) => convertTsdb(payload, o.limit),
  }),
  targets: spec({
    path: "/api/v1/targets",
    // Dropped targets are only counted: skip listing them where the server counts them itself.
    searchParams: (_s, hints) => (hints.droppedCounts ? { state: "active" } : undefined),
    schema: targetsResponse,
    convert: (payload, o) => convertTargets(payload, o.perTarget),
    learn: (payload) => ({ droppedCounts: payload.data.droppedTargetCounts != null }),
  }),
  status: spec({
    path: "/api/v2/status",
    searchParams: () => undefined,
    schema: alertmanagerStatusResponse,
    convert: (payload) => convertAlertmanagerStatus(payload),
  }),
};
