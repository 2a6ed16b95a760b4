import { describe, expect, it } from "vitest";
import { plainUrl } from "../../src/upstream/plain-url.js";

// What the WHATWG parser (got's) would make of a target differently from how it reads is refused.

describe("plainUrl", () => {
  it.each([
    ["http://127.0.0.1:18900\\.internal.example:9090", "target holds a backslash"],
    ["http://host:9090/\tx", "target holds a control character"],
    ["http://ho\nst:9090", "target holds a control character"],
    ["http://host:9090/a b", "target holds a space"],
    ["http://bücher.example:9090", "target holds a character outside ASCII"],
    ["http://\u212Aa.example", "target holds a character outside ASCII"],
    ["http://monitor:secret@host:9090", "target must not hold a user or password"],
    ["http://a.internal.example:9090@evil.com", "target must not hold a user or password"],
    ["file:///etc/passwd", "target must be an http or https URL"],
    ["http://host:9090/?x=1", "target must be a base URL without query or fragment"],
    ["http://host:9090/#x", "target must be a base URL without query or fragment"],
    ["http://0x7f.1:9090", 'target is fetched as "http://127.0.0.1:9090": give it in that form, not as written'],
    ["http://2130706433", 'target is fetched as "http://127.0.0.1": give it in that form, not as written'],
    ["http://%31%32%37.0.0.1", 'target is fetched as "http://127.0.0.1": give it in that form, not as written'],
    ["http://host/a/../b", 'target is fetched as "http://host/b": give it in that form, not as written'],
    ["http://host/%2e%2e/b", 'target is fetched as "http://host/b": give it in that form, not as written'],
    ["http:host:9090", 'target is fetched as "http://host:9090": give it in that form, not as written'],
    ["http:///host:9090", 'target is fetched as "http://host:9090": give it in that form, not as written'],
    ["http://host:09090", 'target is fetched as "http://host:9090": give it in that form, not as written'],
    ["http://host:/x", 'target is fetched as "http://host/x": give it in that form, not as written'],
    ["http://[0:0::1]:9090", 'target is fetched as "http://[::1]:9090": give it in that form, not as written'],
    ["http://host/{x}", 'target is fetched as "http://host/%7Bx%7D": give it in that form, not as written'],
  ])("refuses %j", (target, problem) => {
    expect(plainUrl(target)).toBe(problem);
  });

  it.each([
    ["http://host:9090", "http://host:9090", ""],
    ["http://host:9090///", "http://host:9090", ""],
    ["HTTPS://Prom-1.Example:9090/", "https://prom-1.example:9090", ""],
    ["https://prom:443", "https://prom", ""],
    ["http://prom:80/prometheus/", "http://prom/prometheus", "/prometheus"],
    ["http://[::1]:9090", "http://[::1]:9090", ""],
    ["http://host.:9090/a@b/%7E", "http://host.:9090/a@b/%7E", "/a@b/%7E"],
  ])("takes %j, fetched as %j", (target, base, path) => {
    expect(plainUrl(target)).toMatchObject({ base, path });
  });
});
