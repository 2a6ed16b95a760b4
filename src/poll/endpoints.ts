import type { z } from "zod";
import type { Endpoint, SourceConfig } from "../config/types.js";
import { convertAlertmanagerStatus } from "../convert/alertmanager-status.js";
import { alertmanagerFacts, prometheusFacts, type ReplicaFacts } from "../convert/replica-facts.js";
import type { SampleSet } from "../convert/samples.js";
import { convertTargets, type TargetLabel } from "../convert/targets.js";
import { agentModeSamples, convertTsdb } from "../convert/tsdb.js";
import type { RenderedFamilies } from "../exposition/text-format.js";
import { alertmanagerStatusResponse, targetsResponse, tsdbResponse } from "../upstream/payloads.js";
import type { FailureReason, PollError } from "../upstream/poll-error.js";
import type { DecodeOptions } from "./decode.js";
import { TargetsDecoder } from "./targets-fast-path.js";

/** What converters need from a source's config (plain data: it crosses to worker threads). */
export interface ConvertOptions {
  /** The source is in a replica group: also keep what its members are compared by. */
  replicaFacts: boolean;
  perTarget: boolean;
  limit: number | undefined;
  targetLabels: readonly TargetLabel[];
  /** The most active targets a streamed answer may list: set by the decoder pool from its threads' heap. */
  maxTargets?: number;
}

/** What a fast path gives: the rendered lines, their sample count, and replica facts if asked for. */
export interface FastDecoded {
  families: RenderedFamilies;
  series: number;
  facts?: ReplicaFacts;
}

/** Reads an answer chunk by chunk; `write` says false once it has given up (further chunks are ignored). */
export interface ChunkDecoder {
  write(chunk: Uint8Array): boolean;
  /** The result, or undefined when the reader gave up or the answer was refused. */
  finish(): FastDecoded | undefined;
  /** Why the answer is refused outright (not left to the reference path), if it is. */
  refusal(): { reason: FailureReason; message: string } | undefined;
}

/** A refusal that is an answer: the server says what it is, rather than that something failed. */
export interface Recognised {
  samples: SampleSet;
  /** Said in the log once per source, with what to do about it. */
  notice: string;
}

/** How one endpoint is asked for, checked and converted: one entry per concern. */
export interface EndpointSpec<T = unknown> {
  path: string;
  searchParams(source: SourceConfig): Record<string, string> | undefined;
  schema: z.ZodType<T>;
  /**
   * A streaming way from the answer's bytes to its rendered lines, for its common shape: chunks are read
   * as they arrive, and the result is that of the reference path (JSON.parse, schema, convert, facts,
   * renderSampleSet), or undefined to let that path decide (its result or error stands).
   */
  stream?(options: DecodeOptions): ChunkDecoder;
  convert(payload: T, options: ConvertOptions): SampleSet;

  /** What replicas of a group are compared by, from this endpoint's answer (one endpoint per kind). */
  facts?(payload: T, options: ConvertOptions): ReplicaFacts;
  /** Error answers that tell something about the server; undefined for a real failure. */
  recognise?(error: PollError): Recognised | undefined;
}

const spec = <T>(s: EndpointSpec<T>) => s as EndpointSpec<unknown>;

// web/api/v1/api.go (2.32 through 3.x): in agent mode the tsdb status is wrapped by wrapAgent, which
// answers errorExec "unavailable with Prometheus Agent", and errorExec maps to HTTP 422.
const AGENT_REFUSAL = /unavailable with Prometheus Agent/;

export const ENDPOINTS: Record<Endpoint, EndpointSpec> = {
  tsdb: spec({
    path: "/api/v1/status/tsdb",
    searchParams: (s) => (s.tsdb.limit === undefined ? undefined : { limit: String(s.tsdb.limit) }),
    schema: tsdbResponse,
    convert: (payload, o) => convertTsdb(payload, o.limit),
    recognise: (error) =>
      error.status === 422 && AGENT_REFUSAL.test(error.message)
        ? {
            samples: agentModeSamples(),
            notice:
              "this Prometheus runs in agent mode and has no TSDB status; its targets are still polled. " +
              "Set `tsdb: {enabled: false}` for this source to stop asking.",
          }
        : undefined,
  }),
  targets: spec({
    path: "/api/v1/targets",
    // No `state`: 2.47-3.x fill droppedTargetCounts only when dropped targets are shown as well
    // (web/api/v1/api.go, showDropped), so asking for active targets only would lose the counts.
    searchParams: () => undefined,
    schema: targetsResponse,
    stream: (options) => new TargetsDecoder(options),
    convert: (payload, o) => convertTargets(payload, { perTarget: o.perTarget, extraLabels: o.targetLabels }),
    facts: (payload, o) => prometheusFacts(payload, o.targetLabels),
  }),
  status: spec({
    path: "/api/v2/status",
    searchParams: () => undefined,
    schema: alertmanagerStatusResponse,
    convert: (payload) => convertAlertmanagerStatus(payload),
    facts: (payload) => alertmanagerFacts(payload),
  }),
};

/** The URL an endpoint's poll requests, query included (for accounts of a poll, not for fetching). */
export function requestUrl(source: SourceConfig, endpoint: Endpoint): string {
  const spec = ENDPOINTS[endpoint];
  const params = spec.searchParams(source);
  return `${source.url}${spec.path}${params ? `?${new URLSearchParams(params)}` : ""}`;
}
