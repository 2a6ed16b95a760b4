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
  const ms = utcMillisOfText(text) ?? Date.parse(text);
  return Number.isNaN(ms) ? undefined : ms / 1000;
}

/** The number written by the two ASCII digits at b[i], or NaN. */
function twoDigits(b: Uint8Array, i: number): number {
  const x = (b[i] as number) - 0x30;
  const y = (b[i + 1] as number) - 0x30;
  return x >= 0 && x <= 9 && y >= 0 && y <= 9 ? x * 10 + y : Number.NaN;
}

/** A time's characters as bytes, for utcMillis (no fast-path time is longer). */
const TEXT_BYTES = new Uint8Array(30);

/** utcMillis of a time given as text: undefined for any text that is not ASCII. */
function utcMillisOfText(text: string): number | undefined {
  const n = text.length;
  if (n > TEXT_BYTES.length) return undefined;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c > 0x7f) return undefined;
    TEXT_BYTES[i] = c;
  }
  return utcMillis(TEXT_BYTES, 0, n);
}

/**
 * Date.parse's milliseconds for the time every target's last scrape is written as, `2026-11-21T05:00:26.170032Z`
 * (UTC, an optional fraction of 1 to 9 digits), read from its ASCII bytes b[start, end) without
 * Date.parse (a tenth of its cost, once per target); undefined for any other text, and for fields where
 * Date.parse has rules of its own (a day past the 28th rolls over, 24:00, years before 1970), which
 * Date.parse then reads.
 */
function utcMillis(b: Uint8Array, start: number, end: number): number | undefined {
  const n = end - start;
  if (n < 20 || n === 21 || n > 30 || b[end - 1] !== 0x5a) return undefined; // Z
  let ms = lastMinuteMs;
  for (let i = 0; i < MINUTE_BYTES; i++) {
    if (b[start + i] === lastMinute[i]) continue;
    const read = minuteMillis(b, start);
    if (read === undefined) return undefined;
    ms = read;
    break;
  }
  if (b[start + 16] !== 0x3a) return undefined; // :
  const second = twoDigits(b, start + 17);
  if (!(second <= 59)) return undefined; // false for NaN too
  ms += second * 1000;
  if (n > 20) {
    if (b[start + 19] !== 0x2e) return undefined; // .
    for (let i = 20; i < n - 1; i++) {
      const d = (b[start + i] as number) - 0x30;
      if (!(d >= 0 && d <= 9)) return undefined;
      if (i < 23) ms += d * (i === 20 ? 100 : i === 21 ? 10 : 1); // milliseconds; finer digits dropped
    }
  }
  return ms;
}

/**
 * The last minute utcMillis read (`2026-11-21T05:00`, checked) and its milliseconds: a poll's targets
 * were mostly scraped within a minute or two, so most times are read from their seconds on.
 */
const MINUTE_BYTES = 16;
/** A minute read as any other (never bytes that are no minute, such as zeros). */
const lastMinute = new TextEncoder().encode("1970-01-01T00:00");
let lastMinuteMs = 0;

/** The milliseconds of the minute b[start, start + 16) spells, kept as the last minute; undefined as utcMillis says. */
function minuteMillis(b: Uint8Array, start: number): number | undefined {
  if (b[start + 4] !== 0x2d || b[start + 7] !== 0x2d || b[start + 10] !== 0x54) return undefined; // - - T
  if (b[start + 13] !== 0x3a) return undefined; // :
  const year = twoDigits(b, start) * 100 + twoDigits(b, start + 2);
  const month = twoDigits(b, start + 5);
  const day = twoDigits(b, start + 8);
  const hour = twoDigits(b, start + 11);
  const minute = twoDigits(b, start + 14);
  // Each comparison is false for NaN: a field that is not two digits is left to Date.parse.
  if (!(year >= 1970 && month >= 1 && month <= 12 && day >= 1 && day <= 28)) return undefined;
  if (!(hour <= 23 && minute <= 59)) return undefined;
  const ms = daysSinceEpoch(year, month, day) * 86_400_000 + (hour * 60 + minute) * 60_000;
  for (let i = 0; i < MINUTE_BYTES; i++) lastMinute[i] = b[start + i] as number;
  lastMinuteMs = ms;
  return ms;
}

/** Days from 1970-01-01 to a date of the proleptic Gregorian calendar (H. Hinnant's days_from_civil). */
function daysSinceEpoch(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
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
 * lastScrapeSeconds of a time given as its bytes b[start, end) (a string's without escapes), without
 * making a string of it; null when the bytes alone do not settle it (lastScrapeSeconds of its text does).
 */
export function lastScrapeSecondsOfBytes(b: Uint8Array, start: number, end: number): number | undefined | null {
  const ms = utcMillis(b, start, end);
  if (ms === undefined) return null;
  return ms > 0 ? ms / 1000 : undefined;
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

/**
 * targetHealth of a target, its lastScrape read only when the health depends on it: a target read by the
 * fast path decodes it to text on first use (upstream/targets/target-read.ts), ~15 ms per 100k targets, and most
 * targets are up.
 */
export function healthOf(target: { health: string; lastError: string; lastScrape?: string | undefined }): string {
  const { health, lastError } = target;
  return health === "down" && lastError === "" ? targetHealth(health, lastError, target.lastScrape) : health;
}

/** A time that says "never" (zero time or at/before the epoch), rather than text that is no time at all. */
const notGarbage = (text: string) => text.startsWith("0001-01-01") || !Number.isNaN(Date.parse(text));
