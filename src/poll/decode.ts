import { gunzipSync } from "node:zlib";
import type { Endpoint } from "../config/types.js";
import { summarizeSamples } from "../convert/endpoint-summary.js";
import { InvalidPayloadError } from "../convert/invalid-payload.js";
import { renderSampleSet } from "../exposition/text-format.js";
import { excerpt } from "../upstream/excerpt.js";
import { describeMismatch, type TargetsResponse } from "../upstream/payloads.js";
import type { FailureReason } from "../upstream/poll-error.js";
import type { DecodeJob, DecodeOptions, DecodeResult } from "./decode-types.js";
import { ENDPOINTS, type EndpointSpec } from "./endpoints.js";
import { parseHeapCost } from "./parse-cost.js";
import { REFERENCE, type ReferenceSpec } from "./reference.js";
import { overSeriesLimit } from "./series-limit.js";
import { tooManyTargets, withinTargets } from "./targets-budget.js";

export type { DecodeJob, DecodeOptions, DecodeResult, ParseBudget, RenderedFamilies } from "./decode-types.js";

const fail = (reason: FailureReason, message: string, upstreamText?: string): DecodeResult => ({
  ok: false,
  reason,
  message,
  ...(upstreamText ? { upstreamText } : {}),
});

// Real answers inflate 8-20x (a 100k-target answer: 3.8 MB gzip, 76 MB JSON).
const MAX_PLAUSIBLE_RATIO = 32;

/**
 * Output chunk size for gunzip: the size the gzip trailer announces (ISIZE, the last 4 bytes), so the
 * answer comes out in one piece instead of 16 KiB pieces joined by another full copy. The trailer is
 * the upstream's word, so it is believed only up to 32x the compressed bytes that actually arrived: a
 * forged trailer cannot make the exporter reserve max_response_size for a few KB of input. The cap and
 * zlib keep the result correct whatever the trailer says.
 */
export function outputChunkSize(gz: Buffer, maxBytes: number): number {
  const announced = gz.length >= 4 ? gz.readUInt32LE(gz.length - 4) : 0;
  const plausible = gz.length * MAX_PLAUSIBLE_RATIO;
  return Math.max(64 * 1024, Math.min(announced + 1, plausible, maxBytes + 1, 512 * 2 ** 20));
}

/**
 * Turns an answer's bytes into rendered series: decompress (capped), parse, validate, convert,
 * render. CPU only, no I/O, so it can run in a worker thread. `reference` skips the endpoint's fast
 * reader and renderer (for the tests and the benchmark that compare the two).
 */
export function decodeAnswer(
  { endpoint, body, encoding, options, budget, reference: asked = false }: DecodeJob,
  { reference = asked }: { reference?: boolean } = {},
): DecodeResult {
  // Whichever limit is lower says why an answer is refused: max_response_size or the decoder's memory.
  const overBudget = budget !== undefined && budget.bytes < options.maxBytes;
  const maxBytes = overBudget ? budget.bytes : options.maxBytes;
  const tooLarge = () =>
    fail(
      "too_large",
      `answer larger than ${maxBytes} bytes after decompression${overBudget ? `, ${budget.because}` : ""}`,
    );
  let bytes: Buffer | undefined = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  if (encoding && encoding !== "identity") {
    if (encoding !== "gzip" && encoding !== "x-gzip")
      return fail("invalid_json", "unsupported content-encoding", excerpt(encoding));
    try {
      bytes = gunzipSync(bytes, { maxOutputLength: maxBytes, chunkSize: outputChunkSize(bytes, maxBytes) });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE") return tooLarge();
      return fail("invalid_json", `answer is not valid gzip: ${(error as Error).message}`);
    }
  }
  if (bytes.length > maxBytes) return tooLarge();
  const spec = ENDPOINTS[endpoint];
  const triesFast = spec.stream !== undefined && !reference;
  if (triesFast) {
    const fast = fastPath(spec, bytes, options);
    const over = fast && overSeriesLimit(fast.series, options.seriesLimit);
    if (over) return { ok: false, ...over };
    if (fast) return { ok: true, ...fast };
  }
  // Checked before parsing: JSON.parse cannot be interrupted, so a worker whose heap runs out inside it
  // takes the whole process down (V8 aborts) instead of ending alone. What it takes depends on the
  // answer's shape (up to 40 times its text), so it is estimated from the bytes first.
  if (budget) {
    const heap = parseHeapCost(bytes, budget.heapBytes);
    if (heap > budget.heapBytes)
      return fail(
        "too_large",
        `answer would take more than ${budget.heapBytes} bytes of heap to parse (${bytes.length} bytes of JSON), ${budget.because}`,
      );
  }
  const text = bytes.toString("utf8");
  bytes = undefined; // let the decompressed copy go while the parse allocates (peak memory)
  const result = referencePath(text, endpoint, options);
  return triesFast ? { ...result, fallback: true } : result;
}

/** The reference path: the whole answer parsed, checked against the endpoint's schema, converted, rendered. */
function referencePath(text: string, endpoint: Endpoint, options: DecodeOptions): DecodeResult {
  const spec = REFERENCE[endpoint];
  const parsed = parseAndCheck(text, spec);
  if (!parsed.ok) return parsed;
  if (endpoint === "targets" && !targetsFit(parsed.data as TargetsResponse, options.maxTargets))
    return fail("too_large", tooManyTargets(options.maxTargets));
  try {
    const samples = spec.convert(parsed.data, options);
    // Before rendering: lines past the limit would only be thrown away.
    const over = overSeriesLimit(samples.size, options.seriesLimit);
    if (over) return { ok: false, ...over };
    const facts = options.replicaFacts ? spec.facts?.(parsed.data, options) : undefined;
    const families = renderSampleSet(samples, options.labelPrefix);
    const summary = summarizeSamples(samples, endpoint);
    const { duplicates } = samples;
    const warnings = spec.warnings?.(parsed.data);
    return {
      ok: true,
      families,
      series: samples.size,
      ...(facts ? { facts } : {}),
      ...(summary ? { summary } : {}),
      ...(duplicates ? { duplicates } : {}),
      ...(warnings?.length ? { warnings } : {}),
    };
  } catch (error) {
    if (error instanceof InvalidPayloadError) return fail("invalid_payload", error.message);
    // An engine error's message may quote a value of the answer ("Cannot create property 'x' on string '…'").
    return fail("invalid_payload", `conversion failed (${(error as Error).name})`, excerpt((error as Error).message));
  }
}

/** The endpoint's streaming reader over the whole answer as one chunk, if it handles it; anything it throws means no. */
function fastPath(spec: EndpointSpec, bytes: Buffer, options: DecodeOptions) {
  try {
    const decoder = spec.stream?.(options);
    return decoder?.write(bytes) ? decoder.finish() : undefined;
  } catch {
    return undefined;
  }
}

/** The whole answer parsed, then checked against the endpoint's schema. */
function parseAndCheck(
  text: string,
  spec: ReferenceSpec,
): { ok: true; data: unknown } | (DecodeResult & { ok: false }) {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    // V8's message quotes the text around the fault: for the operator's eyes only.
    const upstreamText = excerpt((error as Error).message);
    return { ok: false, reason: "invalid_json", message: "answer is not valid JSON", upstreamText };
  }
  const parsed = spec.schema.safeParse(json);
  json = undefined; // the validated copy holds only what is used: let the full answer go (peak memory)
  if (!parsed.success)
    return {
      ok: false,
      reason: "invalid_payload",
      message: `unexpected answer: ${describeMismatch(parsed.error, spec.schema)}`,
    };
  return { ok: true, data: parsed.data };
}

/** Whether a parsed targets answer fits the targets budget, weighed as the streaming reader weighs it. */
function targetsFit(answer: TargetsResponse, maxTargets: number | undefined): boolean {
  if (maxTargets === undefined) return true;
  const { activeTargets, droppedTargets, droppedTargetCounts } = answer.data;
  const poolOf = (t: unknown) => (t && typeof t === "object" ? (t as { scrapePool?: unknown }).scrapePool : undefined);
  // Every pool named once, wherever: active, dropped, or counted.
  const pools = new Set<unknown>(activeTargets.map((t) => t.scrapePool));
  for (const t of droppedTargets) pools.add(poolOf(t));
  for (const pool of Object.keys(droppedTargetCounts ?? {})) pools.add(pool);
  return withinTargets(activeTargets.length, pools.size, maxTargets);
}
