import { POLL } from "../catalogue/families.js";
import type { Flavor } from "../config/flavors.js";
import type { Endpoint, SourceConfig } from "../config/types.js";
import { type EndpointSummary, summarizeSamples } from "../convert/endpoint-summary.js";
import type { ReplicaFacts } from "../convert/replica-facts.js";
import type { Families } from "../exposition/pack.js";
import { renderSampleSet, renderSamples, sourceLabelPrefix } from "../exposition/text-format.js";
import { classifyError } from "../upstream/classify-error.js";
import { fetchBody, type Received, streamBody } from "../upstream/client.js";
import { PollError } from "../upstream/poll-error.js";
import { type DecodePool, decodePool } from "./decode-pool.js";
import type { DecodeOptions, ParseBudget, RequestTiming } from "./decode-types.js";
import type { PackedResult } from "./decoder-messages.js";
import { ENDPOINTS, type EndpointSpec, supportedSample } from "./endpoints.js";
import { answerClue, clusterClue, type FlavorClue, refusalClue, targetsEndClue } from "./flavor-clues.js";
import { overSeriesLimit } from "./series-limit.js";

export type PollOutcome =
  | {
      ok: true;
      /** Large families packed by the decoder thread (exposition/pack.ts), small ones plain. */
      families: Families;
      series: number;
      /** HTTP status and bytes on the wire; absent when a failure was recognised as an answer (agent mode). */
      received?: { statusCode: number; bytes: number; encoding: string | undefined };
      durationSeconds: number;
      finishedAt: number;
      /** What the answer said about the server that the operator should hear once (agent mode). */
      notice?: string;
      /** The 404 taken as the server lacking the endpoint, which stands only beside an answer (none-answered.ts). */
      notFound?: PollError;
      /** What replicas are compared by, for a source in a group. */
      facts?: ReplicaFacts;
      /** A few figures of the answer for the status page. */
      summary?: EndpointSummary;
      /** The answer went to the reference path, which the endpoint's streaming reader left it to. */
      fallback?: boolean;
      /** Entries of the answer left out for repeating a series. */
      duplicates?: number;
      /** What the answer says the server is (flavor-clues.ts), if it says. */
      clue?: FlavorClue;
      /**
       * The answer's warnings (Thanos Query's), distinct and excerpted (decode-types.ts DecodeResult);
       * absent for none. The upstream's words: for the scheduler's log only, never a /probe client.
       */
      warnings?: string[];
    }
  | {
      ok: false;
      error: PollError;
      durationSeconds: number;
      finishedAt: number;
      fallback?: boolean;
      /** What the error answer says the server is (vmagent's refusal of a path, Mimir's missing tenant). */
      clue?: FlavorClue;
    };

/**
 * Fetches, validates, converts and renders one endpoint of one source, all within the source's
 * timeout (a decode still running then is abandoned). Never throws. `decoder`: the threads to decode
 * on (probes have their own, so they never hold up a scheduled source). `detected`: the flavor earlier
 * answers of the source told (a configured one wins), for the converters.
 */
export async function pollEndpoint(
  source: SourceConfig,
  endpoint: Endpoint,
  signal?: AbortSignal,
  decoder: DecodePool = decodePool,
  detected?: Flavor,
): Promise<PollOutcome> {
  const spec = ENDPOINTS[endpoint];
  const labelPrefix = sourceLabelPrefix(source);
  const started = performance.now();
  const timeLeft = () => Math.max(0, Math.floor(source.timeoutMs - (performance.now() - started)));
  const finish = () => ({ durationSeconds: (performance.now() - started) / 1000, finishedAt: Date.now() / 1000 });
  const url = source.url + spec.path;
  // What the server is, as far as known: what is asked (VictoriaMetrics' topN) and how answers are read.
  const flavor = source.flavor ?? detected;
  const fetchOptions = (maxBytes = source.maxResponseBytes, because?: string) => ({
    timeoutMs: Math.max(1, timeLeft()),
    maxBytes,
    ...(because ? { maxBytesBecause: because } : {}),
    http: source.http,
    signal,
    searchParams: spec.searchParams(source, flavor),
  });
  const options: DecodeOptions = {
    replicaFacts: source.group !== undefined,
    perTarget: source.targets.perTarget,
    targetLabels: source.targets.labels,
    limit: source.tsdb.limit,
    seriesLimit: source.seriesLimit,
    replicaLabels: source.replicaLabels,
    flagsIgnore: source.flags.ignore,
    labelPrefix,
    maxBytes: Math.min(source.maxResponseBytes, spec.maxBytes ?? Number.POSITIVE_INFINITY),
  };
  if (flavor !== undefined) options.flavor = flavor;
  let clue: FlavorClue | undefined;
  /** A whole answer fetched and decoded; `reference` skips the streaming reader. */
  const whole = async (reference: boolean): Promise<[PackedResult, Received]> => {
    // No more is read than the decoder could parse (the rest would be downloaded only to be refused),
    // nor than the endpoint's own bound.
    const limit = readLimit(source, spec, decoder.parseBudget());
    // Answers waiting in memory for their decoder share one budget, so a flood of large ones waits
    // on the network instead of piling up.
    const timeout = AbortSignal.timeout(Math.max(1, timeLeft()));
    const share = decoder.waitingBytes.share(signal ? AbortSignal.any([signal, timeout]) : timeout);
    try {
      // By the exporter's wall clock, for a server time in the answer (clock skew): from the request
      // (its retries included) to the whole answer read.
      const startedMs = Date.now();
      // An endpoint with its own bound is inflated as it is read, so a gzip answer stops at the bound too.
      const { body, inflated, ...received } = await fetchBody(url, {
        ...fetchOptions(limit.bytes, limit.because),
        beforeKeeping: share.take,
        inflate: spec.maxBytes !== undefined,
      });
      const request: RequestTiming = { startedMs, finishedMs: Date.now() };
      const encoding = inflated ? undefined : received.encoding;
      // Before the decoder has it: the body may move to its thread.
      clue = answerClue(endpoint, body, encoding);
      const result = await decoder.decode(
        { endpoint, body, encoding, options: { ...options, request }, reference },
        timeLeft(),
      );
      return [result, received];
    } finally {
      share.giveBack();
    }
  };
  let fallback = false;
  try {
    let [result, received] = spec.stream
      ? await streamed(decoder, url, fetchOptions(), endpoint, options, timeLeft, (tail) => {
          clue = targetsEndClue(tail);
        })
      : await whole(false);
    if (result === "gave-up") {
      // The streaming reader met something it does not handle: the answer is fetched again and the
      // reference path, whose budget is the decoder's memory, decides.
      fallback = true;
      [result, received] = await whole(true);
    }
    if (!result.ok) throw new PollError(result.reason, result.message, { upstreamText: result.upstreamText });
    const { families, series, facts, summary, duplicates, warnings } = result;
    // Whichever path decoded it, nothing past series_limit is published (the decoders stop sooner where they can).
    const over = overSeriesLimit(series, source.seriesLimit);
    if (over) throw new PollError(over.reason, over.message);
    const { statusCode, bytes, encoding } = received;
    clue ??= endpoint === "status" ? clusterClue(summary) : undefined;
    return {
      ok: true,
      // The server has the endpoint: said beside its series (the exporter's own, not counted in `series`).
      families: [...families, [POLL.supported.name, supportedLines(endpoint, labelPrefix)]],
      series,
      received: { statusCode, bytes, encoding },
      ...(facts ? { facts } : {}),
      ...(summary ? { summary } : {}),
      ...(duplicates ? { duplicates } : {}),
      ...(clue ? { clue } : {}),
      ...(warnings?.length ? { warnings } : {}),
      fallback,
      ...finish(),
    };
  } catch (error) {
    const pollError = error instanceof PollError ? error : classifyError(error);
    // An answer read well that failed later (its shape, a limit) still told what it came from.
    clue ??= refusalClue(spec.path, pollError);
    const recognised = spec.recognise?.(pollError);
    if (recognised) {
      const { samples, notice, notFound } = recognised;
      const summary = summarizeSamples(samples, endpoint);
      return {
        ok: true,
        families: renderSampleSet(samples, labelPrefix),
        series: samples.size,
        notice,
        ...(notFound ? { notFound: pollError } : {}),
        ...(summary ? { summary } : {}),
        ...(clue ? { clue } : {}),
        ...finish(),
      };
    }
    return { ok: false, error: pollError, fallback, ...(clue ? { clue } : {}), ...finish() };
  }
}

/**
 * The most bytes read of one answer read whole: the least of max_response_size, what the decoder can
 * parse and the endpoint's own bound; `because` names the one that set it, unless max_response_size.
 */
export function readLimit(
  source: Pick<SourceConfig, "maxResponseBytes">,
  spec: Pick<EndpointSpec, "path" | "maxBytes">,
  budget: Pick<ParseBudget, "bytes" | "because">,
): { bytes: number; because?: string } {
  let limit: { bytes: number; because?: string } = { bytes: source.maxResponseBytes };
  if (budget.bytes < limit.bytes) limit = budget;
  if (spec.maxBytes !== undefined && spec.maxBytes < limit.bytes)
    limit = {
      bytes: spec.maxBytes,
      because:
        `the exporter's own bound for ${spec.path} (${mib(spec.maxBytes)}, far above what real servers answer; ` +
        "not raised by max_response_size)",
    };
  return { bytes: limit.bytes, ...(limit.because ? { because: limit.because } : {}) };
}

const mib = (bytes: number) => (bytes < 2 ** 20 ? `${bytes / 1024} KiB` : `${bytes / 2 ** 20} MiB`);

function supportedLines(endpoint: Endpoint, labelPrefix: string): Uint8Array {
  return renderSamples(POLL.supported.name, labelPrefix, supportedSample(endpoint, true).get(POLL.supported.name));
}

/**
 * The answer streamed to a decoder thread as it arrives (a gzip answer is gunzipped there); "gave-up"
 * when its reader gave up on it. `onTail` gets the answer's last bytes (TAIL_BYTES at most, gunzipped).
 */
async function streamed(
  decoder: DecodePool,
  url: string,
  fetchOptions: Parameters<typeof streamBody>[1],
  endpoint: Endpoint,
  options: DecodeOptions,
  timeLeft: () => number,
  onTail: (tail: string) => void,
): Promise<[PackedResult | "gave-up", Received]> {
  const stream = decoder.openStream(endpoint, options);
  let received: Received;
  try {
    received = await streamBody(url, fetchOptions, {
      begin: (input, stop) => stream.begin(input, stop),
      piece: (chunk) => stream.write(chunk),
      movesPieces: true,
    });
  } catch (error) {
    stream.abort();
    throw error;
  }
  const end = await stream.end(timeLeft());
  if (end.gaveUp) return ["gave-up", received];
  onTail(end.tail);
  return [end.result, received];
}
