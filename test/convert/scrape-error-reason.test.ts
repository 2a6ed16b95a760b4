import { describe, expect, it } from "vitest";
import { classifyScrapeError, DOWN_REASONS } from "../../src/convert/scrape-error-reason.js";

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
  ["out of bounds", "other"],
  ["", "other"],
];

describe("classifyScrapeError", () => {
  it.each(EXAMPLES)("%s -> %s", (text, reason) => expect(classifyScrapeError(text)).toBe(reason));

  it("has an example for every class", () => {
    expect(new Set(EXAMPLES.map(([, r]) => r))).toEqual(new Set(DOWN_REASONS));
  });
});
