import { setTimeout as sleep } from "node:timers/promises";
import got, { HTTPError, type RequestError } from "got";
import type { HttpClientConfig } from "../config/types.js";
import { requestAuth } from "./auth-options.js";
import { classifyError } from "./classify-error.js";
import { acceptEncoding } from "./compression.js";
import { PollError } from "./poll-error.js";
import { proxyAgents } from "./proxy-agents.js";
import { keepCredentialsAtHome } from "./redirects.js";

export interface FetchOptions {
  /** Budget for the whole fetch, retries included. */
  timeoutMs: number;
  /** Cap on the answer's size on the wire (decompression is capped again by the decoder). */
  maxBytes: number;
  /** Aborts the fetch, for shutdown. */
  signal?: AbortSignal;
  searchParams?: Record<string, string>;
  /** Auth, headers, TLS and proxy settings of the source. */
  http?: HttpClientConfig;
}

export interface FetchedBody {
  body: Buffer;
  /** Content-Encoding of the body, still compressed: decoding is CPU work, done off the event loop. */
  encoding: string | undefined;
  /** The HTTP status of the answer (2xx), for /probe's debug account. */
  statusCode: number;
}

const ATTEMPTS = 3;
const BACKOFF_LIMIT_MS = 1000;
// got's defaults for what is worth another try (its retry documentation).
const RETRY_CODES = new Set([
  "ECONNRESET",
  "EADDRINUSE",
  "ECONNREFUSED",
  "EPIPE",
  "ENOTFOUND",
  "ENETUNREACH",
  "EAI_AGAIN",
]);
const RETRY_STATUSES = new Set([408, 413, 429, 500, 502, 503, 504, 521, 522, 524]);

// Retries are ours, not got's: on Node.js 24.20+ and 26.7+ got 14 ends a retried refused connection
// after one attempt with ERR_SOCKET_CLOSED_BEFORE_CONNECTION while its retry still runs in the
// background (sindresorhus/got#2469, fixed only in got 16, which needs a newer Node.js than ours).
const http = got.extend({
  headers: { accept: "application/json", "user-agent": "prometheus-status-exporter" },
  decompress: false,
  retry: { limit: 0 },
});

/**
 * GETs a URL and returns the raw answer, trying again after a transient failure while the budget
 * lasts. Every failure becomes a PollError whose reason says what went wrong; when the budget runs
 * out during a retry, the last attempt's own failure is reported.
 */
export async function fetchBody(url: string, options: FetchOptions): Promise<FetchedBody> {
  const deadline = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
  const auth = options.http ? await requestAuth(options.http) : undefined;
  const target = new URL(url);
  const headers = { "accept-encoding": acceptEncoding(target, options.http?.compression), ...auth?.headers };
  let lastFailure: unknown;
  for (let attempt = 1; ; attempt++) {
    let tooLarge = false;
    try {
      const request = http.get(url, {
        headers,
        https: auth?.https,
        agent: options.http?.proxyUrl ? proxyAgents(options.http.proxyUrl) : undefined,
        searchParams: options.searchParams,
        responseType: "buffer",
        timeout: { request: options.timeoutMs },
        signal,
        followRedirect: options.http?.followRedirects ?? true,
        hooks: { beforeRedirect: [keepCredentialsAtHome(target, Object.keys(options.http?.headers ?? {}))] },
      });
      request.on("downloadProgress", ({ transferred }) => {
        if (transferred > options.maxBytes && !tooLarge) {
          tooLarge = true;
          request.cancel();
        }
      });
      const response = await request;
      if (response.statusCode >= 300 && response.statusCode < 400) {
        // Only reached with follow_redirects: false (got counts 3xx as success then).
        throw new PollError(
          "http_status",
          `HTTP ${response.statusCode}: redirect not followed (follow_redirects is false)`,
          response.statusCode,
        );
      }
      return { body: response.body, encoding: response.headers["content-encoding"], statusCode: response.statusCode };
    } catch (error) {
      if (error instanceof PollError) throw error;
      if (tooLarge) throw new PollError("too_large", `answer larger than ${options.maxBytes} bytes`);
      if (options.signal?.aborted) throw new PollError("timeout", "aborted: the exporter is shutting down");
      if (deadline.aborted) throw classifyError(lastFailure ?? error, options.maxBytes);
      if (attempt >= ATTEMPTS || !retryable(error)) throw classifyError(error, options.maxBytes);
      lastFailure = error;
    }
    try {
      await sleep(backoffMs(attempt), undefined, { signal });
    } catch {
      if (options.signal?.aborted) throw new PollError("timeout", "aborted: the exporter is shutting down");
      throw classifyError(lastFailure, options.maxBytes);
    }
  }
}

function retryable(error: unknown): boolean {
  if (error instanceof HTTPError) return RETRY_STATUSES.has(error.response.statusCode);
  return RETRY_CODES.has((error as RequestError).code ?? "");
}

/** got's backoff: 1 s × 2^(attempt-1) plus up to 100 ms of jitter, capped. */
function backoffMs(attempt: number): number {
  return Math.min(1000 * 2 ** (attempt - 1) + Math.random() * 100, BACKOFF_LIMIT_MS);
}
