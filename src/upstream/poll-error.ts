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

/** A failed poll of one endpoint: a reason for the metric and a one-line detail for the log. */
export class PollError extends Error {
  override name = "PollError";
  constructor(
    readonly reason: FailureReason,
    detail: string,
    /** The HTTP status of an error answer (reason http_status). */
    readonly status?: number,
  ) {
    super(detail);
  }
}
