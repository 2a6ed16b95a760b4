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
//   "received unsupported Content-Type" when no fallback_scrape_protocol is set.
// - Go's net/http and net: `Get "<url>": context deadline exceeded` (the scrape timeout),
//   "dial tcp ...: connect: connection refused", "lookup <host> ...: no such host" / "server
//   misbehaving", and crypto/tls and crypto/x509 errors ("tls: ...", "x509: ...").

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
  ["body_size_limit", /body size limit exceeded/i],
  ["sample_limit", /(?:^|\W)(?:sample limit exceeded|histogram bucket limit exceeded)/i],
  ["label_limit", /label_(?:name_length_|value_length_)?limit exceeded/i],
  [
    "timeout",
    /context deadline exceeded|Client\.Timeout exceeded|i\/o timeout|timeout awaiting|TLS handshake timeout/i,
  ],
  ["connection_refused", /connection refused/i],
  ["dns", /no such host|server misbehaving|lookup \S+ on \S+|temporary failure in name resolution/i],
  ["tls", /(?:^|\W)(?:tls|x509): /i],
  ["http_status", /server returned HTTP status/i],
  [
    "parse_error",
    /while parsing|invalid metric type|^expected |data does not end with # EOF|unexpected data after # EOF|unsupported character in float|invalid UTF-8|invalid metric name|is not a valid start token|unsupported Content-Type/i,
  ],
];

/** The class of a down target's last error; `other` for anything unrecognised, empty text included. */
export function classifyScrapeError(lastError: string): DownReason {
  for (const [reason, pattern] of PATTERNS) if (pattern.test(lastError)) return reason;
  return "other";
}
