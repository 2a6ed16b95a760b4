import { pino } from "pino";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { startTicks } from "../../src/schedule/ticks.js";

const log = pino({ level: "silent" });

// Only the interval timer is faked: the clock moves when the test says, never by waiting.
beforeEach(() => void vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] }));
afterEach(() => void vi.useRealTimers());

describe("startTicks with an interval", () => {
  it("ticks once per interval, the first one interval after the start", async () => {
    let ticks = 0;
    const running = startTicks({ interval: "45s", intervalMs: 45_000 }, () => ticks++, "s", log);
    vi.advanceTimersByTime(44_999);
    expect(ticks).toBe(0);
    vi.advanceTimersByTime(1);
    expect(ticks).toBe(1);
    vi.advanceTimersByTime(90_000);
    expect(ticks).toBe(3);
    await running.stop();
  });

  it("ticks no more once stopped, leaving no timer behind", async () => {
    let ticks = 0;
    const running = startTicks({ interval: "1m30s", intervalMs: 90_000 }, () => ticks++, "s", log);
    expect(vi.getTimerCount()).toBe(1);
    await running.stop();
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(10 * 90_000);
    expect(ticks).toBe(0);
  });
});
