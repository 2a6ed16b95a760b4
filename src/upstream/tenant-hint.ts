import type { HttpClientConfig } from "../config/types.js";

// Grafana Mimir (and Cortex before it) serve every tenant's API behind dskit's
// middleware.AuthenticateUser: a request without the X-Scope-OrgID header is answered HTTP 401 with the
// text `no org id` (user.ErrNoOrgID; test/fixtures/backends/mimir-3.1/alertmanager-status-no-tenant.txt).
const NO_ORG_ID = /^no org id\b/i;

/**
 * What to set for a multi-tenant server's 401 `no org id`: the tenant header; undefined for any other
 * failure. Said instead of the credentials a 401 usually points at (failure-hints).
 */
export function tenantHint(
  error: { status?: number | undefined; upstreamText?: string | undefined },
  http: Pick<HttpClientConfig, "headers"> | undefined,
): string | undefined {
  if (error.status !== 401 || !NO_ORG_ID.test(error.upstreamText?.trim() ?? "")) return undefined;
  const sent = Object.keys(http?.headers ?? {}).some((name) => name.toLowerCase() === "x-scope-orgid");
  if (sent)
    return "the server wants a tenant (Mimir: no org id) and the X-Scope-OrgID header configured in `headers` did not reach it: check a proxy in between";
  return "the server wants a tenant (Mimir: no org id): set `headers: {X-Scope-OrgID: <tenant>}` for this source";
}
