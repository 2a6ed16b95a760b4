import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { describeErrorBody } from "../../src/upstream/error-body.js";

describe("describeErrorBody", () => {
  it("describes an HTML page by its text", () => {
    expect(describeErrorBody(Buffer.from("<html><body><h1>Bad Gateway</h1></body></html>"))).toBe("Bad Gateway");
  });

  // Each of these took seconds to minutes on the main thread with `/<[^>]*>/g` (quadratic in `<`
  // without `>`); the test's own timeout is what fails without the fix.
  it("describes a page of `<` with no `>` at once, plain or gzipped", () => {
    expect(describeErrorBody(Buffer.from("<".repeat(2 ** 20)))).toBe(`${"<".repeat(200)}…`);
    expect(describeErrorBody(gzipSync("<".repeat(60 * 1024)), "gzip")).toBe(`${"<".repeat(200)}…`);
  }, 5_000);

  it("reads at most 64 KiB of a gzipped error answer", () => {
    const page = Buffer.from(`${" ".repeat(70 * 1024)}late words`);
    expect(describeErrorBody(gzipSync(page), "gzip")).toMatch(/could not be decompressed within the size cap/);
  });
});
