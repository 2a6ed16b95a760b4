import { promisify } from "node:util";
import { gunzip } from "node:zlib";
import got, { type RequestError } from "got";
import type { HttpClientConfig } from "../config/types.js";
import { requestAuth } from "./auth-options.js";
import { classifyError } from "./classify-error.js";
import { PollError } from "./poll-error.js";
import { proxyAgents } from "./proxy-agents.js";

export interface FetchOptions {
  /** Budget for the whole fetch, retries included. */
  timeoutMs: number;
  /** Cap on the answer's size, compressed on the wire and again after decompression. */
  maxBytes: number;
  /** Aborts the fetch, for shutdown. */
  signal?: AbortSignal;
  searchParams?: Record<string, string>;
  /** Auth, headers, TLS and proxy settings of the source. */
  http?: HttpClientConfig;
}

const RETRY_LIMIT = 2;
const RETRY_BACKOFF_LIMIT_MS = 1000;
const gunzipAsync = promisify(gunzip);

const http = got.extend({
  headers: { "accept-encoding": "gzip", accept: "application/json", "user-agent": "prometheus-status-exporter" },
  // Decompressed here rather than by got, so the size cap also applies after decompression (gzip bombs).
  decompress: false,
  retry: { limit: RETRY_LIMIT, methods: ["GET"], backoffLimit: RETRY_BACKOFF_LIMIT_MS },
});

/**
 * GETs a URL and parses the JSON answer. Every failure becomes a PollError whose reason says what
 * went wrong; when the budget runs out during a retry, the last attempt's own failure is reported.
 */
export async function fetchJson(url: string, options: FetchOptions): Promise<unknown> {
  const deadline = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
  let lastFailure: RequestError | undefined;
  let tooLarge = false;
  let raw: Buffer;
  let encoding: string | undefined;
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
    raw = response.body;
    encoding = response.headers["content-encoding"];
  } catch (error) {
    if (tooLarge) throw new PollError("too_large", `answer larger than ${options.maxBytes} bytes`);
    if (options.signal?.aborted) throw new PollError("timeout", "aborted: the exporter is shutting down");
    throw classifyError(deadline.aborted && lastFailure ? lastFailure : error);
  }
  const body = await decode(raw, encoding, options.maxBytes);
  try {
    return JSON.parse(body.toString("utf8"));
  } catch (error) {
    throw new PollError("invalid_json", `answer is not valid JSON: ${(error as Error).message}`);
  }
}

async function decode(raw: Buffer, encoding: string | undefined, maxBytes: number): Promise<Buffer> {
  if (!encoding || encoding === "identity") return raw;
  if (encoding !== "gzip" && encoding !== "x-gzip") {
    throw new PollError("invalid_json", `unsupported content-encoding "${encoding}"`);
  }
  try {
    return await gunzipAsync(raw, { maxOutputLength: maxBytes });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE") {
      throw new PollError("too_large", `answer larger than ${maxBytes} bytes after decompression`);
    }
    throw new PollError("invalid_json", `answer is not valid gzip: ${(error as Error).message}`);
  }
}
