// Why a target is down, in a small fixed set of classes, from the `lastError` text Prometheus reports.
// The raw text never becomes a label (it holds URLs, addresses and numbers: unbounded cardinality;
// prometheus/prometheus#7965 and #3068 declined such a metric for that reason).
//
// The patterns follow the messages Prometheus builds, read at v3.5.0 (the same texts exist in 2.4x):
// - scrape/scrape.go: errBodySizeLimit "body size limit exceeded"; "server returned HTTP status %s";
//   "label_limit exceeded", "label_name_length_limit exceeded", "label_value_length_limit exceeded".
// - scrape/target.go: errSampleLimit "sample limit exceeded", errBucketLimit "histogram bucket limit
//   exceeded" (the native-histogram form of a sample limit).
// - model/textparse/{promparse,openmetricsparse,protobufparse}.go: "... while parsing: ...",
//   "invalid metric type", "expected ...", "data does not end with # EOF", "unexpected data after # EOF",
//   "unsupported character in float", "invalid UTF-8 label value", "invalid metric name"; and 3.x's
//   "received unsupported Content-Type" when no fallback_scrape_protocol is set. Before 2.49 a value or
//   timestamp that is no number came as strconv's own error, unwrapped: `strconv.ParseFloat: parsing
//   "1x": invalid syntax` (promparse.go at v2.42.0; v2.49.0 added "%w while parsing: %q").
// - scrape/scrape.go, a body sent as gzip that is not: Go's compress/gzip and compress/flate errors as
//   they are ("gzip: invalid header", "gzip: invalid checksum", "flate: corrupt input before offset N";
//   2.42 and 3.5 alike).
// - Go's net/http and net: `Get "<url>": context deadline exceeded` (the scrape timeout),
//   "dial tcp ...: connect: connection refused", "lookup <host> ...: no such host" / "server
//   misbehaving", and crypto/tls and crypto/x509 errors ("tls: ...", "x509: ..."); an https scrape of
//   a port that speaks plain HTTP: "http: server gave HTTP response to HTTPS client" (net/http).
//
// VictoriaMetrics and vmagent write their own (lib/promscrape/client.go and scrapework.go), read at
// v1.79.5 (Debian's, whose real answers are in test/fixtures/backends/) and v1.150.0:
// - `unexpected status code returned when scraping "<url>": 404; expecting 200; response body: "…"`: the
//   target's own body follows, so this is matched first, at the head of the text or of a wrapped error
//   (1.79's stream mode wraps them: `cannot read data: …`).
// - `error when scraping "<url>" with timeout 500ms: timeout` (1.79, fasthttp), `cannot perform request
//   to "<url>": Get "<url>": context deadline exceeded` (1.150); `error when scraping "<url>": dial tcp4
//   …: connect: connection refused` (1.79), `cannot perform request to …: connection refused` (1.150).
// - `the response from "<url>" exceeds -promscrape.maxScrapeSize=…` (1.79), `… exceeds
//   -promscrape.maxScrapeSize or max_scrape_size in the scrape config (… bytes)` (1.150), `the
//   uncompressed response from …` likewise; `the response from "<url>" exceeds sample_limit=…`; `the
//   response from "<url>" contains samples with a number of labels exceeding label_limit=…` (1.150).
// - A body that cannot be read as metrics: `cannot ungzip response from …` (1.79), `cannot decompress
//   response body from …`, `cannot read gzipped response body from …` (1.150).

export const DOWN_REASONS = [
  "timeout",
  "connection_refused",
  "dns",
  "tls",
  "http_status",
  "body_size_limit",
  "sample_limit",
  "label_limit",
  "parse_error",
  "other",
] as const;

export type DownReason = (typeof DOWN_REASONS)[number];

// Checked in order: the first that matches names the class (a limit error beats the generic parse text).
const PATTERNS: [DownReason, RegExp][] = [
  ["http_status", /(?:^|: )unexpected status code returned when scraping "[^"]*": \d+; expecting \d+/],
  ["body_size_limit", /body size limit exceeded|exceeds -promscrape\.maxScrapeSize/i],
  ["sample_limit", /(?:^|\W)(?:sample limit exceeded|histogram bucket limit exceeded)|exceeds sample_limit=/i],
  ["label_limit", /label_(?:name_length_|value_length_)?limit exceeded|exceeding label_limit=/i],
  [
    "timeout",
    /context deadline exceeded|Client\.Timeout exceeded|i\/o timeout|timeout awaiting|TLS handshake timeout|error when scraping "[^"]*" with timeout \S+: /i,
  ],
  ["connection_refused", /connection refused/i],
  ["dns", /no such host|server misbehaving|lookup \S+ on \S+|temporary failure in name resolution/i],
  ["tls", /(?:^|\W)(?:tls|x509): |server gave HTTP response to HTTPS client/i],
  ["http_status", /server returned HTTP status/i],
  [
    "parse_error",
    /while parsing|invalid metric type|^expected |data does not end with # EOF|unexpected data after # EOF|unsupported character in float|invalid UTF-8|invalid metric name|is not a valid start token|unsupported Content-Type|help text is not a valid utf8 string|(?:^|: )strconv\.Parse(?:Float|Int): parsing |(?:^|: )(?:gzip: invalid (?:header|checksum)|flate: corrupt input)|(?:^|: )cannot (?:ungzip response|decompress response body|read gzipped response body) from /i,
  ],
];

/** The class of a down target's last error; `other` for anything unrecognised, empty text included. */
export function classifyScrapeError(lastError: string): DownReason {
  for (const [reason, pattern] of PATTERNS) if (pattern.test(lastError)) return reason;
  return "other";
}
