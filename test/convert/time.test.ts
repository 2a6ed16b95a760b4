import { describe, expect, it } from "vitest";
import { headTimeSeconds, lastScrapeSeconds, rfc3339Seconds, targetHealth } from "../../src/convert/time.js";

describe("headTimeSeconds", () => {
  it("converts milliseconds to seconds", () => expect(headTimeSeconds(1_700_000_000_123)).toBe(1_700_000_000.123));
  it("treats Go's int64 extremes as no data", () => {
    expect(headTimeSeconds(JSON.parse("9223372036854775807"))).toBeUndefined();
    expect(headTimeSeconds(JSON.parse("-9223372036854775808"))).toBeUndefined();
  });
  it("treats 0 as no data (Thanos Query with no store: an empty sum)", () =>
    expect(headTimeSeconds(0)).toBeUndefined());
});

describe("lastScrapeSeconds and targetHealth", () => {
  it("read the epoch in any zone, and Go's zero time, as never scraped", () => {
    for (const never of [
      "0001-01-01T00:00:00Z",
      "1970-01-01T00:00:00Z",
      "1970-01-01T01:00:00+01:00",
      "1969-12-31T19:00:00-05:00",
    ]) {
      expect(lastScrapeSeconds(never), never).toBeUndefined();
      expect(targetHealth("down", "", never), never).toBe("unknown");
      expect(targetHealth("down", "EOF", never), never).toBe("down");
      expect(targetHealth("up", "", never), never).toBe("up");
    }
    expect(lastScrapeSeconds("1970-01-01T00:00:00.001Z")).toBe(0.001);
    expect(targetHealth("down", "", "1970-01-01T00:00:00.001Z")).toBe("down");
    expect(targetHealth("down", "", undefined)).toBe("down");
    expect(targetHealth("down", "", "garbage")).toBe("down");
  });
});

describe("rfc3339Seconds", () => {
  it("accepts nanosecond fractions", () => {
    expect(rfc3339Seconds("2026-11-21T05:16:23.528841722Z")).toBe(Date.UTC(2026, 10, 21, 5, 16, 23, 528) / 1000);
  });
  it("accepts offsets", () => expect(rfc3339Seconds("2026-01-01T01:00:00+01:00")).toBe(Date.UTC(2026, 0, 1) / 1000));
  it("treats Go's zero time as never", () => expect(rfc3339Seconds("0001-01-01T00:00:00Z")).toBeUndefined());
  it("returns undefined for garbage", () => {
    expect(rfc3339Seconds("yesterday")).toBeUndefined();
    expect(rfc3339Seconds(undefined)).toBeUndefined();
  });
});
