import got, { type RequestError } from "got";
import type { HttpClientConfig } from "../config/types.js";
import { requestAuth } from "./auth-options.js";
import { classifyError } from "./classify-error.js";
import { PollError } from "./poll-error.js";
import { proxyAgents } from "./proxy-agents.js";

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
}

const RETRY_LIMIT = 2;
const RETRY_BACKOFF_LIMIT_MS = 1000;

const http = got.extend({
  headers: { "accept-encoding": "gzip", accept: "application/json", "user-agent": "prometheus-status-exporter" },
  decompress: false,
  retry: { limit: RETRY_LIMIT, methods: ["GET"], backoffLimit: RETRY_BACKOFF_LIMIT_MS },
});

/**
 * GETs a URL and returns the raw answer. Every failure becomes a PollError whose reason says what
 * went wrong; when the budget runs out during a retry, the last attempt's own failure is reported.
 */
export async function fetchBody(url: string, options: FetchOptions): Promise<FetchedBody> {
  const deadline = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
  let lastFailure: RequestError | undefined;
  let tooLarge = false;
  const auth = options.http ? await requestAuth(options.http) : undefined;
  try {
    const request = http.get(url, {
      headers: auth?.headers,
      https: auth?.https,
      agent: options.http?.proxyUrl ? proxyAgents(options.http.proxyUrl) : undefined,
      searchParams: options.searchParams,
      responseType: "buffer",
      timeout: { request: options.timeoutMs },
      signal,
      hooks: {
        beforeRetry: [
          (error) => {
            lastFailure = error;
          },
        ],
      },
    });
    request.on("downloadProgress", ({ transferred }) => {
      if (transferred > options.maxBytes && !tooLarge) {
        tooLarge = true;
        request.cancel();
      }
    });
    const response = await request;
    return { body: response.body, encoding: response.headers["content-encoding"] };
  } catch (error) {
    if (tooLarge) throw new PollError("too_large", `answer larger than ${options.maxBytes} bytes`);
    if (options.signal?.aborted) throw new PollError("timeout", "aborted: the exporter is shutting down");
    throw classifyError(deadline.aborted && lastFailure ? lastFailure : error);
  }
}
