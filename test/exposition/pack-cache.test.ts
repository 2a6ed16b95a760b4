import { describe, expect, it } from "vitest";
import { type PackedLines, packLines } from "../../src/exposition/pack.js";
import { PackCache } from "../../src/exposition/pack-cache.js";
import { ownMemory, transferList } from "../../src/poll/transferable.js";
import { membersPlain } from "../helpers/families.js";

/** `count` sample lines, `seed` changing their values. */
function lines(count: number, seed = 0): Buffer {
  let text = "";
  for (let i = 0; i < count; i++)
    text += `promstatus_target_up{source="p",instance="host-${i}:9100"} ${(i + seed) % 2}\n`;
  return Buffer.from(text);
}

const plain = (packed: PackedLines) => membersPlain(packed.members);
/**
 * Moves the members away as a decoder thread does when it hands them to the main thread: each in memory
 * of its own (one in a pool of gzip output is copied first), then transferred.
 */
function moveAway(packed: PackedLines) {
  const members = packed.members.map(ownMemory);
  structuredClone(members, { transfer: transferList(members) });
}

describe("PackCache", () => {
  it("gives a family of the same bytes its kept members, and compresses changed bytes anew", () => {
    const cache = new PackCache();
    const first = cache.pack("p\nup", lines(20_000));
    const expected = packLines(lines(20_000));
    expect(first.hash).toBe(expected.hash);
    expect(plain(first).equals(lines(20_000))).toBe(true);
    moveAway(first); // what was handed out is gone from this thread; the cache keeps its own copy

    const again = cache.pack("p\nup", lines(20_000));
    expect(cache.hits).toBe(1);
    expect(again).toMatchObject({ hash: expected.hash, length: expected.length, sizes: expected.sizes });
    expect(plain(again).equals(lines(20_000))).toBe(true);
    moveAway(again); // a kept family handed out again is as much the receiver's
    expect(plain(cache.pack("p\nup", lines(20_000))).equals(lines(20_000))).toBe(true);
    expect(cache.hits).toBe(2);

    const changed = cache.pack("p\nup", lines(20_000, 1));
    expect(cache.hits).toBe(2);
    expect(plain(changed).equals(lines(20_000, 1))).toBe(true);
    // The same bytes under another key (another source or family) are not taken for this one's.
    cache.pack("q\nup", lines(20_000, 1));
    expect(cache.hits).toBe(2);
    cache.pack("p\nup", lines(20_000, 1));
    expect(cache.hits).toBe(3);
  });

  it("takes lines named new as new without hashing them, and gives them again only by that name", () => {
    const cache = new PackCache();
    cache.pack("p\nup", lines(20_000));
    // The same bytes, but named new by their writer: compressed anew, kept under the name.
    const named = cache.pack("p\nup", lines(20_000), "writer/1");
    expect(cache.hits).toBe(0);
    expect(named.hash).toBe("writer/1");
    expect(plain(named).equals(lines(20_000))).toBe(true);
    moveAway(named);
    expect(cache.again("p\nup", "writer/2")).toBeUndefined();
    expect(cache.again("q\nup", "writer/1")).toBeUndefined();
    const again = cache.again("p\nup", "writer/1");
    expect(again && plain(again).equals(lines(20_000))).toBe(true);
    expect(cache.hits).toBe(1);
  });

  it("keeps no more than its byte budget, the oldest keys going first", () => {
    const one = packLines(lines(20_000)).members.reduce((n, m) => n + m.byteLength, 0);
    const cache = new PackCache(Math.floor(2.5 * one));
    for (const key of ["a", "b", "c"]) cache.pack(key, lines(20_000));
    cache.pack("c", lines(20_000)); // kept
    cache.pack("b", lines(20_000)); // kept
    cache.pack("a", lines(20_000)); // went first, to make room for c
    expect(cache.hits).toBe(2);
  });

  it("lets go of its own copies only, as they are replaced or pushed out: never of members it handed out", () => {
    const one = packLines(lines(20_000)).members.reduce((n, m) => n + m.byteLength, 0);
    const dropped: Uint8Array[] = [];
    const cache = new PackCache(Math.floor(2.5 * one), (members) => dropped.push(...members));
    const handedOut: Uint8Array[] = [];
    const give = (packed: PackedLines) => {
      handedOut.push(...packed.members);
      return packed;
    };
    give(cache.pack("a", lines(20_000)));
    give(cache.pack("a", lines(20_000))); // the same bytes: kept, nothing let go
    expect(dropped).toEqual([]);
    give(cache.pack("a", lines(20_000, 1))); // changed: the copy kept for the first bytes goes
    const firstKept = dropped.length;
    expect(firstKept).toBe(packLines(lines(20_000)).members.length);
    give(cache.pack("b", lines(20_000)));
    give(cache.pack("c", lines(20_000))); // over budget: a's copy is pushed out
    expect(dropped.length).toBe(firstKept + packLines(lines(20_000, 1)).members.length);
    give(cache.packPieces("c", [lines(100, 2)], "writer/1")); // replaced by pieces
    expect(dropped.length).toBe(
      firstKept + packLines(lines(20_000, 1)).members.length + packLines(lines(20_000)).members.length,
    );
    // What was handed out is never among what the cache let go, and still inflates to its lines.
    // Members are views of a family's one buffer: what was let go shares no memory with what was handed out.
    const handedOutMemory = new Set(handedOut.map((m) => m.buffer));
    for (const member of dropped) expect(handedOutMemory.has(member.buffer)).toBe(false);
    expect(handedOut.every((m) => m.byteLength > 0)).toBe(true);
  });

  it("keeps no members of a family replaced before it was asked for again, until it is asked for again", () => {
    const cache = new PackCache();
    const one = cache.packPieces("p\nlast", [lines(20_000, 0)], "w/1");
    expect(cache.bytes).toBeGreaterThan(0); // kept, as any family the first time
    moveAway(one);
    const two = cache.packPieces("p\nlast", [lines(20_000, 1)], "w/2"); // moved on, nobody asked for w/1
    expect(cache.bytes).toBe(0); // volatile: no members kept
    expect(plain(two).equals(lines(20_000, 1))).toBe(true); // what is handed out is whole
    const three = cache.packPieces("p\nlast", [lines(20_000, 2)], "w/3");
    expect(cache.bytes).toBe(0);
    expect(plain(three).equals(lines(20_000, 2))).toBe(true);
    // The same bytes again: nothing to give, so the writer writes them again, and they are kept in full.
    expect(cache.again("p\nlast", "w/3")).toBeUndefined();
    expect(cache.hits).toBe(0);
    cache.packPieces("p\nlast", [lines(20_000, 2)], "w/4");
    expect(cache.bytes).toBeGreaterThan(0);
    const again = cache.again("p\nlast", "w/4");
    expect(again && plain(again).equals(lines(20_000, 2))).toBe(true);
    expect(cache.hits).toBe(1);
    // A family asked for again is kept in full when it changes next (a steady family's rare change).
    cache.packPieces("p\nlast", [lines(20_000, 3)], "w/5");
    expect(cache.bytes).toBeGreaterThan(0);
  });
});
