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

  constructor(
    readonly reason: FailureReason,
    detail: string,
    { status, upstreamText }: { status?: number; upstreamText?: string } = {},
  ) {
    super(detail);
    if (status !== undefined) this.status = status;
    if (upstreamText) this.upstreamText = upstreamText;
  }
}

/** The detail with what the upstream said: for the operator's own sources (log and status page). */
export function operatorDetail(error: { message: string; upstreamText?: string | undefined }): string {
  return error.upstreamText ? `${error.message}: ${error.upstreamText}` : error.message;
}
