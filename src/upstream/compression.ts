import { isIPv4 } from "node:net";
import type { HttpClientConfig } from "../config/types.js";

/** Whether a URL's host is this machine: a name or address that never leaves it. */
export function isLoopback(url: URL): boolean {
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1").toLowerCase();
  if (host === "localhost" || host.endsWith(".localhost") || host === "::1") return true;
  return isIPv4(host) && host.startsWith("127.");
}

/**
 * The Accept-Encoding to send. Compression costs CPU on both sides (the watched server gzips, the
 * exporter gunzips) and is worth it only where bytes cross a network: `auto` skips it on loopback.
 */
export function acceptEncoding(url: URL, compression: HttpClientConfig["compression"] | undefined): string {
  const gzip = compression === "gzip" || (compression !== "none" && !isLoopback(url));
  return gzip ? "gzip" : "identity";
}
