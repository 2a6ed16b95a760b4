/** Why a poll failed; the `reason` label of promstatus_poll_failures_total. */
export type FailureReason =
  | "timeout"
  | "connection"
  | "tls"
  | "http_status"
  | "too_large"
  | "invalid_json"
  | "invalid_payload"
  /** The answer gave more series than the source's or module's series_limit. */
  | "series_limit";

export const FAILURE_REASONS: readonly FailureReason[] = [
  "timeout",
  "connection",
  "tls",
  "http_status",
  "too_large",
  "invalid_json",
  "invalid_payload",
  "series_limit",
];

/** What a PollError may carry besides its reason and detail. */
export interface PollErrorContext {
  status?: number;
  upstreamText?: string;
  request?: string;
  hint?: string;
}

/**
 * A failed poll of one endpoint: a reason for the metric and a one-line detail. The detail never
 * holds text the upstream chose (a body, a parser's quote of it, a certificate's names): that is
 * `upstreamText`, bounded and sanitised (excerpt.ts), which only the operator's own views read (the
 * log, and the status page of configured sources). A /probe client sees the detail only.
 */
export class PollError extends Error {
  override name = "PollError";
  /** The HTTP status of an error answer (reason http_status). */
  readonly status?: number;
  /** What the upstream said about it, in its own words; never shown to a /probe client. */
  readonly upstreamText?: string;
  /** The request that failed, method and path only (`GET /api/v1/targets`): never credentials or a query. */
  readonly request?: string;
  /** What the operator may change about it; may name the source's settings, so never shown to a /probe client. */
  readonly hint?: string;

  constructor(
    readonly reason: FailureReason,
    detail: string,
    { status, upstreamText, request, hint }: PollErrorContext = {},
  ) {
    super(detail);
    if (status !== undefined) this.status = status;
    if (upstreamText) this.upstreamText = upstreamText;
    if (request) this.request = request;
    if (hint) this.hint = hint;
  }
}

/** The same failure with more said about it (the fields given replace the error's own). */
export function withContext(
  error: PollError,
  context: Pick<PollErrorContext, "request" | "hint" | "upstreamText">,
): PollError {
  const { status, upstreamText, request, hint } = error;
  return new PollError(error.reason, error.message, { status, upstreamText, request, hint, ...context });
}

/**
 * The detail with the request, what the upstream said and the hint: for the operator's own sources
 * (log and status page). `GET /api/v1/targets: HTTP 404: 404 page not found; this looks like ...`
 */
export function operatorDetail(error: {
  message: string;
  upstreamText?: string | undefined;
  request?: string | undefined;
  hint?: string | undefined;
}): string {
  const said = error.upstreamText ? `${error.message}: ${error.upstreamText}` : error.message;
  return `${error.request ? `${error.request}: ` : ""}${said}${error.hint ? `; ${error.hint}` : ""}`;
}
