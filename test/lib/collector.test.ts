import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { type Collect, takeCollector } from "../../src/lib/collector.js";

const arrayBufferMB = () => process.memoryUsage().arrayBuffers / 2 ** 20;

/**
 * Memory (MB) of ArrayBuffers while 4 MiB more of them, made young (just after a collection of the
 * young generation), are reachable. They are made and dropped in here, so that no register of the
 * caller's frame still holds them: as an answer's read pieces are.
 */
function withYoungBuffers(collect: Collect): number {
  collect({ type: "minor" });
  const pieces = Array.from({ length: 64 }, () => new Uint8Array(64 * 1024).fill(1));
  const mb = arrayBufferMB();
  return pieces.length > 0 ? mb : 0;
}

describe("takeCollector", () => {
  it("gives a collector of the calling thread's young generation, without leaving a global gc behind", async () => {
    const collect = takeCollector() as Collect;
    expect(collect).toBeTypeOf("function");
    expect((globalThis as { gc?: unknown }).gc).toBeUndefined();
    const withPieces = withYoungBuffers(collect);
    collect({ type: "minor" });
    // Their memory is freed by a sweeper that may finish after the collection returns.
    for (let i = 0; i < 50 && withPieces - arrayBufferMB() < 3; i++) await sleep(10);
    expect(withPieces - arrayBufferMB()).toBeGreaterThanOrEqual(3);
  });
});
