import { randomBytes } from "node:crypto";
import { constants, inflateRawSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import type { PackedLines } from "../../src/exposition/pack.js";
import { PackCache } from "../../src/exposition/pack-cache.js";

// The decoder thread's pack cache frees its own copies as it lets them go (replaced, pushed out over
// its budget, kept without members when volatile): whatever the order of writes and asks, nothing it
// hands out is ever freed memory (zero-length members) or other bytes than asked for.

const lines = (n: number) => {
  const rows: string[] = [];
  for (let i = 0; i < n; i++) rows.push(`promstatus_target_up{instance="${randomBytes(12).toString("hex")}"} 1\n`);
  return Buffer.from(rows.join(""));
};

const plainOf = (packed: PackedLines) =>
  inflateRawSync(Buffer.concat(packed.members), { finishFlush: constants.Z_SYNC_FLUSH });

// A deterministic walk (no Math.random: a failure must replay).
function* steps(n: number) {
  let x = 12345;
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    yield x;
  }
}

describe("PackCache over a long sequence: frees only what it no longer hands out", () => {
  it("hands out whole members of the asked bytes through replacements, evictions and volatile families", () => {
    // A budget of a few families: writes push older keys out.
    const cache = new PackCache(160 * 1024);
    const model = new Map<string, { name?: string; sha?: Buffer; lines: Buffer }>();
    let named = 0;
    let handed = 0;
    let hits = 0;
    // What was handed out stays served (on the main thread) after the cache let its own copy go.
    const served: [PackedLines, Buffer][] = [];
    const check = (packed: PackedLines, expected: Buffer) => {
      handed++;
      served.push([packed, expected]);
      expect(packed.members.every((m) => m.byteLength > 0)).toBe(true);
      expect(packed.length).toBe(expected.length);
      expect(plainOf(packed).equals(expected)).toBe(true);
    };
    for (const x of steps(600)) {
      const key = `src-${x % 7}\nfamily-${(x >> 3) % 2}`;
      const op = (x >> 5) % 4;
      const known = model.get(key);
      if (op === 0 || known === undefined) {
        // New bytes, written in pieces under a new name (a per-target family of the fast path).
        const text = lines(200 + ((x >> 7) % 1500));
        const name = `n/${++named}`;
        check(cache.packPieces(key, [text.subarray(0, text.length >> 1), text.subarray(text.length >> 1)], name), text);
        model.set(key, { name, lines: text });
      } else if (op === 1 && known.name !== undefined) {
        // Its writer asks for the same bytes again: kept members, or undefined (volatile or pushed out).
        const again = cache.again(key, known.name);
        if (again !== undefined) {
          hits++;
          check(again, known.lines);
        } else {
          const name = `n/${++named}`;
          check(cache.packPieces(key, [known.lines], name), known.lines);
          model.set(key, { name, lines: known.lines });
        }
      } else {
        // Whole lines by content (a pool family): the same bytes as before half of the time.
        const text = op === 2 && known.sha ? known.sha : lines(100 + ((x >> 9) % 800));
        check(cache.pack(key, text), text);
        model.set(key, { sha: text, lines: text });
      }
      expect(cache.bytes).toBeLessThanOrEqual(160 * 1024);
    }
    expect(handed).toBe(600);
    for (const [packed, expected] of served) {
      expect(packed.members.every((m) => m.byteLength > 0)).toBe(true);
      expect(plainOf(packed).equals(expected)).toBe(true);
    }
    expect(hits).toBeGreaterThanOrEqual(5);
  });
});
