import { describe, expect, it } from "vitest";
import { headTimeSeconds, rfc3339Seconds } from "../../src/convert/time.js";

describe("headTimeSeconds", () => {
  it("converts milliseconds to seconds", () => expect(headTimeSeconds(1_700_000_000_123)).toBe(1_700_000_000.123));
  it("treats Go's int64 extremes as no data", () => {
    expect(headTimeSeconds(JSON.parse("9223372036854775807"))).toBeUndefined();
    expect(headTimeSeconds(JSON.parse("-9223372036854775808"))).toBeUndefined();
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
