import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatValue } from "../../src/exposition/format-value.js";
import { MAX_VALUE_BYTES, writeValue } from "../../src/exposition/value-bytes.js";

const written = (value: number): string => {
  const out = Buffer.alloc(MAX_VALUE_BYTES + 8, 0x21);
  const end = writeValue(out, 4, value);
  // Nothing written before the offset or past what it says it wrote, and no more than the room it asks for.
  expect(end - 4).toBeLessThanOrEqual(MAX_VALUE_BYTES);
  expect(out.subarray(0, 4).toString("latin1")).toBe("!!!!");
  expect(out.subarray(end).every((b) => b === 0x21)).toBe(true);
  return out.subarray(4, end).toString("latin1");
};

describe("writeValue", () => {
  it("writes what formatValue writes, at the edges of fixed notation and of 15 digits", () => {
    for (const value of [
      0,
      -0,
      1,
      -1,
      10,
      0.5,
      0.1,
      0.30000000000000004,
      12.5,
      1e9,
      0.001270794,
      0.016069513,
      1795237198.104,
      1795237198.1,
      1795237198,
      1e-6,
      9.99e-7,
      1e-7,
      0.0000012,
      5e-324,
      123456789012345,
      999999999999999,
      1e15,
      1234567890123456,
      1e21,
      1.7976931348623157e308,
      100.000000001,
      0.000001000000001,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      Number.NEGATIVE_INFINITY,
    ])
      expect(written(value), String(value)).toBe(formatValue(value));
  });

  it("writes what formatValue writes for any double", () => {
    fc.assert(
      fc.property(fc.double(), (value) => {
        expect(written(value)).toBe(formatValue(value));
      }),
      { numRuns: 20_000 },
    );
  });

  it("writes what formatValue writes for the values targets have: milliseconds and nanoseconds as seconds", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 9 }),
        fc.oneof(fc.integer({ min: 0, max: 2 ** 31 }), fc.maxSafeNat()),
        fc.boolean(),
        (scale, m, negative) => {
          const value = (negative ? -m : m) / 10 ** scale;
          expect(written(value)).toBe(formatValue(value));
        },
      ),
      { numRuns: 20_000 },
    );
  });
});
