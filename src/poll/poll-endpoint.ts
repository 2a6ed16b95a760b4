import type { Endpoint, SourceConfig } from "../config/types.js";
import { InvalidPayloadError } from "../convert/invalid-payload.js";
import type { SampleSet } from "../convert/samples.js";
import { fetchJson } from "../upstream/client.js";
import { describeMismatch } from "../upstream/payloads.js";
import { PollError } from "../upstream/poll-error.js";
import { ENDPOINTS } from "./endpoints.js";

export type PollOutcome =
  | { ok: true; samples: SampleSet; durationSeconds: number; finishedAt: number }
  | { ok: false; error: PollError; durationSeconds: number; finishedAt: number };

/** Fetches, validates and converts one endpoint of one source. Never throws. */
export async function pollEndpoint(
  source: SourceConfig,
  endpoint: Endpoint,
  signal?: AbortSignal,
): Promise<PollOutcome> {
  const spec = ENDPOINTS[endpoint];
  const started = performance.now();
  const finish = () => ({ durationSeconds: (performance.now() - started) / 1000, finishedAt: Date.now() / 1000 });
  try {
    const body = await fetchJson(source.url + spec.path, {
      timeoutMs: source.timeoutMs,
      maxBytes: source.maxResponseBytes,
      http: source.http,
      signal,
      searchParams: spec.searchParams(source),
    });
    const parsed = spec.schema.safeParse(body);
    if (!parsed.success) throw new PollError("invalid_payload", `unexpected answer: ${describeMismatch(parsed.error)}`);
    const samples = spec.convert(parsed.data, source);
    return { ok: true, samples, ...finish() };
  } catch (error) {
    const pollError =
      error instanceof PollError
        ? error
        : error instanceof InvalidPayloadError
          ? new PollError("invalid_payload", error.message)
          : new PollError("invalid_payload", `conversion failed: ${(error as Error).message}`);
    return { ok: false, error: pollError, ...finish() };
  }
}
