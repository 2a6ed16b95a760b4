import { excerpt } from "./excerpt.js";
import { PollError } from "./poll-error.js";

const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH|ERR_OSSL_)/;
// What OpenSSL says when the first bytes back are not a TLS record: an HTTP answer read as one
// ("HTTP/1.1 400" is version 0x5454, or a record length of 0x2f31... past the limit).
const PLAIN_HTTP_ANSWER = /wrong version number|packet length too long/;

/**
 * Maps whatever got (or an abort) threw to a PollError with a reason and a short, secret-free detail.
 * An error's own message can quote the upstream (a certificate's names, a parser's view of its
 * bytes): it goes to upstreamText, the detail names the error code only.
 */
export function classifyError(error: unknown): PollError {
  if (error instanceof PollError) return error;
  // A PollError thrown in a got hook (a redirect refused) arrives as the cause of got's own error.
  if (error instanceof Error && error.cause instanceof PollError) return error.cause;
  const code = errorCode(error);
  if (code === "ETIMEDOUT" || code === "ABORT_ERR" || isTimeoutAbort(error)) {
    return new PollError("timeout", "no complete answer within the timeout");
  }
  if (code === "ERR_TOO_MANY_REDIRECTS") return new PollError("http_status", "too many redirects");
  const text = error instanceof Error ? error.message : String(error);
  const upstreamText = excerpt(text);
  if (code === "EPROTO" && PLAIN_HTTP_ANSWER.test(text)) {
    return new PollError("tls", `TLS error: ${code}: the server speaks plain HTTP: use http://`, { upstreamText });
  }
  if (TLS_CODE.test(code)) return new PollError("tls", `TLS error: ${code}`, { upstreamText });
  return new PollError("connection", `connection failed${code ? `: ${code}` : ""}`, { upstreamText });
}

function errorCode(error: unknown): string {
  if (error && typeof error === "object" && "code" in error && typeof error.code === "string") return error.code;
  return "";
}

function isTimeoutAbort(error: unknown): boolean {
  return error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError");
}
