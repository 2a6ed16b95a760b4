import { describe, expect, it } from "vitest";
import { fiveFieldCronWarning } from "../../src/config/cron-meaning.js";

const FIELDS = "(5 fields: minute hour day month weekday)";

describe("fiveFieldCronWarning", () => {
  it("says nothing of 6 fields, which start with seconds", () => {
    for (const cron of ["*/30 * * * * *", "0 */30 * * * *", "* * * * * *", "0 0 3 * * *"])
      expect(fiveFieldCronWarning(cron)).toBeUndefined();
  });

  it("says a minute step runs every N minutes, and the interval for N seconds", () => {
    expect(fiveFieldCronWarning("*/30 * * * *")).toBe(
      `schedule "*/30 * * * *" runs every 30 minutes ${FIELDS}; for every 30 seconds use interval: 30s`,
    );
    expect(fiveFieldCronWarning("*/1 * * * *")).toBe(
      `schedule "*/1 * * * *" runs every minute ${FIELDS}; for every 1 second use interval: 1s`,
    );
  });

  it("names the minutes of a step that does not divide the hour (it restarts at each hour)", () => {
    expect(fiveFieldCronWarning("*/45 * * * *")).toBe(
      `schedule "*/45 * * * *" runs at minutes 0, 45 of each hour ${FIELDS}; for every 45 seconds use interval: 45s`,
    );
  });

  it('says "* * * * *" runs every minute', () => {
    expect(fiveFieldCronWarning("* * * * *")).toBe(
      `schedule "* * * * *" runs every minute ${FIELDS}; for every few seconds use interval, e.g. interval: 30s`,
    );
  });

  it("says a fixed minute runs once an hour", () => {
    expect(fiveFieldCronWarning("30 * * * *")).toBe(
      `schedule "30 * * * *" runs once an hour, at minute 30 ${FIELDS}; for every few seconds use interval, e.g. interval: 30s`,
    );
  });

  it("says of any other that the first field is minutes", () => {
    for (const cron of ["0 3 * * *", "*/5 9-17 * * 1-5", "0,30 * * * *"])
      expect(fiveFieldCronWarning(cron)).toBe(
        `schedule "${cron}" has 5 fields: the first is minutes (minute hour day month weekday); for every few seconds use interval, e.g. interval: 30s`,
      );
  });
});
