import type { BeforeRedirectHook } from "got";
import { PollError } from "./poll-error.js";
import { originAllowed } from "./url-patterns.js";

const DEFAULT_PORTS: Record<string, string> = { "http:": "80", "https:": "443" };

/** Same origin (scheme, host, port), as browsers judge it (RFC 6454). */
export function sameOrigin(a: URL, b: URL): boolean {
  const port = (u: URL) => u.port || DEFAULT_PORTS[u.protocol] || "";
  return a.protocol === b.protocol && a.hostname === b.hostname && port(a) === port(b);
}

/**
 * A got beforeRedirect hook: once a redirect leaves the origin the poll started on (another host or
 * port, or plain HTTP after HTTPS), nothing secret goes with it: no Authorization header (got keeps it
 * when only the scheme changes), no URL credentials, none of the source's custom headers (they may
 * carry tenant IDs or API keys), no client certificate.
 */
export function keepCredentialsAtHome(start: URL, customHeaders: readonly string[]): BeforeRedirectHook {
  return (options) => {
    if (options.url && sameOrigin(start, options.url)) return;
    const headers = { ...options.headers };
    for (const name of ["authorization", ...customHeaders.map((h) => h.toLowerCase())]) delete headers[name];
    options.headers = headers;
    options.username = "";
    options.password = "";
    options.https = { ...options.https, certificate: undefined, key: undefined };
  };
}

/**
 * A got beforeRedirect hook for a probe module with allowed_targets: a redirect is followed only to an
 * origin the patterns take on its own, so an allowed target cannot send the poll (and its credentials,
 * headers or client certificate) elsewhere. got passes the PollError on as the cause of its own error.
 */
export function stayWithin(patterns: readonly RegExp[]): BeforeRedirectHook {
  return (options) => {
    if (options.url instanceof URL && originAllowed(patterns, options.url)) return;
    throw new PollError("http_status", "redirect to a target outside allowed_targets not followed");
  };
}
