import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { describeErrorBody } from "../../src/upstream/error-body.js";
import { excerpt, MAX_EXCERPT } from "../../src/upstream/excerpt.js";

// Upstream text made printable, short and one line, in work linear in its length. Linear by
// structure, not by a timer: the functions are single forward passes with no regex (checked below
// on their source), and the worst inputs known for the former regexes must come out bounded.

const HUGE = 200_000;
const WORST: [string, string][] = [
  ["`<` without `>`", "<".repeat(HUGE)],
  ["`<` then letters, no `>`", `<${"a".repeat(HUGE)}`],
  ["`<a` repeated", "<a".repeat(HUGE)],
  ["a run of whitespace", `a${" \t\r\n".repeat(HUGE)}b`],
  ["a run of invisible characters", `a${"\u200b\u202e\u2066".repeat(HUGE)}b`],
  ["nested quotes", `"${'\\"'.repeat(HUGE)}"`],
  ["one huge line", "x".repeat(10 * HUGE)],
  ["slashes", "/".repeat(HUGE)],
];
/** No control, line-breaking or direction-changing character. */
const printable = (text: string) =>
  [...text].every((ch) => {
    const c = ch.codePointAt(0) ?? 0;
    return !(c < 0x20 || (c >= 0x7f && c <= 0x9f) || (c >= 0x2028 && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069));
  });

describe("excerpt", () => {
  it.each(WORST)("keeps at most %s's first 200 characters, on one printable line", (_name, text) => {
    for (const tags of [false, true]) {
      const out = excerpt(text, { tags });
      expect(out.length).toBeLessThanOrEqual(MAX_EXCERPT + 1);
      expect(printable(out)).toBe(true);
    }
  });

  it("drops markup as `/<[^<>]*>/g` did, and turns each run of blanks into one space", () => {
    const old = (t: string) =>
      t
        .replace(/<[^<>]*>/g, " ")
        .replace(/\s+/g, " ")
        .trim();
    fc.assert(
      fc.property(fc.array(fc.constantFrom("<", ">", "a", "b", " ", "\n")), (chars) => {
        const text = chars.join("");
        const expected = old(text);
        const cut = expected.length > MAX_EXCERPT ? `${expected.slice(0, MAX_EXCERPT).trimEnd()}…` : expected;
        expect(excerpt(text, { tags: true })).toBe(cut);
      }),
    );
    expect(excerpt("<html><body><h1>Bad\u0007 Gateway</h1>\r\n</body></html>", { tags: true })).toBe("Bad Gateway");
  });

  it("cuts with `…`, never between the halves of a character", () => {
    expect(excerpt("é".repeat(300))).toBe(`${"é".repeat(200)}…`);
    const emoji = `a${"😀".repeat(150)}`;
    const out = excerpt(emoji);
    expect(out.endsWith("…")).toBe(true);
    expect(out).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/); // no lone high surrogate
  });

  it("is written without regular expressions, in excerpt.ts and error-body.ts alike", () => {
    for (const file of ["excerpt.ts", "error-body.ts"]) {
      const source = readFileSync(new URL(`../../src/upstream/${file}`, import.meta.url), "utf8");
      expect(source, file).not.toMatch(
        /new RegExp|\.(?:replace|replaceAll|match|matchAll|split|search)\(\/|\/[gimsuy]*\.(?:test|exec)\(/,
      );
    }
  });
});

describe("describeErrorBody", () => {
  it("says what Prometheus's envelope, Alertmanager's object, a JSON string or an HTML page says", () => {
    const json = (v: unknown) => Buffer.from(JSON.stringify(v));
    expect(describeErrorBody(json({ status: "error", errorType: "bad_data", error: "no" }))).toBe("bad_data: no");
    expect(describeErrorBody(json({ code: 404, message: "path /x was not found" }))).toBe("path /x was not found");
    expect(describeErrorBody(json("not ready yet"))).toBe("not ready yet");
    expect(describeErrorBody(Buffer.from("<html><body><h1>Bad Gateway</h1></body></html>"))).toBe("Bad Gateway");
  });

  it.each(WORST)("describes %s in at most 200 characters", (_name, text) => {
    expect(describeErrorBody(Buffer.from(text)).length).toBeLessThanOrEqual(MAX_EXCERPT + 1);
  });

  it("keeps a JSON error's text to one printable line", () => {
    const body = Buffer.from(JSON.stringify({ error: `line\u2028two\u001b[31m ${"x".repeat(500)}` }));
    const out = describeErrorBody(body);
    expect(printable(out)).toBe(true);
    expect(out.length).toBeLessThanOrEqual(MAX_EXCERPT + 1);
  });
});
