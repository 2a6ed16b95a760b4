import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LastBytes } from "../../src/lib/last-bytes.js";

describe("LastBytes", () => {
  it("keeps the last bytes of the pieces that passed, whatever their sizes", () => {
    fc.assert(
      fc.property(
        fc.nat({ max: 40 }),
        fc.array(fc.uint8Array({ maxLength: 60 }), { maxLength: 12 }),
        (size, pieces) => {
          const last = new LastBytes(size);
          for (const piece of pieces) last.keep(piece);
          const all = Buffer.concat(pieces);
          expect(last.bytes()).toEqual(all.subarray(Math.max(0, all.length - size)));
        },
      ),
      { numRuns: 500 },
    );
  });

  it("copies what it keeps: a piece changed or detached afterwards changes nothing", () => {
    const last = new LastBytes(4);
    const piece = new Uint8Array([1, 2, 3, 4, 5, 6]);
    last.keep(piece);
    structuredClone(piece.buffer, { transfer: [piece.buffer] }); // as a piece moved to another thread
    expect([...last.bytes()]).toEqual([3, 4, 5, 6]);
  });
});
