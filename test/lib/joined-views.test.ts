import { describe, expect, it } from "vitest";
import { joinViews, tileOneBuffer } from "../../src/lib/joined-views.js";

describe("joinViews", () => {
  it("copies views side by side into one buffer of their own, in order, leaving the originals alone", () => {
    const a = Buffer.from("first member ");
    const b = new Uint8Array(new ArrayBuffer(300_000)).fill(7).subarray(10, 200_010);
    const c = Buffer.from("third");
    const joined = joinViews([a, b, c]);
    expect(joined.map((v) => v.byteLength)).toEqual([a.byteLength, b.byteLength, c.byteLength]);
    expect(new Set(joined.map((v) => v.buffer)).size).toBe(1);
    expect(tileOneBuffer(joined)).toBe(true);
    expect(Buffer.from(joined[0] as Uint8Array).toString()).toBe("first member ");
    expect((joined[1] as Uint8Array).every((byte) => byte === 7)).toBe(true);
    expect(Buffer.from(joined[2] as Uint8Array).toString()).toBe("third");
    (joined[0] as Uint8Array).fill(0); // copies: writing them changes nothing of what they came from
    expect(a.toString()).toBe("first member ");
  });

  it("gives nothing for nothing, and empty views their places", () => {
    expect(joinViews([])).toEqual([]);
    const joined = joinViews([new Uint8Array(0), Uint8Array.of(1, 2), new Uint8Array(0)]);
    expect(joined.map((v) => [v.byteOffset, v.byteLength])).toEqual([
      [0, 0],
      [0, 2],
      [2, 0],
    ]);
    expect(tileOneBuffer(joined)).toBe(true);
  });
});

describe("tileOneBuffer", () => {
  const buffer = new ArrayBuffer(10);
  const view = (from: number, to: number, of = buffer) => new Uint8Array(of, from, to - from);
  it.each([
    ["the whole buffer", [view(0, 10)], true],
    ["pieces in order, no gap", [view(0, 4), view(4, 9), view(9, 10)], true],
    ["no views", [], false],
    ["a gap", [view(0, 4), view(5, 10)], false],
    ["an overlap", [view(0, 5), view(4, 10)], false],
    ["pieces out of order", [view(4, 10), view(0, 4)], false],
    ["part of the buffer", [view(0, 4), view(4, 9)], false],
    ["two buffers", [view(0, 4), view(4, 10, new ArrayBuffer(10))], false],
    ["the same piece twice", [view(0, 5), view(0, 5)], false],
  ])("%s: %s", (_, views, expected) => {
    expect(tileOneBuffer(views)).toBe(expected);
  });
});
