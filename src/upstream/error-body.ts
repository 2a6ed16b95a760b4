import { gunzipSync } from "node:zlib";

const MAX_DETAIL = 200;
// An error answer worth reading is short; a longer one is described by its first part only (which also
// bounds the work done on the main thread for whatever an upstream sends).
const MAX_ERROR_BODY = 64 * 1024;

/**
 * A short description of an error answer's body, for the log. Prometheus answers with an envelope
 * `{"status":"error","errorType":..,"error":..}`, Alertmanager with `{"code":..,"message":..}`, and
 * either may answer with plain text, HTML or a bare JSON string.
 */
export function describeErrorBody(body: unknown, encoding?: string, maxBytes = MAX_ERROR_BODY): string {
  let raw = body;
  if (Buffer.isBuffer(raw) && raw.length > 0 && (encoding === "gzip" || encoding === "x-gzip")) {
    // Prometheus and Alertmanager compress error answers too when gzip was accepted.
    try {
      raw = gunzipSync(raw, { maxOutputLength: Math.min(maxBytes, MAX_ERROR_BODY) });
    } catch {
      return "(gzip-compressed error body that could not be decompressed within the size cap)";
    }
  }
  const text = Buffer.isBuffer(raw) ? raw.toString("utf8") : typeof raw === "string" ? raw : "";
  if (!text.trim()) return "";
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // `[^<>]`, not `[^>]`: a tag cannot hold `<`, so each match attempt ends at the next `<` and the
    // work stays linear (`<` after `<` with no `>` made `[^>]*` quadratic: seconds for 64 KB).
    return clip(text.replace(/<[^<>]*>/g, " "));
  }
  if (typeof parsed === "string") return clip(parsed);
  if (parsed && typeof parsed === "object") {
    const o = parsed as Record<string, unknown>;
    if (typeof o.error === "string")
      return clip(typeof o.errorType === "string" ? `${o.errorType}: ${o.error}` : o.error);
    if (typeof o.message === "string") return clip(o.message);
  }
  return clip(text);
}

function clip(text: string): string {
  const oneLine = text.replace(/\s+/g, " ").trim();
  return oneLine.length > MAX_DETAIL ? `${oneLine.slice(0, MAX_DETAIL)}…` : oneLine;
}
