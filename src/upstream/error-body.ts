import { excerpt } from "./excerpt.js";

/**
 * A short description of the start of an error answer's body (already cut to a few KiB and inflated:
 * error-start.ts), for the operator's log and status page. Prometheus answers with an envelope
 * `{"status":"error","errorType":..,"error":..}`, Alertmanager with `{"code":..,"message":..}`, and
 * either may answer with plain text, HTML or a bare JSON string.
 */
export function describeErrorBody(start: Buffer): string {
  const text = start.toString("utf8");
  let parsed: unknown;
  try {
    parsed = JSON.parse(text); // linear in the few KiB it is given
  } catch {
    return excerpt(text, { tags: true });
  }
  if (typeof parsed === "string") return excerpt(parsed);
  if (parsed && typeof parsed === "object") {
    const o = parsed as Record<string, unknown>;
    if (typeof o.error === "string")
      return excerpt(typeof o.errorType === "string" ? `${o.errorType}: ${o.error}` : o.error);
    if (typeof o.message === "string") return excerpt(o.message);
  }
  return excerpt(text);
}
