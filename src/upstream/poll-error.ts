/** Why a poll failed; the `reason` label of promstatus_poll_failures_total. */
export type FailureReason =
  | "timeout"
  | "connection"
  | "tls"
  | "http_status"
  | "too_large"
  | "invalid_json"
  | "invalid_payload";

export const FAILURE_REASONS: readonly FailureReason[] = [
  "timeout",
  "connection",
  "tls",
  "http_status",
  "too_large",
  "invalid_json",
  "invalid_payload",
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
