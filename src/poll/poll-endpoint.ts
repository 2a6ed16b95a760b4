import type { Endpoint, SourceConfig } from "../config/types.js";
import { sourceLabelPrefix } from "../publish/text-format.js";
import { fetchBody } from "../upstream/client.js";
import { PollError } from "../upstream/poll-error.js";
import type { RenderedFamilies } from "./decode.js";
import { decodePool } from "./decode-pool.js";
import { ENDPOINTS, type SourceHints } from "./endpoints.js";

export type PollOutcome =
  | { ok: true; families: RenderedFamilies; series: number; durationSeconds: number; finishedAt: number }
  | { ok: false; error: PollError; durationSeconds: number; finishedAt: number };

// What each source's answers revealed about its server (keyed by config, so a reload starts afresh).
const learned = new WeakMap<SourceConfig, SourceHints>();

/** Fetches, validates, converts and renders one endpoint of one source. Never throws. */
export async function pollEndpoint(
  source: SourceConfig,
  endpoint: Endpoint,
  signal?: AbortSignal,
): Promise<PollOutcome> {
  const spec = ENDPOINTS[endpoint];
  const hints = learned.get(source) ?? { droppedCounts: false };
  const started = performance.now();
  const finish = () => ({ durationSeconds: (performance.now() - started) / 1000, finishedAt: Date.now() / 1000 });
  try {
    const { body, encoding } = await fetchBody(source.url + spec.path, {
      timeoutMs: source.timeoutMs,
      maxBytes: source.maxResponseBytes,
      http: source.http,
      signal,
      searchParams: spec.searchParams(source, hints),
    });
    const result = await decodePool.decode({
      endpoint,
      body,
      encoding,
      options: {
        perTarget: source.targets.perTarget,
        limit: source.tsdb.limit,
        labelPrefix: sourceLabelPrefix(source),
        maxBytes: source.maxResponseBytes,
      },
    });
    if (!result.ok) throw new PollError(result.reason, result.message);
    learned.set(source, { ...hints, ...result.hints });
    return { ok: true, families: result.families, series: result.series, ...finish() };
  } catch (error) {
    const pollError = error instanceof PollError ? error : new PollError("connection", String(error));
    return { ok: false, error: pollError, ...finish() };
  }
}
