import { describe, expect, it } from "vitest";
import { pieceRead } from "../../src/upstream/read-garbage.js";
import { youngCollections } from "../helpers/young-collections.js";

describe("collecting the read pieces' garbage", () => {
  // A piece's buffer is as large as the socket read that filled it (Node shrinks it to the bytes read),
  // so an upstream that drips its answer a byte per read leaves a byte of garbage per piece. Collected
  // every 64 pieces, its 64 KiB answer set off 1024 young collections on the main thread for nothing.
  it("collects by the bytes read, not per piece: a dripped answer's 1-byte pieces set off none", async () => {
    // Made first: making them inside would set off collections of its own.
    const pieces = Array.from({ length: 64 * 1024 }, () => new Uint8Array(1));
    const n = await youngCollections(() => {
      for (const piece of pieces) pieceRead(piece);
    });
    expect(n).toBeLessThanOrEqual(2);
  });

  it("counts a buffer once: 1-byte HTTP chunks, many pieces of one read's buffer, set off none", async () => {
    const read = new ArrayBuffer(64 * 1024);
    const pieces = Array.from({ length: 64 * 1024 }, (_, i) => new Uint8Array(read, i, 1));
    const n = await youngCollections(() => {
      for (const piece of pieces) pieceRead(piece);
    });
    expect(n).toBeLessThanOrEqual(2);
  });

  it("counts the memory a piece holds, not its length: 16 KB pieces of 64 KiB reads", async () => {
    const n = await youngCollections(() => {
      for (let i = 0; i < 64 * 16; i++) pieceRead(new Uint8Array(new ArrayBuffer(64 * 1024), 0, 16 * 1024));
    });
    expect(n).toBeGreaterThanOrEqual(15);
  });

  it("still collects every ~4 MiB of full 64 KiB pieces", async () => {
    const n = await youngCollections(() => {
      for (let i = 0; i < 64 * 16; i++) pieceRead(new Uint8Array(64 * 1024));
    });
    expect(n).toBeGreaterThanOrEqual(15);
  });
});
