import { describe, expect, it } from "vitest";
import { ByteBudget } from "../../src/poll/byte-budget.js";

/** Whether a promise has settled after the microtasks now queued have run. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(
    () => {
      done = true;
    },
    () => {
      done = true;
    },
  );
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

describe("ByteBudget", () => {
  it("makes a download wait while the budget is spent, and lets it go on when bytes are given back", async () => {
    const budget = new ByteBudget(() => 320);
    const a = budget.share();
    const b = budget.share();
    await a.take(300);
    const waiting = b.take(100);
    expect(await settled(waiting)).toBe(false);
    expect(budget.inUse).toBe(300);
    a.giveBack();
    expect(await settled(waiting)).toBe(true);
    expect(budget.inUse).toBe(100);
  });

  it("never makes the oldest holder wait, so two downloads that both need more cannot block each other", async () => {
    const budget = new ByteBudget(() => 320);
    const a = budget.share();
    const b = budget.share();
    await a.take(200);
    await b.take(100);
    const bMore = b.take(100);
    const aMore = a.take(100); // over the budget, but a is the oldest: it goes on
    expect(await settled(aMore)).toBe(true);
    expect(await settled(bMore)).toBe(false);
    expect(budget.inUse).toBe(400);
    a.giveBack();
    expect(await settled(bMore)).toBe(true);
    expect(budget.inUse).toBe(200);
  });

  it("wakes waiting downloads in turn, each counted before the next is judged", async () => {
    const budget = new ByteBudget(() => 100);
    const first = budget.share();
    await first.take(100);
    const [b, c] = [budget.share(), budget.share()];
    const bTake = b.take(60);
    const cTake = c.take(60);
    first.giveBack();
    expect(await settled(bTake)).toBe(true);
    expect(await settled(cTake)).toBe(false);
    expect(budget.inUse).toBe(60);
  });

  it("stops waiting when the download's signal aborts, and counts nothing for it", async () => {
    const budget = new ByteBudget(() => 100);
    const a = budget.share();
    await a.take(100);
    const controller = new AbortController();
    const waiting = budget.share(controller.signal).take(50);
    controller.abort(new Error("timed out"));
    await expect(waiting).rejects.toThrow("timed out");
    a.giveBack();
    expect(budget.inUse).toBe(0);
  });
});
