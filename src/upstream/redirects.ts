import type { BeforeRedirectHook } from "got";

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
