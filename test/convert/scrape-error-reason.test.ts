import { describe, expect, it } from "vitest";
import { classifyScrapeError, DOWN_REASONS } from "../../src/convert/scrape-error-reason.js";
import { fixtureJson } from "../helpers/fixtures.js";

// lastError texts as Prometheus builds them (sources named in src/convert/scrape-error-reason.ts),
// with the addresses and numbers a real target would put in them.
const EXAMPLES: [string, (typeof DOWN_REASONS)[number]][] = [
  ['Get "http://10.1.2.3:9100/metrics": context deadline exceeded', "timeout"],
  ['Get "http://10.1.2.3:9100/metrics": dial tcp 10.1.2.3:9100: i/o timeout', "timeout"],
  ['Get "http://127.0.0.1:1/metrics": dial tcp 127.0.0.1:1: connect: connection refused', "connection_refused"],
  ['Get "http://node-7.invalid:9100/metrics": dial tcp: lookup node-7.invalid on 10.96.0.10:53: no such host', "dns"],
  ['Get "http://db:9187/metrics": dial tcp: lookup db on 127.0.0.53:53: server misbehaving', "dns"],
  [
    'Get "https://10.1.2.3:10250/metrics": tls: failed to verify certificate: x509: certificate signed by unknown authority',
    "tls",
  ],
  ['Get "https://10.1.2.3:10250/metrics": x509: certificate has expired or is not yet valid', "tls"],
  ["server returned HTTP status 401 Unauthorized", "http_status"],
  ["server returned HTTP status 503 Service Unavailable", "http_status"],
  ['Get "https://10.1.2.3:443/metrics": net/http: TLS handshake timeout', "timeout"],
  ["body size limit exceeded", "body_size_limit"],
  ["sample limit exceeded", "sample_limit"],
  ["histogram bucket limit exceeded", "sample_limit"],
  ["label_limit exceeded (metric: http_requests_total, number of labels: 31, limit: 30)", "label_limit"],
  [
    'label_value_length_limit exceeded (metric: up, label name: path, value: "/x", length: 300, limit: 200)',
    "label_limit",
  ],
  ['expected equal, got "INVALID" ("INVALID") while parsing: "foo{bar"', "parse_error"],
  ['invalid metric type "gauge2"', "parse_error"],
  ["data does not end with # EOF", "parse_error"],
  ['received unsupported Content-Type "text/html" and no fallback_scrape_protocol specified for target', "parse_error"],
  // Prometheus before 2.49 (Debian's 2.42 writes these): strconv's and compress/gzip's own errors, unwrapped.
  ['strconv.ParseFloat: parsing "1x": invalid syntax', "parse_error"],
  ['strconv.ParseInt: parsing "12a": invalid syntax', "parse_error"],
  ["gzip: invalid header", "parse_error"],
  ["gzip: invalid checksum", "parse_error"],
  ["flate: corrupt input before offset 12", "parse_error"],
  ["help text is not a valid utf8 string", "parse_error"],
  ['Get "https://127.0.0.1:9100/metrics": http: server gave HTTP response to HTTPS client', "tls"],
  // Truncated or cut off: no sign of what went wrong.
  ["unexpected EOF", "other"],
  ['Get "http://10.1.2.3:9100/metrics": EOF', "other"],
  ["out of bounds", "other"],
  ["", "other"],
];

// VictoriaMetrics and vmagent's own texts (lib/promscrape/client.go, scrapework.go), with the format
// verbs filled as a real target fills them.
const VM_URL = '"http://10.1.2.3:9100/metrics"';
const VICTORIAMETRICS: [string, (typeof DOWN_REASONS)[number]][] = [
  // v1.79.5
  [`error when scraping ${VM_URL} with timeout 10s: timeout`, "timeout"],
  [`cannot read data: error when scraping ${VM_URL} with timeout 10s: timeout`, "timeout"],
  [
    `the response from ${VM_URL} exceeds -promscrape.maxScrapeSize=16777216; either reduce the response size for the target or increase -promscrape.maxScrapeSize`,
    "body_size_limit",
  ],
  [
    `the response from ${VM_URL} exceeds sample_limit=100; either reduce the sample count for the target or increase sample_limit`,
    "sample_limit",
  ],
  [`cannot ungzip response from ${VM_URL}: gzip: invalid header`, "parse_error"],
  [
    `cannot read data: unexpected status code returned when scraping ${VM_URL}: 503; expecting 200; response body: "busy"`,
    "http_status",
  ],
  // v1.150.0
  [
    `cannot perform request to ${VM_URL}: Get ${VM_URL}: dial tcp4 10.1.2.3:9100: connect: connection refused`,
    "connection_refused",
  ],
  [`cannot perform request to ${VM_URL}: Get ${VM_URL}: context deadline exceeded`, "timeout"],
  [
    `cannot perform request to ${VM_URL}: Get ${VM_URL}: dial tcp4: lookup node-7.invalid on 10.96.0.10:53: no such host`,
    "dns",
  ],
  [
    `the response from ${VM_URL} exceeds -promscrape.maxScrapeSize or max_scrape_size in the scrape config (16777216 bytes). Possible solutions are: reduce the response size for the target, increase -promscrape.maxScrapeSize command-line flag, increase max_scrape_size value in scrape config for the given target`,
    "body_size_limit",
  ],
  [
    `the uncompressed response from ${VM_URL} exceeds -promscrape.maxScrapeSize or max_scrape_size in the scrape config (16777216 bytes). Possible solutions are: …`,
    "body_size_limit",
  ],
  [
    `the response from ${VM_URL} contains samples with a number of labels exceeding label_limit=30; either reduce the labels count for the target or increase label_limit`,
    "label_limit",
  ],
  [`cannot decompress response body from ${VM_URL}: gzip: invalid header`, "parse_error"],
  [`cannot read gzipped response body from ${VM_URL}: unexpected EOF`, "parse_error"],
  // The target's body is quoted after the status: what it says does not make another class.
  [
    `unexpected status code returned when scraping ${VM_URL}: 502; expecting 200; response body: "dial tcp: i/o timeout; connection refused"`,
    "http_status",
  ],
];

/** The real texts of Debian's VictoriaMetrics and vmagent 1.79.5 (test/fixtures/backends/victoriametrics-1.79). */
function realVictoriaMetricsErrors(): string[] {
  const files = ["vm-targets-t1.json", "vmagent-targets-t1.json", "vmagent-droporiginallabels-berlin-targets-t1.json"];
  return files.flatMap((f) =>
    (
      fixtureJson(`backends/victoriametrics-1.79/${f}`) as { data: { activeTargets: { lastError: string }[] } }
    ).data.activeTargets
      .map((t) => t.lastError)
      .filter((e) => e !== ""),
  );
}

describe("classifyScrapeError", () => {
  it.each(EXAMPLES)("%s -> %s", (text, reason) => expect(classifyScrapeError(text)).toBe(reason));

  it.each(VICTORIAMETRICS)("VictoriaMetrics: %s -> %s", (text, reason) =>
    expect(classifyScrapeError(text)).toBe(reason),
  );

  it("classes every error of the real VictoriaMetrics and vmagent 1.79.5 (refused, 404)", () => {
    const errors = realVictoriaMetricsErrors();
    expect(errors.length).toBeGreaterThan(5);
    for (const text of errors) {
      const expected = text.includes("connection refused") ? "connection_refused" : "http_status";
      expect(classifyScrapeError(text), text).toBe(expected);
    }
    expect(errors.some((e) => e.startsWith("unexpected status code"))).toBe(true);
  });

  it("has an example for every class", () => {
    expect(new Set(EXAMPLES.map(([, r]) => r))).toEqual(new Set(DOWN_REASONS));
  });
});
