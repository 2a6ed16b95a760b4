import type { Endpoint, SourceConfig } from "../config/types.js";
import type { SampleSet } from "../convert/samples.js";
import { agentModeSamples } from "../convert/tsdb.js";
import type { PollError } from "../upstream/poll-error.js";
import type { ChunkDecoder, DecodeOptions, DecoderMemory } from "./decode-types.js";
import { TargetsDecoder } from "./targets-fast-path.js";

export type { ChunkDecoder, ConvertOptions, FastDecoded } from "./decode-types.js";

/** A refusal that is an answer: the server says what it is, rather than that something failed. */
export interface Recognised {
  samples: SampleSet;
  /** Said in the log once per source, with what to do about it. */
  notice: string;
}

/** How one endpoint is asked for and read as it streams (its reference path: reference.ts). */
export interface EndpointSpec {
  path: string;
  searchParams(source: SourceConfig): Record<string, string> | undefined;
  /**
   * A streaming way from the answer's bytes to its rendered lines, for its common shape: chunks are read
   * as they arrive, and the result is that of the reference path (JSON.parse, schema, convert, facts,
   * renderSampleSet), or undefined to let that path decide (its result or error stands).
   */
  stream?(options: DecodeOptions, memory?: DecoderMemory): ChunkDecoder;
  /** Error answers that tell something about the server; undefined for a real failure. */
  recognise?(error: PollError): Recognised | undefined;
}

// web/api/v1/api.go (2.32 through 3.x): in agent mode the tsdb status is wrapped by wrapAgent, which
// answers errorExec "unavailable with Prometheus Agent", and errorExec maps to HTTP 422.
const AGENT_REFUSAL = /unavailable with Prometheus Agent/;

export const ENDPOINTS: Record<Endpoint, EndpointSpec> = {
  tsdb: {
    path: "/api/v1/status/tsdb",
    searchParams: (s) => (s.tsdb.limit === undefined ? undefined : { limit: String(s.tsdb.limit) }),
    recognise: (error) =>
      error.status === 422 && AGENT_REFUSAL.test(error.upstreamText ?? "")
        ? {
            samples: agentModeSamples(),
            notice:
              "this Prometheus runs in agent mode and has no TSDB status; its targets are still polled. " +
              "Set `tsdb: {enabled: false}` for this source to stop asking.",
          }
        : undefined,
  },
  targets: {
    path: "/api/v1/targets",
    // No `state`: 2.47-3.x fill droppedTargetCounts only when dropped targets are shown as well
    // (web/api/v1/api.go, showDropped), so asking for active targets only would lose the counts.
    searchParams: () => undefined,
    stream: (options, memory) => new TargetsDecoder(options, memory),
  },
  status: {
    path: "/api/v2/status",
    searchParams: () => undefined,
  },
};

/** The URL an endpoint's poll requests, query included (for accounts of a poll, not for fetching). */
export function requestUrl(source: SourceConfig, endpoint: Endpoint): string {
  const spec = ENDPOINTS[endpoint];
  const params = spec.searchParams(source);
  return `${source.url}${spec.path}${params ? `?${new URLSearchParams(params)}` : ""}`;
}
