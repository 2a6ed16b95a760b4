import { HTTPError, RequestError } from "got";
import { describeErrorBody } from "./error-body.js";
import { PollError } from "./poll-error.js";

const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH|ERR_OSSL_)/;

/** Maps whatever got (or an abort) threw to a PollError with a reason and a short, secret-free detail. */
export function classifyError(error: unknown, maxBytes?: number): PollError {
  if (error instanceof PollError) return error;
  if (error instanceof HTTPError) {
    const { statusCode, body, headers } = error.response;
    const detail = describeErrorBody(body, headers["content-encoding"], maxBytes);
    return new PollError("http_status", `HTTP ${statusCode}${detail ? `: ${detail}` : ""}`, statusCode);
  }
  const code = errorCode(error);
  if (code === "ETIMEDOUT" || code === "ABORT_ERR" || isTimeoutAbort(error)) {
    return new PollError("timeout", "no complete answer within the timeout");
  }
  if (code === "ERR_TOO_MANY_REDIRECTS") return new PollError("http_status", "too many redirects");
  if (TLS_CODE.test(code)) return new PollError("tls", `TLS error: ${code} (${(error as Error).message})`);
  if (error instanceof RequestError || code) {
    return new PollError("connection", `connection failed: ${code || (error as Error).message}`);
  }
  return new PollError("connection", String(error));
}

function errorCode(error: unknown): string {
  if (error && typeof error === "object" && "code" in error && typeof error.code === "string") return error.code;
  return "";
}

function isTimeoutAbort(error: unknown): boolean {
  return error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError");
}
