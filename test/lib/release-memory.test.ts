import { describe, expect, it } from "vitest";
import { joinViews } from "../../src/lib/joined-views.js";
import { release, releaseAll } from "../../src/lib/release-memory.js";

// `release` frees a chunk's memory on the decoder thread, outside any try: a throw there would end the
// thread and fail every answer it was reading. Node 21+'s transfer(0) throws for memory that cannot be
// detached (Node's shared Buffer pool, a WebAssembly memory); the collector frees those as before.
describe("release", () => {
  it.each([
    ["a slice of Node's shared Buffer pool", () => Buffer.from("abc")],
    ["a WebAssembly memory", () => new Uint8Array(new WebAssembly.Memory({ initial: 1 }).buffer)],
    ["shared memory", () => new Uint8Array(new SharedArrayBuffer(8))],
    ["a view into a larger buffer of its own", () => new Uint8Array(new ArrayBuffer(64)).subarray(8, 16)],
    [
      "memory already freed",
      () => {
        const view = new Uint8Array(8);
        release(view);
        return view;
      },
    ],
  ])("leaves %s as it is, without throwing", (_, make) => {
    const view = make();
    const before = view.byteLength;
    const whole = view.buffer.byteLength;
    expect(() => release(view)).not.toThrow();
    expect(view.byteLength).toBe(before);
    expect(view.buffer.byteLength).toBe(whole); // nor the memory around it
  });

  it("frees memory of its own where the runtime can (Node 21 and newer)", () => {
    const view = new Uint8Array(new ArrayBuffer(64));
    release(view);
    const canDetach = typeof (ArrayBuffer.prototype as { transfer?: unknown }).transfer === "function";
    expect(view.byteLength).toBe(canDetach ? 0 : 64);
  });
});

describe("releaseAll", () => {
  const canDetach = typeof (ArrayBuffer.prototype as { transfer?: unknown }).transfer === "function";

  it("frees the one buffer views share when they are all of it (Node 21 and newer)", () => {
    const [a, b] = joinViews([Buffer.from("one member"), Buffer.from("and the next")]) as [Uint8Array, Uint8Array];
    releaseAll([a, b]);
    expect([a.byteLength, b.byteLength]).toEqual(canDetach ? [0, 0] : [10, 12]);
  });

  it("leaves memory alone that the views are only part of, and frees views of their own one by one", () => {
    const shared = new Uint8Array(new ArrayBuffer(64));
    const parts = [shared.subarray(0, 16), shared.subarray(16, 32)];
    const own = [new Uint8Array(8), new Uint8Array(8)];
    releaseAll(parts);
    releaseAll(own);
    expect(shared.byteLength).toBe(64);
    expect(parts.map((v) => v.byteLength)).toEqual([16, 16]);
    expect(own.map((v) => v.byteLength)).toEqual(canDetach ? [0, 0] : [8, 8]);
  });
});
