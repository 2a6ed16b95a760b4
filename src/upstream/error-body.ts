import { excerpt } from "./excerpt.js";
import { hideSecrets } from "./hide-secrets.js";

/**
 * A short description of the start of an error answer's body (already cut to a few KiB and inflated:
 * error-start.ts), for the operator's log and status page. Prometheus answers with an envelope
 * `{"status":"error","errorType":..,"error":..}`, Alertmanager with `{"code":..,"message":..}`, and
 * either may answer with plain text, HTML or a bare JSON string.
 */
export function describeErrorBody(start: Buffer, secrets: readonly string[] = []): string {
  // Secrets out before the text is parsed or cut (hide-secrets.ts), and again out of what parsing made.
  const text = hideSecrets(start.toString("utf8"), secrets);
  const said = (words: string, options?: { tags: boolean }) => excerpt(hideSecrets(words, secrets), options);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text); // linear in the few KiB it is given
  } catch {
    return said(text, { tags: true });
  }
  if (typeof parsed === "string") return said(parsed);
  if (parsed && typeof parsed === "object") {
    const o = parsed as Record<string, unknown>;
    if (typeof o.error === "string")
      return said(typeof o.errorType === "string" ? `${o.errorType}: ${o.error}` : o.error);
    if (typeof o.message === "string") return said(o.message);
  }
  return said(text);
}
