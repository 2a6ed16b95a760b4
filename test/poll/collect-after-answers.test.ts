import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { BYTES_WORTH_COLLECTING, CollectAfterAnswers, QUIET_MS } from "../../src/poll/collect-after-answers.js";

describe("CollectAfterAnswers", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const collector = () => {
    const calls: string[] = [];
    const after = new CollectAfterAnswers(() => (options) => calls.push(options.type));
    return { calls, after };
  };

  it("collects the young generation once, a moment after the last of a poll's answers ended", () => {
    const { calls, after } = collector();
    after.opened();
    after.opened();
    after.read(BYTES_WORTH_COLLECTING);
    after.ended(1); // one still open
    vi.advanceTimersByTime(10 * QUIET_MS);
    expect(calls).toEqual([]);
    after.ended(0);
    vi.advanceTimersByTime(QUIET_MS - 1);
    expect(calls).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(calls).toEqual(["minor"]);
    expect(after.collections).toBe(1);
    vi.advanceTimersByTime(10 * QUIET_MS);
    expect(calls).toEqual(["minor"]);
  });

  it("waits again when another answer opens meanwhile, and collects once for both", () => {
    const { calls, after } = collector();
    after.opened();
    after.read(BYTES_WORTH_COLLECTING);
    after.ended(0);
    vi.advanceTimersByTime(QUIET_MS / 2);
    after.opened(); // the next source's answer
    vi.advanceTimersByTime(10 * QUIET_MS);
    expect(calls).toEqual([]);
    after.read(10);
    after.ended(0);
    vi.advanceTimersByTime(QUIET_MS);
    expect(calls).toEqual(["minor"]);
  });

  it("does not collect for small answers, until they add up; the bytes count again from each collection", () => {
    const { calls, after } = collector();
    for (let i = 0; i < 3; i++) {
      after.opened();
      after.read(BYTES_WORTH_COLLECTING / 4);
      after.ended(0);
      vi.advanceTimersByTime(QUIET_MS);
    }
    expect(calls).toEqual([]);
    after.opened();
    after.read(BYTES_WORTH_COLLECTING / 4);
    after.ended(0); // a dropped or given-up answer ends too
    vi.advanceTimersByTime(QUIET_MS);
    expect(calls).toEqual(["minor"]);
    after.opened();
    after.read(BYTES_WORTH_COLLECTING / 2);
    after.ended(0);
    vi.advanceTimersByTime(QUIET_MS);
    expect(calls).toEqual(["minor"]);
  });

  it("does nothing where the runtime gives no collector", () => {
    const after = new CollectAfterAnswers(() => undefined);
    after.opened();
    after.read(2 * BYTES_WORTH_COLLECTING);
    after.ended(0);
    vi.advanceTimersByTime(QUIET_MS);
    expect(after.collections).toBe(0);
  });
});

describe("CollectAfterAnswers, taking its collector", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("takes it at its first collection only, and never for small answers", () => {
    let taken = 0;
    const after = new CollectAfterAnswers(() => {
      taken++;
      return () => {};
    });
    after.opened();
    after.read(10);
    after.ended(0);
    vi.advanceTimersByTime(10 * QUIET_MS);
    expect(taken).toBe(0); // a thread of small answers (or none streamed) never takes one
    for (let poll = 0; poll < 3; poll++) {
      after.opened();
      after.read(BYTES_WORTH_COLLECTING);
      after.ended(0);
      vi.advanceTimersByTime(QUIET_MS);
    }
    expect([taken, after.collections]).toEqual([1, 3]);
  });
});
