import type { Endpoint, SourceConfig } from "../config/types.js";
import type { ReplicaFacts } from "../convert/replica-facts.js";
import { renderSampleSet, sourceLabelPrefix } from "../publish/text-format.js";
import { fetchBody } from "../upstream/client.js";
import { PollError } from "../upstream/poll-error.js";
import type { RenderedFamilies } from "./decode.js";
import { decodePool } from "./decode-pool.js";
import { ENDPOINTS } from "./endpoints.js";

export type PollOutcome =
  | {
      ok: true;
      families: RenderedFamilies;
      series: number;
      /** HTTP status and bytes on the wire; absent when a failure was recognised as an answer (agent mode). */
      received?: { statusCode: number; bytes: number; encoding: string | undefined };
      durationSeconds: number;
      finishedAt: number;
      /** What the answer said about the server that the operator should hear once (agent mode). */
      notice?: string;
      /** What replicas are compared by, for a source in a group. */
      facts?: ReplicaFacts;
      /** The answer went to the reference path, which the endpoint's fast reader left it to. */
      fallback?: boolean;
    }
  | { ok: false; error: PollError; durationSeconds: number; finishedAt: number; fallback?: boolean };

/** Fetches, validates, converts and renders one endpoint of one source. Never throws. */
export async function pollEndpoint(
  source: SourceConfig,
  endpoint: Endpoint,
  signal?: AbortSignal,
): Promise<PollOutcome> {
  const spec = ENDPOINTS[endpoint];
  const labelPrefix = sourceLabelPrefix(source);
  const started = performance.now();
  const finish = () => ({ durationSeconds: (performance.now() - started) / 1000, finishedAt: Date.now() / 1000 });
  let fallback = false;
  try {
    const { body, encoding, statusCode } = await fetchBody(source.url + spec.path, {
      timeoutMs: source.timeoutMs,
      maxBytes: source.maxResponseBytes,
      http: source.http,
      signal,
      searchParams: spec.searchParams(source),
    });
    const result = await decodePool.decode({
      endpoint,
      body,
      encoding,
      options: {
        replicaFacts: source.group !== undefined,
        perTarget: source.targets.perTarget,
        targetLabels: source.targets.labels,
        limit: source.tsdb.limit,
        labelPrefix,
        maxBytes: source.maxResponseBytes,
      },
    });
    fallback = result.fallback === true;
    if (!result.ok) throw new PollError(result.reason, result.message);
    const { families, series, facts } = result;
    const received = { statusCode, bytes: body.length, encoding };
    return { ok: true, families, series, received, ...(facts ? { facts } : {}), fallback, ...finish() };
  } catch (error) {
    const pollError = error instanceof PollError ? error : new PollError("connection", String(error));
    const recognised = spec.recognise?.(pollError);
    if (recognised) {
      const { samples, notice } = recognised;
      return { ok: true, families: renderSampleSet(samples, labelPrefix), series: samples.size, notice, ...finish() };
    }
    return { ok: false, error: pollError, fallback, ...finish() };
  }
}
