// Prometheus reports an empty head with Go's int64 extremes as min/max time; as JSON numbers these
// exceed any real millisecond timestamp, so anything beyond ±2^53 ms means "no data".
const MAX_REAL_MS = Number.MAX_SAFE_INTEGER;

/** Seconds for a millisecond timestamp, or undefined for the int64 sentinels of an empty head. */
export function headTimeSeconds(ms: number): number | undefined {
  if (!Number.isFinite(ms) || Math.abs(ms) >= MAX_REAL_MS) return undefined;
  return ms / 1000;
}

/**
 * Unix seconds for an RFC 3339 timestamp (nanosecond fractions allowed), or undefined for Go's zero
 * time (`0001-01-01T00:00:00Z`, a target never scraped) and unparseable text.
 */
export function rfc3339Seconds(text: string | undefined): number | undefined {
  if (!text || text.startsWith("0001-01-01")) return undefined;
  // V8 accepts fractions finer than milliseconds (and keeps the milliseconds).
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? undefined : ms / 1000;
}
