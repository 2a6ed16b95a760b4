const MAX_DETAIL = 200;

/**
 * A short description of an error answer's body, for the log. Prometheus answers with an envelope
 * `{"status":"error","errorType":..,"error":..}`, Alertmanager with `{"code":..,"message":..}`, and
 * either may answer with plain text, HTML or a bare JSON string.
 */
export function describeErrorBody(body: unknown): string {
  const text = Buffer.isBuffer(body) ? body.toString("utf8") : typeof body === "string" ? body : "";
  if (!text.trim()) return "";
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return clip(text.replace(/<[^>]*>/g, " "));
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
