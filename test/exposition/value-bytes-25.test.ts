import { describe, expect, it } from "vitest";
import { formatValue } from "../../src/exposition/format-value.js";
import { MAX_VALUE_BYTES } from "../../src/exposition/value-bytes.js";
import { decodeAnswer } from "../../src/poll/decode.js";
import { decodeOptions } from "../helpers/decode-options.js";

// A double's text can take 25 bytes: a negative value in fixed notation just above 1e-6
// in magnitude with 17 significant digits ("-0.0000012345678901234567"). FamilyWriter
// (exposition/target-lines.ts) leaves MAX_VALUE_BYTES of room before each value; a 25-byte value that
// starts exactly MAX_VALUE_BYTES before the end of its buffer loses its last byte, and the line gets
// the buffer's next (here 0) byte instead. Any scrape duration an upstream sends is served as it is.

const OPTIONS = decodeOptions({ labelPrefix: 'source="s"', maxBytes: 2 ** 28 });

describe("per-target values of 25 bytes", () => {
  it("MAX_VALUE_BYTES bounds every double's text", () => {
    for (const v of [-1.2345678901234567e-6, -1.0000000000000002e-6, -9.876543210987654e-6])
      expect(formatValue(v).length).toBeLessThanOrEqual(MAX_VALUE_BYTES);
  });

  it("serves a 25-byte duration at the values buffer's end as the reference path does", () => {
    // Three targets, values of 24, 24 and 25 bytes: the third starts at 48 of a 72-byte buffer (3 * 16 + 24).
    const durations = ["-1.2345678901234568e-300", "-2.2345678901234567e-300", "-0.0000012345678901234567"];
    const targets = durations.map(
      (d, i) => `{"labels":{"job":"j","instance":"i${i}"},"scrapePool":"j","health":"up","lastScrapeDuration":${d}}`,
    );
    const body = Buffer.from(
      `{"status":"success","data":{"activeTargets":[${targets.join(",")}],"droppedTargets":[]}}`,
    );
    const job = { endpoint: "targets" as const, body, encoding: undefined, options: OPTIONS };
    const text = (result: ReturnType<typeof decodeAnswer>) =>
      result.ok ? result.families.map(([, lines]) => Buffer.from(lines).toString("latin1")).join("") : result.message;
    const fast = text(decodeAnswer(job));
    expect(fast).not.toContain("\u0000");
    expect(fast).toBe(text(decodeAnswer(job, { reference: true })));
  });
});
