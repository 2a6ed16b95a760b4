// Prometheus reports an empty head with Go's int64 extremes as min/max time; as JSON numbers these
// exceed any real millisecond timestamp, so anything beyond ±2^53 ms means "no data". Thanos Query with
// no store answering sums nothing into 0 (pkg/status/statuspb/custom.go at v0.42.4): 1970 is no data too.
const MAX_REAL_MS = Number.MAX_SAFE_INTEGER;

/** Seconds for a millisecond timestamp, or undefined for the int64 sentinels of an empty head and for 0. */
export function headTimeSeconds(ms: number): number | undefined {
  if (!Number.isFinite(ms) || ms === 0 || Math.abs(ms) >= MAX_REAL_MS) return undefined;
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

// RFC 3339 as Go's time.Time marshals it (seconds, an optional fraction, Z or an offset). Anchored and
// without nested repetition: linear on any text.
const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?(?:Z|[+-]\d\d:\d\d)$/;

/**
 * rfc3339Seconds for a time that only RFC 3339 may spell: Date.parse also takes "5" (2001-05-01) or
 * "2024", so a server's start time or clock (clock skew) is checked for the form first.
 */
export function strictRfc3339Seconds(text: string | undefined): number | undefined {
  return text !== undefined && RFC3339.test(text) ? rfc3339Seconds(text) : undefined;
}

/**
 * A target's last scrape in Unix seconds; undefined when it never was: Prometheus writes Go's zero
 * time, VictoriaMetrics and vmagent the Unix epoch in the process's zone (`1970-01-01T00:00:00Z`,
 * `1970-01-01T01:00:00+01:00`: lib/promscrape/targetstatus.go, v1.79.5 through v1.150.0). No scrape
 * happens at or before the epoch, so any such time is "never".
 */
export function lastScrapeSeconds(text: string | undefined): number | undefined {
  const seconds = rfc3339Seconds(text);
  return seconds !== undefined && seconds > 0 ? seconds : undefined;
}

/**
 * The health a target is counted with: a `down` target with no error and no scrape yet is one not
 * scraped yet (VictoriaMetrics and vmagent start every target down, spreading the first scrapes over
 * the interval), Prometheus's `unknown`.
 */
export function targetHealth(health: string, lastError: string, lastScrape: string | undefined): string {
  if (health !== "down" || lastError !== "" || lastScrape === undefined) return health;
  return lastScrapeSeconds(lastScrape) === undefined && notGarbage(lastScrape) ? "unknown" : health;
}

/** A time that says "never" (zero time or at/before the epoch), rather than text that is no time at all. */
const notGarbage = (text: string) => text.startsWith("0001-01-01") || !Number.isNaN(Date.parse(text));
