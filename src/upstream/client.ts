import got, { type RequestError } from "got";
import { classifyError } from "./classify-error.js";
import { PollError } from "./poll-error.js";

export interface FetchOptions {
  /** Budget for the whole fetch, retries included. */
  timeoutMs: number;
  /** Aborts the fetch, for shutdown. */
  signal?: AbortSignal;
  searchParams?: Record<string, string>;
}

const RETRY_LIMIT = 2;
const RETRY_BACKOFF_LIMIT_MS = 1000;

const http = got.extend({
  headers: { "accept-encoding": "gzip", accept: "application/json", "user-agent": "prometheus-status-exporter" },
  decompress: true,
  responseType: "text",
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
  let body: string;
  try {
    body = await http
      .get(url, {
        searchParams: options.searchParams,
        timeout: { request: options.timeoutMs },
        signal,
        hooks: {
          beforeRetry: [
            (error) => {
              lastFailure = error;
            },
          ],
        },
      })
      .text();
  } catch (error) {
    if (options.signal?.aborted) throw new PollError("timeout", "aborted: the exporter is shutting down");
    throw classifyError(deadline.aborted && lastFailure ? lastFailure : error);
  }
  try {
    return JSON.parse(body);
  } catch (error) {
    throw new PollError("invalid_json", `answer is not valid JSON: ${(error as Error).message}`);
  }
}
