import { createGunzip, gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { INFLATE_CHUNK_BYTES } from "../../src/lib/gunzip-pieces.js";
import { type NativeZlib, syncGunzip, writesBack } from "../../src/lib/gunzip-sync.js";

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

describe("syncGunzip", () => {
  it("hands over the inflated bytes in order, as views of one buffer written again once read", () => {
    const text = Buffer.from(Array.from({ length: 40_000 }, (_, i) => `line ${i} ${(i * 7919) % 1000}\n`).join(""));
    const zipped = gzipSync(text);
    const buffers = new Set<ArrayBufferLike>();
    const copies: Buffer[] = [];
    const gunzip = syncGunzip((piece) => {
      buffers.add(piece.buffer);
      copies.push(Buffer.from(piece)); // a reader keeps nothing of a piece: what it needs, it copies
      return true;
    });
    if (!gunzip) throw new Error("this Node.js cannot gunzip synchronously");
    for (let at = 0; at < zipped.length; at += 5000) gunzip.write(zipped.subarray(at, at + 5000));
    gunzip.end();
    expect(text.length).toBeGreaterThan(3 * INFLATE_CHUNK_BYTES);
    expect(Buffer.concat(copies).equals(text)).toBe(true);
    expect(buffers.size).toBe(1);
  });
});
