import { spawnSync } from "node:child_process";
import { crc32, gunzipSync } from "node:zlib";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  isPacked,
  MEMBER_PLAIN_BYTES,
  PACK_MIN_BYTES,
  packFamilies,
  packLines,
  plainLength,
  sameLines,
} from "../../src/exposition/pack.js";
import { plainChunks, plainText } from "../../src/exposition/unpack.js";
import { tileOneBuffer } from "../../src/lib/joined-views.js";
import { asOneGzip, membersPlain } from "../helpers/families.js";

/** `count` sample lines of about 100 bytes each, `seed` changing their values. */
function lines(count: number, seed = 0): Buffer {
  let text = "";
  for (let i = 0; i < count; i++)
    text += `promstatus_target_up{source="prom",scrape_pool="node",instance="host-${i}.example:9100"} ${(i + seed) % 2}\n`;
  return Buffer.from(text);
}

const lineArrays = fc.array(fc.string({ unit: "binary", maxLength: 300 }), { maxLength: 200 });
const asLines = (texts: string[]) => Buffer.from(texts.map((t) => `${t.replaceAll("\n", " ")}\n`).join(""));

describe("packLines", () => {
  it("cuts lines into members of whole lines that inflate to exactly the plain bytes", () => {
    const plain = lines(30_000); // ~3 MB: several members
    const packed = packLines(plain);
    expect(packed.members.length).toBeGreaterThan(2);
    expect(packed.length).toBe(plain.length);
    expect(packed.sizes.reduce((a, b) => a + b, 0)).toBe(plain.length);
    let at = 0;
    packed.members.forEach((member, i) => {
      const piece = membersPlain([member]); // each member inflates on its own
      expect(piece.length).toBe(packed.sizes[i]);
      expect(piece.length).toBeLessThanOrEqual(MEMBER_PLAIN_BYTES);
      expect(piece.at(-1)).toBe(0x0a); // whole lines
      expect(piece.equals(plain.subarray(at, at + piece.length))).toBe(true);
      at += piece.length;
    });
    // Compressed: the point of keeping members rather than lines.
    expect(packed.members.reduce((n, m) => n + m.length, 0)).toBeLessThan(plain.length / 8);
    // In one buffer side by side, which they are all of: one allocation a family, freed whole.
    expect(tileOneBuffer(packed.members)).toBe(true);
  });

  it("makes members that, back to back between a gzip header and trailer, are one valid gzip member (RFC 1952), for zlib and for gzip(1)", () => {
    const plain = lines(20_000);
    const packed = packLines(plain);
    expect(packed.crc).toBe(crc32(plain));
    const stream = asOneGzip(packed.members, packed.crc, packed.length);
    expect(gunzipSync(stream).equals(plain)).toBe(true);
    const gzip = spawnSync("gzip", ["-dc"], { input: stream, maxBuffer: 64 * 2 ** 20 });
    expect(gzip.status).toBe(0);
    expect(gzip.stdout.equals(plain)).toBe(true);
  });

  it("cuts a line longer than a member inside it, and the stream stays whole", () => {
    const plain = Buffer.concat([Buffer.alloc(300, "a"), Buffer.from("\nshort\n"), Buffer.alloc(250, "b")]);
    const packed = packLines(plain, 128);
    expect(packed.sizes.every((s) => s <= 128)).toBe(true);
    expect(membersPlain(packed.members).equals(plain)).toBe(true);
  });

  it("round-trips any lines, any member size", () => {
    fc.assert(
      fc.property(lineArrays, fc.integer({ min: 1, max: 4096 }), (texts, memberBytes) => {
        const plain = asLines(texts);
        const packed = packLines(plain, memberBytes);
        expect(packed.length).toBe(plain.length);
        if (plain.length === 0)
          expect(packed.members).toEqual([]); // nothing to serve: no member
        else {
          expect(membersPlain(packed.members).equals(plain)).toBe(true);
          expect(gunzipSync(asOneGzip(packed.members, packed.crc, packed.length)).equals(plain)).toBe(true);
        }
      }),
      { numRuns: 200 },
    );
  });

  it("hashes the plain bytes: equal hashes iff equal bytes, whatever the member size", () => {
    fc.assert(
      fc.property(lineArrays, lineArrays, (a, b) => {
        const [x, y] = [asLines(a), asLines(b)];
        const [px, py] = [packLines(x), packLines(y, 64)];
        expect(px.hash === py.hash).toBe(x.equals(y));
        expect(sameLines(px, py)).toBe(x.equals(y));
        expect(packLines(Buffer.from(x)).hash).toBe(px.hash); // another copy of the same bytes
      }),
      { numRuns: 300 },
    );
    const [one, other] = [lines(2000, 0), lines(2000, 1)];
    expect(one.length).toBe(other.length); // same length, different bytes
    expect(packLines(one).hash).not.toBe(packLines(other).hash);
    expect(sameLines(packLines(one), packLines(other))).toBe(false);
  });
});

describe("sameLines", () => {
  it("compares plain lines by bytes, and never takes plain and packed lines for the same", () => {
    const plain = lines(10);
    expect(sameLines(plain, Buffer.from(plain))).toBe(true);
    expect(sameLines(plain, lines(10, 1))).toBe(false);
    expect(sameLines(plain, packLines(plain))).toBe(false);
  });
});

describe("packFamilies", () => {
  it(`packs families of ${PACK_MIN_BYTES} bytes or more and leaves smaller ones plain`, () => {
    const large = lines(2000);
    const small = lines(10);
    const edge = Buffer.alloc(PACK_MIN_BYTES, "x\n");
    const families = packFamilies([
      ["large", large],
      ["small", small],
      ["edge", edge],
      ["below", edge.subarray(1)],
    ]);
    expect(families.map(([name, l]) => [name, isPacked(l)])).toEqual([
      ["large", true],
      ["small", false],
      ["edge", true],
      ["below", false],
    ]);
    expect(families[1]?.[1]).toBe(small); // not copied
    expect(families.map(([, l]) => plainLength(l))).toEqual([large.length, small.length, edge.length, edge.length - 1]);
  });
});

describe("unpack", () => {
  it("gives the plain bytes of plain and packed pieces in order, a member per chunk", async () => {
    const big = lines(30_000);
    const packed = packLines(big);
    const parts = [Buffer.from("# HELP x\n"), packed, lines(3), packLines(lines(700, 3))];
    const chunks: Uint8Array[] = [];
    for await (const chunk of plainChunks(parts)) chunks.push(chunk);
    expect(chunks).toHaveLength(1 + packed.members.length + 1 + 1);
    expect(chunks.slice(1, 1 + packed.members.length).map((c) => c.length)).toEqual(packed.sizes);
    const whole = Buffer.concat([Buffer.from("# HELP x\n"), big, lines(3), lines(700, 3)]);
    expect(Buffer.concat(chunks).equals(whole)).toBe(true);
    expect((await plainText(parts)).equals(whole)).toBe(true);
  });

  it("shares a member's plain bytes between consumers at the same time, without keeping them", async () => {
    const packed = packLines(lines(30_000));
    const first: Uint8Array[] = [];
    for await (const chunk of plainChunks([packed])) first.push(chunk);
    // While the first consumer still holds them, a second gets the same buffers: nothing inflated twice.
    const second: Uint8Array[] = [];
    for await (const chunk of plainChunks([packed])) second.push(chunk);
    second.forEach((chunk, i) => {
      expect(chunk).toBe(first[i]);
    });
    // Two at once, neither done: the member being inflated is awaited by both.
    const fresh = packLines(lines(30_000, 1));
    const [a, b] = [plainChunks([fresh]), plainChunks([fresh])];
    const [x, y] = await Promise.all([a.next(), b.next()]);
    expect(x.value).toBe(y.value);
  });
});
