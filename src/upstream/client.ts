import { once } from "node:events";
import type { IncomingMessage } from "node:http";
import type { Duplex, Readable } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import got, { type RequestError } from "got";
import type { HttpClientConfig } from "../config/types.js";
import { gunzipInPieces } from "../lib/gunzip-pieces.js";
import { type RequestAuth, requestAuth } from "./auth-options.js";
import { classifyError } from "./classify-error.js";
import { acceptEncoding } from "./compression.js";
import { describeErrorBody } from "./error-body.js";
import { readErrorStart } from "./error-start.js";
import { excerpt } from "./excerpt.js";
import { hideSecrets, secretsOf } from "./hide-secrets.js";
import { PollError, withContext } from "./poll-error.js";
import { proxyAgents } from "./proxy-agents.js";
import { pieceRead } from "./read-garbage.js";
import { isReadinessGate } from "./readiness-gate.js";
import { checkBodyPiece, readingAgent, readsIntoSharedBuffer } from "./reading-agent.js";
import { keepCredentialsAtHome, stayWithin } from "./redirects.js";

export interface FetchOptions {
  /** Budget for the whole fetch, retries included. */
  timeoutMs: number;
  /** Cap on the bytes read, on the wire and (when streamed) after decompression. */
  maxBytes: number;
  /** Why the cap is what it is, when it is not max_response_size (said in the error). */
  maxBytesBecause?: string;
  /** Aborts the fetch, for shutdown. */
  signal?: AbortSignal;
  searchParams?: Record<string, string>;
  /** Auth, headers, TLS and proxy settings of the source. */
  http?: HttpClientConfig;
  /** Called for every piece of an answer read whole before it is kept: may wait (the socket pauses). */
  beforeKeeping?: (bytes: number) => Promise<void>;
  /**
   * fetchBody: gunzip the answer as it arrives and keep it decompressed (`body` is then plain JSON),
   * so maxBytes stops the download once the decompressed answer passes it, not only the wire bytes.
   */
  inflate?: boolean;
}

/** What came back besides the body: for /probe's debug account and the poll's log. */
export interface Received {
  /** The HTTP status of the answer (2xx). */
  statusCode: number;
  /** Content-Encoding on the wire. */
  encoding: string | undefined;
  /** Bytes on the wire. */
  bytes: number;
}

export interface FetchedBody extends Received {
  body: Buffer;
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
  throwHttpErrors: false,
});

/** One attempt's answer, its status checked: the body still to be read. */
interface Answer {
  stream: Readable;
  received: Received;
  /** Aborted at the deadline (or shutdown): what waits on others while reading must end then too. */
  signal: AbortSignal;
  /** Read through the shared read buffer (reading-agent.ts): no socket read's buffer is left behind. */
  sharedReads: boolean;
}

/**
 * GETs a URL and returns the answer whole (small answers: tsdb, Alertmanager status, Prometheus's other
 * status endpoints), as it came or, with `inflate`, gunzipped (`inflated` says it was), trying again
 * after a transient failure while the budget lasts. Every failure becomes a PollError whose reason says
 * what went wrong.
 */
export function fetchBody(url: string, options: FetchOptions): Promise<FetchedBody & { inflated: boolean }> {
  return withRetries(url, options, async ({ stream, received }) => {
    const chunks: Buffer[] = [];
    const keep = async (chunk: Buffer) => {
      checkBodyPiece(chunk);
      await options.beforeKeeping?.(chunk.length);
      chunks.push(chunk);
    };
    if (options.inflate) {
      const { inflated } = await readDecoded(stream, received, options, keep);
      return { ...received, body: Buffer.concat(chunks), inflated };
    }
    for await (const chunk of stream) await keep(chunk as Buffer);
    return { ...received, body: Buffer.concat(chunks), inflated: false };
  });
}

/** How a streamed answer's pieces come: gzip ones are gunzipped by its reader, up to `maxBytes` (else too_large, saying `tooLarge`). */
export interface StreamedEncoding {
  gzip?: { maxBytes: number; tooLarge: string } | undefined;
}

/** Who reads a streamed answer: told how its pieces come, then given them as they arrive. */
export interface AnswerReader {
  /**
   * Before the first piece (again for a fetch tried again): `gzip` when the pieces are gzip, to be
   * gunzipped by the reader, refused too_large (with the message given) once past `maxBytes` gunzipped.
   * The reader may call `stop` whenever it wants no more: the fetch ends then, without waiting for the
   * next piece (an upstream may be slow to send it, or never send it).
   */
  begin(input: StreamedEncoding, stop: () => void): void;
  /** A piece: true/false (or a promise of it, once there is room) for whether to go on reading. */
  piece(chunk: Buffer): boolean | Promise<boolean>;
  /** The reader moves each piece's memory to another thread (a decoder thread): none is left here. */
  movesPieces?: boolean;
}

/**
 * GETs a URL and hands its body to `reader` piece by piece as it comes over the wire (a gzip answer is
 * gunzipped by the reader, in the decoder's thread): the answer is never held whole. The rest of the
 * answer is not fetched once the reader says so. Once a piece was handed over, a failure is not retried.
 */
export function streamBody(
  url: string,
  options: FetchOptions,
  reader: AnswerReader,
): Promise<Received & { stopped: boolean }> {
  return withRetries(url, options, async ({ stream, received, signal, sharedReads }) => {
    let delivered = false;
    let stopped = false;
    const stop = () => {
      stopped = true;
      stream.destroy();
    };
    try {
      const gzip = isGzip(received.encoding);
      const tooLarge = tooLargeMessage(options, " after decompression");
      reader.begin(gzip ? { gzip: { maxBytes: options.maxBytes, tooLarge } } : {}, stop);
      for await (const piece of stream) {
        const chunk = piece as Buffer;
        checkBodyPiece(chunk);
        // Read through the shared buffer, a piece is the parser's copy: moved away by the reader, it
        // leaves nothing here to collect (the collections cost ~10 ms of the main thread a 100k-target poll).
        if (!(sharedReads && reader.movesPieces)) pieceRead(chunk);
        delivered = true;
        const more = reader.piece(chunk);
        // The reader may wait (a decoder thread busy with another answer): not past the deadline.
        if (!(typeof more === "boolean" ? more : await orAbort(more, signal))) return { ...received, stopped: true };
      }
      return { ...received, stopped };
    } catch (error) {
      if (stopped) return { ...received, stopped };
      throw error instanceof PollError ? error : Object.assign(error as Error, { delivered });
    } finally {
      stream.destroy();
    }
  });
}

/** The promise, or its rejection with the signal's reason once the signal aborts first. */
function orAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

/**
 * Reads an answer's body gunzipped on the fly (in Node's thread pool) and hands it on piece by piece,
 * failing too_large as soon as the decompressed bytes pass maxBytes: the rest is not downloaded.
 */
async function readDecoded(
  stream: Readable,
  received: Received,
  options: FetchOptions,
  onChunk: (chunk: Buffer) => Promise<void>,
): Promise<{ inflated: boolean }> {
  const gzip = isGzip(received.encoding);
  const inflate = gzip ? gunzipInPieces() : undefined;
  const body = inflate ? stream.pipe(inflate) : stream;
  stream.once("error", (error) => inflate?.destroy(error));
  let read = 0;
  try {
    for await (const piece of body) {
      const chunk = piece as Buffer;
      pieceRead(chunk);
      read += chunk.length;
      if (read > options.maxBytes) throw new PollError("too_large", tooLargeMessage(options, " after decompression"));
      await onChunk(chunk);
    }
  } catch (error) {
    if (inflate && isZlibError(error))
      throw new PollError("invalid_json", `answer is not valid gzip: ${error.message}`);
    throw error;
  } finally {
    stream.destroy();
    inflate?.destroy();
  }
  return { inflated: gzip };
}

/**
 * The request as both ways of reading share it: auth, headers, TLS, proxy, redirects that keep
 * credentials at home, the size cap on the wire, and retries while the budget lasts. `read` consumes
 * the answer; a failure it throws is retried like the request's own, unless it says body bytes were
 * already handed on (`delivered`).
 */
async function withRetries<T>(url: string, options: FetchOptions, read: (answer: Answer) => Promise<T>): Promise<T> {
  const auth = options.http ? await requestAuth(options.http) : undefined;
  try {
    return await attempts(url, options, auth, read);
  } catch (error) {
    // An upstream may quote what it was sent (a 401 body saying "bad credentials: Bearer ..."): never passed on.
    // The error answer's own text was searched before it was cut (checkStatus); other errors' here.
    if (!(error instanceof PollError) || !error.upstreamText) throw error;
    const hidden = hideSecrets(error.upstreamText, secretsOf(url, auth));
    throw hidden === error.upstreamText ? error : withContext(error, { upstreamText: hidden });
  }
}

async function attempts<T>(
  url: string,
  options: FetchOptions,
  auth: RequestAuth | undefined,
  read: (answer: Answer) => Promise<T>,
): Promise<T> {
  const deadline = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
  const target = new URL(url);
  const headers = { "accept-encoding": acceptEncoding(target, options.http?.compression), ...auth?.headers };
  let lastFailure: unknown;
  for (let attempt = 1; ; attempt++) {
    let tooLarge = false;
    let stream: ReturnType<typeof http.stream> | undefined;
    try {
      stream = http.stream(url, {
        headers,
        https: auth?.https,
        agent: options.http?.proxyUrl ? proxyAgents(options.http.proxyUrl) : { http: readingAgent },
        searchParams: options.searchParams,
        timeout: { request: options.timeoutMs },
        signal,
        followRedirect: options.http?.followRedirects ?? true,
        hooks: {
          beforeRedirect: [
            ...(options.http?.redirectTargets ? [stayWithin(options.http.redirectTargets)] : []),
            keepCredentialsAtHome(target, Object.keys(options.http?.headers ?? {})),
          ],
        },
      });
      const request = stream;
      // got destroys the request when the deadline's signal fires, even after the answer was read: an
      // error with no listener then would end the process.
      request.on("error", () => {});
      // A 101 answer: got hands the switched connection on ('upgrade') and nothing would ever close it,
      // the upstream free to send on it for good. Closed at once; the answer is no answer.
      request.on("upgrade", (_: IncomingMessage, socket: Duplex) => {
        socket.destroy();
        request.destroy(new PollError("http_status", "HTTP 101: the upstream switched protocols", { status: 101 }));
      });
      let wire = 0;
      request.on("downloadProgress", ({ transferred }: { transferred: number }) => {
        wire = transferred;
        if (transferred > options.maxBytes && !tooLarge) {
          tooLarge = true;
          request.destroy(new PollError("too_large", tooLargeMessage(options)));
        }
      });
      const [response] = (await once(request, "response")) as [IncomingMessage];
      const statusCode = response.statusCode ?? 0;
      const encoding = headerValue(response.headers["content-encoding"]);
      // The secrets are worked out only for an error answer, whose words they are taken out of.
      await checkStatus(request, statusCode, encoding, () => secretsOf(url, auth));
      const received = {
        statusCode,
        encoding,
        get bytes() {
          return wire;
        },
      };
      return await read({ stream: request, received, signal, sharedReads: readsIntoSharedBuffer(response.socket) });
    } catch (error) {
      stream?.destroy();
      if (tooLarge) throw new PollError("too_large", tooLargeMessage(options));
      if (options.signal?.aborted) throw new PollError("timeout", "aborted: the exporter is shutting down");
      if (deadline.aborted) throw classifyError(lastFailure ?? error);
      if (attempt >= ATTEMPTS || !retryable(error)) throw classifyError(error);
      lastFailure = error;
    }
    try {
      await sleep(backoffMs(attempt), undefined, { signal });
    } catch {
      if (options.signal?.aborted) throw new PollError("timeout", "aborted: the exporter is shutting down");
      throw classifyError(lastFailure);
    }
  }
}

/**
 * Passes a 2xx answer; anything else becomes a PollError that says the status. What an error answer's
 * body says goes to upstreamText only, from its first few KiB (the rest is not read).
 */
async function checkStatus(
  stream: Readable,
  status: number,
  encoding: string | undefined,
  secrets: () => readonly string[],
) {
  if (status >= 200 && status < 300) return;
  if (status >= 300 && status < 400) {
    // Only reached with follow_redirects: false (got hands the redirect over then).
    throw new PollError("http_status", `HTTP ${status}: redirect not followed (follow_redirects is false)`, { status });
  }
  const start = await readErrorStart(stream, encoding);
  const upstreamText =
    start === undefined
      ? excerpt(`(body in content-encoding ${encoding}, not read)`)
      : describeErrorBody(start, secrets());
  throw new PollError("http_status", `HTTP ${status}`, { status, upstreamText });
}

function tooLargeMessage({ maxBytes, maxBytesBecause }: FetchOptions, counted = ""): string {
  return `answer larger than ${maxBytes} bytes${counted}${maxBytesBecause ? `, ${maxBytesBecause}` : ""}`;
}

/** Whether an answer's Content-Encoding is gzip; an encoding the exporter cannot read fails the poll. */
function isGzip(encoding: string | undefined): boolean {
  if (encoding === "gzip" || encoding === "x-gzip") return true;
  if (encoding && encoding !== "identity")
    throw new PollError("invalid_json", "unsupported content-encoding", { upstreamText: excerpt(encoding) });
  return false;
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function isZlibError(error: unknown): error is Error {
  return (
    error instanceof Error &&
    typeof (error as NodeJS.ErrnoException).errno === "number" &&
    /^Z_/.test(String((error as NodeJS.ErrnoException).code))
  );
}

function retryable(error: unknown): boolean {
  if ((error as { delivered?: boolean }).delivered) return false;
  if (error instanceof PollError)
    // A Prometheus behind its readiness gate stays there for seconds to many minutes (a WAL replay):
    // retried, each poll of it took two seconds more and the next poll waited for it.
    return error.reason === "http_status" && RETRY_STATUSES.has(error.status ?? 0) && !isReadinessGate(error);
  return RETRY_CODES.has((error as RequestError).code ?? "");
}

/** got's backoff: 1 s × 2^(attempt-1) plus up to 100 ms of jitter, capped. */
function backoffMs(attempt: number): number {
  return Math.min(1000 * 2 ** (attempt - 1) + Math.random() * 100, BACKOFF_LIMIT_MS);
}
