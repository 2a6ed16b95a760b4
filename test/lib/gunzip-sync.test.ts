import { createGunzip } from "node:zlib";
import { describe, expect, it } from "vitest";
import { type NativeZlib, writesBack } from "../../src/lib/gunzip-sync.js";

describe("writesBack", () => {
  it("holds for the handle of this Node.js's gunzip stream", () => {
    const stream = createGunzip() as unknown as { _handle: NativeZlib; _writeState: Uint32Array };
    expect(writesBack(stream._handle, stream._writeState)).toBe(true);
    (stream as unknown as { destroy(): void }).destroy();
  });

  it("fails a handle that does not say what it did where it is read (the stream is used then)", () => {
    const silent: NativeZlib = { writeSync: () => {}, onerror: () => {} };
    expect(writesBack(silent, new Uint32Array(2))).toBe(false);
    const throwing: NativeZlib = {
      writeSync: () => {
        throw new TypeError("changed");
      },
      onerror: () => {},
    };
    expect(writesBack(throwing, new Uint32Array(2))).toBe(false);
  });
});
