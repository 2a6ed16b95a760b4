import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import { headTimeSeconds, healthOf, lastScrapeSeconds, rfc3339Seconds, targetHealth } from "../../src/convert/time.js";

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

describe("healthOf", () => {
  it("reads a target's lastScrape only when its health depends on it (a down target with no error)", () => {
    const reads: string[] = [];
    const target = (health: string, lastError: string, lastScrape: string) => ({
      health,
      lastError,
      get lastScrape() {
        reads.push(`${health}/${lastError}`);
        return lastScrape;
      },
    });
    expect(healthOf(target("up", "", "0001-01-01T00:00:00Z"))).toBe("up");
    expect(healthOf(target("down", "EOF", "0001-01-01T00:00:00Z"))).toBe("down");
    expect(healthOf(target("unknown", "", "0001-01-01T00:00:00Z"))).toBe("unknown");
    expect(reads).toEqual([]);
    expect(healthOf(target("down", "", "0001-01-01T00:00:00Z"))).toBe("unknown");
    expect(reads).toEqual(["down/"]);
  });
  it("says what targetHealth says", () =>
    fc.assert(
      fc.property(
        fc.constantFrom("up", "down", "unknown", ""),
        fc.constantFrom("", "EOF", "server returned HTTP status 500"),
        fc.option(fc.constantFrom("0001-01-01T00:00:00Z", "1970-01-01T00:00:00Z", "2026-11-26T17:00:00.1Z", "x"), {
          nil: undefined,
        }),
        (health, lastError, lastScrape) =>
          healthOf({ health, lastError, lastScrape }) === targetHealth(health, lastError, lastScrape),
      ),
    ));
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

  it("reads a target's usual last scrape (UTC, a fraction) without Date.parse", () => {
    const parse = vi.spyOn(Date, "parse");
    try {
      expect(rfc3339Seconds("2026-11-21T05:00:26.17003266Z")).toBe(Date.UTC(2026, 10, 21, 5, 0, 26, 170) / 1000);
      expect(rfc3339Seconds("2000-02-28T23:59:59Z")).toBe(Date.UTC(2000, 1, 28, 23, 59, 59) / 1000);
      expect(parse).not.toHaveBeenCalled();
    } finally {
      parse.mockRestore();
    }
  });

  it("gives what Date.parse gives for times read one after another, sharing their minute or not", () => {
    // The minute a time begins with is kept from the one before: a time of the same first 16 bytes
    // reads only its seconds on, whatever they are.
    const minute = fc.constantFrom(
      "2026-11-21T05:00",
      "2026-11-21T05:01",
      "2026-02-28T23:59",
      "1999-12-28T00:00",
      "2026-11-21T25:00",
      "2026-11-29T05:00",
      "2026-11-21T05:0x",
      "\u0000".repeat(16),
      "1970-01-01T00:00",
    );
    const rest = fc.oneof(
      fc.constantFrom(":00Z", ":59.999Z", ":60Z", ":5Z", "::00Z", ":00.Z", ":00.1234567891Z", ":07.5", ":07.5+01:00"),
      fc.stringMatching(/^:[0-9]{2}(\.[0-9]{1,9})?Z$/),
    );
    fc.assert(
      fc.property(fc.array(fc.tuple(minute, rest), { minLength: 1, maxLength: 20 }), (times) => {
        for (const [m, r] of times) {
          const t = m + r;
          const ms = Date.parse(t);
          expect(rfc3339Seconds(t)).toBe(Number.isNaN(ms) ? undefined : ms / 1000);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it("gives what Date.parse gives, for any text near that form", () => {
    const two = (max: number) => fc.integer({ min: 0, max }).map((n) => String(n).padStart(2, "0"));
    const text = fc
      .record({
        year: fc.oneof(fc.integer({ min: 1960, max: 2400 }), fc.integer({ min: 0, max: 9999 })),
        month: two(13),
        day: two(32),
        hour: two(25),
        minute: two(61),
        second: two(61),
        fraction: fc.oneof(fc.constant(""), fc.stringMatching(/^\.[0-9]{0,11}$/), fc.constant(".x")),
        zone: fc.constantFrom("Z", "z", "", "+01:00", "-05:30", "ZZ"),
        sep: fc.constantFrom("T", "T", "T", "t", " "),
      })
      .map(
        (f) =>
          `${String(f.year).padStart(4, "0")}-${f.month}-${f.day}${f.sep}${f.hour}:${f.minute}:${f.second}${f.fraction}${f.zone}`,
      );
    fc.assert(
      fc.property(fc.oneof(text, fc.string({ maxLength: 32 })), (t) => {
        const ms = Date.parse(t);
        const expected = t === "" || t.startsWith("0001-01-01") || Number.isNaN(ms) ? undefined : ms / 1000;
        expect(rfc3339Seconds(t)).toBe(expected);
      }),
      { numRuns: 20_000 },
    );
  });
});
