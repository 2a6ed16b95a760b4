import { constants, gunzipSync } from "node:zlib";
import type { Flavor } from "../config/flavors.js";
import type { Endpoint } from "../config/types.js";
import type { EndpointSummary } from "../convert/endpoint-summary.js";
import { detectFlavor, fromCluster } from "../convert/flavor.js";
import type { PollError } from "../upstream/poll-error.js";

// What one answer says about the server behind the API (convert/flavor.ts decides), read on the event
// loop from a few fields only: a whole buildinfo answer (a few hundred bytes), the first bytes of a
// tsdb answer, the last bytes of a streamed targets answer, an error answer's status and excerpt, or
// the figures kept of an Alertmanager status. No answer is kept or parsed whole beyond buildinfo's.

/** A flavor and the answer that told it, for the log. */
export interface FlavorClue {
  flavor: Flavor;
  from: string;
}

/** A buildinfo answer is a few hundred bytes: a larger one is not read for a clue. */
const BUILDINFO_MAX_BYTES = 64 * 1024;
/** Compressed bytes inflated for the start of a tsdb answer, and the most that may come out of them. */
const START_INPUT_BYTES = 1024;
const START_OUTPUT_MAX = 2 ** 20;
/** Bytes of a streamed answer's end kept (copied) to look for Thanos Query's warnings. */
export const TAIL_BYTES = 16 * 1024;

const gzipped = (encoding: string | undefined) => encoding === "gzip" || encoding === "x-gzip";

/** The answer's text, if it is small enough to read whole. */
function smallText(body: Uint8Array, encoding: string | undefined, max: number): string | undefined {
  try {
    if (gzipped(encoding)) return gunzipSync(body, { maxOutputLength: max }).toString("utf8");
    if (encoding && encoding !== "identity") return undefined;
    return body.byteLength > max ? undefined : Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString();
  } catch {
    return undefined;
  }
}

/** The first bytes of the answer's text, inflating only the start of a gzipped one. */
function startText(body: Uint8Array, encoding: string | undefined, bytes: number): string | undefined {
  try {
    const start = gzipped(encoding)
      ? gunzipSync(body.subarray(0, START_INPUT_BYTES), {
          // A cut stream: inflate what there is instead of failing on the missing end.
          finishFlush: constants.Z_SYNC_FLUSH,
          maxOutputLength: START_OUTPUT_MAX,
        })
      : encoding && encoding !== "identity"
        ? undefined
        : Buffer.from(body.buffer, body.byteOffset, Math.min(body.byteLength, bytes));
    return start?.subarray(0, bytes).toString("latin1");
  } catch {
    return undefined;
  }
}

// app/vmselect/prometheus/tsdb_status_response.qtpl (1.79 through 1.150): totalSeries is the first key of
// data; Prometheus and Thanos Query start with headStats.
const VM_TSDB_START = /^\s*\{\s*"status"\s*:\s*"success"\s*,\s*"data"\s*:\s*\{\s*"totalSeries"\s*:\s*(\d+)/;

/** The clue in a whole answer of a status endpoint (2xx), read before it goes to a decoder. */
export function answerClue(endpoint: Endpoint, body: Uint8Array, encoding: string | undefined): FlavorClue | undefined {
  if (endpoint === "buildinfo") {
    const text = smallText(body, encoding, BUILDINFO_MAX_BYTES);
    let buildinfo: unknown;
    try {
      buildinfo = text === undefined ? undefined : JSON.parse(text);
    } catch {
      return undefined;
    }
    return clue(detectFlavor({ buildinfo }), "its /api/v1/status/buildinfo answer");
  }
  if (endpoint === "tsdb") {
    const start = startText(body, encoding, 256);
    const totalSeries = start === undefined ? undefined : VM_TSDB_START.exec(start)?.[1];
    if (totalSeries === undefined) return undefined;
    return clue(
      detectFlavor({ tsdb: { data: { totalSeries: Number(totalSeries) } } }),
      "its /api/v1/status/tsdb answer (one day's totalSeries, no headStats)",
    );
  }
  return undefined;
}

/** The clue in an error answer: its HTTP status and what the body said (the excerpt the error keeps). */
export function refusalClue(path: string, error: PollError): FlavorClue | undefined {
  if (error.status === undefined) return undefined;
  const refusal = { status: error.status, body: error.upstreamText ?? "" };
  return clue(detectFlavor({ refusal }), `its refusal of ${path} (HTTP ${error.status})`);
}

/** The clue in an Alertmanager status answer, from the figures the status page keeps of it. */
export function clusterClue(summary: EndpointSummary | undefined): FlavorClue | undefined {
  const cluster = summary?.cluster;
  if (cluster === undefined) return undefined;
  return clue(fromCluster(cluster), `its /api/v2/status answer (cluster ${cluster.status}, ${cluster.peers} peers)`);
}

// pkg/api/api.go Respond (Thanos v0.42.4): `warnings` after `data`, at the answer's top level. Inside a
// JSON string the quotes would be escaped, so the unescaped sequence is structural.
const THANOS_WARNINGS = /\}\s*,\s*"warnings"\s*:\s*\[/;

/** The clue at the end of a targets answer: only Thanos Query adds `warnings` beside it. */
export function targetsEndClue(tail: string): FlavorClue | undefined {
  if (!THANOS_WARNINGS.test(tail)) return undefined;
  return clue(detectFlavor({ targets: { warnings: [] } }), "warnings beside its /api/v1/targets answer");
}

const clue = (flavor: Flavor | undefined, from: string) => (flavor === undefined ? undefined : { flavor, from });

/**
 * The clue of a whole poll, one per endpoint: buildinfo's first (it tells every flavor apart, and is
 * what the server says of itself), then the others in poll order.
 */
export function pollClue(clues: readonly { endpoint: Endpoint; clue?: FlavorClue | undefined }[]) {
  return clues.find((c) => c.endpoint === "buildinfo" && c.clue)?.clue ?? clues.find((c) => c.clue)?.clue;
}
