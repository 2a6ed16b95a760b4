import { describe, expect, it } from "vitest";
import { BoundedMap } from "../../src/lib/bounded-map.js";

describe("BoundedMap", () => {
  it("keeps the sizes within its budget, the oldest set going first, a key set again the newest", () => {
    const map = new BoundedMap<string>((v) => v.length, { bytes: 9 });
    map.set("a", "xxxx");
    map.set("b", "xxxx");
    map.set("a", "xxx"); // a is now the newest
    expect(map.set("c", "xxx")).toBe(true); // 4 + 3 + 3 is over 9: b, the oldest, goes
    expect([...map].map(([k]) => k)).toEqual(["a", "c"]);
    expect(map.bytes).toBe(6);
  });

  it("keeps at most `count` values, and none larger than `entryBytes`", () => {
    const map = new BoundedMap<string>((v) => v.length, { bytes: 100, count: 2, entryBytes: 5 });
    for (const k of ["a", "b", "c"]) map.set(k, "x");
    expect([...map].map(([k]) => k)).toEqual(["b", "c"]);
    expect(map.set("b", "xxxxxx")).toBe(false);
    expect(map.get("b")).toBeUndefined(); // the older value for the key is gone too
    expect([map.size, map.bytes]).toEqual([1, 1]);
  });

  it("drops every value that leaves, once: replaced, pushed out, deleted, too large, cleared; never one set again", () => {
    const dropped: string[] = [];
    const map = new BoundedMap<string>(
      (v) => v.length,
      { bytes: 6, entryBytes: 5 },
      (v) => dropped.push(v),
    );
    const a = "aaa";
    map.set("a", a);
    map.set("a", a); // the same value again: made the newest, kept
    expect(dropped).toEqual([]);
    map.set("a", "a2");
    expect(dropped).toEqual(["aaa"]);
    map.set("b", "bbb");
    map.set("c", "ccc"); // 2 + 3 + 3 is over 6: a's value goes
    expect(dropped).toEqual(["aaa", "a2"]);
    expect(map.set("d", "dddddd")).toBe(false); // too large: not kept, so dropped at once
    expect(dropped).toEqual(["aaa", "a2", "dddddd"]);
    map.delete("b");
    map.delete("b");
    expect(dropped).toEqual(["aaa", "a2", "dddddd", "bbb"]);
    map.clear();
    expect(dropped).toEqual(["aaa", "a2", "dddddd", "bbb", "ccc"]);
    expect([map.size, map.bytes]).toEqual([0, 0]);
  });
});
