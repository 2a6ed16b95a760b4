import type { SourceConfig } from "../config/types.js";

type Kind = SourceConfig["kind"];

/** The other kind's answer that tells one server from the other, and how to name that kind. */
export const KIND_SIGNATURES: Record<Kind, { path: string; called: string }> = {
  // GET /api/v2/status: {cluster: {status, ...}, versionInfo: {...}, config: {...}, uptime}.
  alertmanager: { path: "/api/v2/status", called: "an Alertmanager" },
  // GET /api/v1/status/buildinfo: {status: "success", data: {version, ...}}; agents answer it too.
  prometheus: { path: "/api/v1/status/buildinfo", called: "a Prometheus" },
};

/** The kind a source is not. */
export function otherKind(kind: Kind): Kind {
  return kind === "prometheus" ? "alertmanager" : "prometheus";
}

/** Whether a body is what `kind` answers at KIND_SIGNATURES[kind].path (not merely any 200). */
export function answersAs(kind: Kind, body: Buffer): boolean {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString("utf8"));
  } catch {
    return false;
  }
  if (!isObject(parsed)) return false;
  if (kind === "alertmanager") {
    return isObject(parsed.cluster) && typeof parsed.cluster.status === "string" && isObject(parsed.versionInfo);
  }
  return parsed.status === "success" && isObject(parsed.data) && typeof parsed.data.version === "string";
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
