import { spawnSync } from "node:child_process";
import { crc32, gunzipSync } from "node:zlib";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  crc32Combine,
  deflateSegmentSync,
  FINAL_BLOCK,
  GZIP_HEADER,
  gzipMember,
  gzipTrailer,
  storedSegment,
} from "../../src/exposition/gzip-stream.js";

describe("gzip-stream", () => {
  it("combines two CRC-32s into that of the bytes joined, as zlib's crc32_combine", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 3000 }), fc.uint8Array({ maxLength: 3000 }), (a, b) => {
        expect(crc32Combine(crc32(a), crc32(b), b.length)).toBe(crc32(Buffer.concat([a, b])));
      }),
      { numRuns: 300 },
    );
    // Lengths far past a piece's (the exposition's whole, at 500k targets ~300 MB).
    const big = Buffer.alloc(5_000_000, 0x61);
    expect(crc32Combine(crc32("x"), crc32(big), big.length)).toBe(crc32(Buffer.concat([Buffer.from("x"), big])));
  });

  it("joins pieces compressed apart into one gzip member that zlib and gzip(1) read whole", () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 2000 }), { maxLength: 6 }), (pieces) => {
        const plain = Buffer.concat(pieces);
        const member = Buffer.concat([
          GZIP_HEADER,
          ...pieces.map(deflateSegmentSync),
          FINAL_BLOCK,
          gzipTrailer(crc32(plain), plain.length),
        ]);
        expect(gunzipSync(member).equals(plain)).toBe(true);
      }),
      { numRuns: 200 },
    );
    const plain = Buffer.from("a 1\nb 2\n");
    const member = Buffer.concat([
      GZIP_HEADER,
      deflateSegmentSync(plain.subarray(0, 4)),
      deflateSegmentSync(plain.subarray(4)),
      FINAL_BLOCK,
      gzipTrailer(crc32(plain), plain.length),
    ]);
    const gzip = spawnSync("gzip", ["-t"], { input: member });
    expect(gzip.status).toBe(0);
  });

  it("joins texts of deflate segments into one gzip member whose trailer holds the CRC and length of all", () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.uint8Array({ maxLength: 2000 }), { maxLength: 3 }), { maxLength: 4 }),
        (texts) => {
          const deflated = texts.map((pieces) => {
            const plain = Buffer.concat(pieces);
            return { segments: pieces.map((p) => deflateSegmentSync(p)), crc: crc32(plain), length: plain.length };
          });
          const body = Buffer.concat(gzipMember(deflated));
          const all = Buffer.concat(texts.flat());
          expect(gunzipSync(body).equals(all)).toBe(true);
          expect(body.readUInt32LE(body.length - 8)).toBe(crc32(all));
          expect(body.readUInt32LE(body.length - 4)).toBe(all.length);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("joins stored segments (several blocks past 64 KiB, or none) with compressed ones", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.boolean(), fc.uint8Array({ maxLength: 2000 })), { maxLength: 6 }), (pieces) => {
        const plain = Buffer.concat(pieces.map(([, p]) => p));
        const segments = pieces.map(([stored, p]) => (stored ? storedSegment(p) : deflateSegmentSync(p)));
        const member = Buffer.concat([GZIP_HEADER, ...segments, FINAL_BLOCK, gzipTrailer(crc32(plain), plain.length)]);
        expect(gunzipSync(member).equals(plain)).toBe(true);
      }),
      { numRuns: 200 },
    );
    const big = Buffer.from(Array.from({ length: 150_000 }, (_, i) => 0x61 + (i % 26)));
    const segment = storedSegment(big);
    expect(segment.length).toBe(big.length + 5 * 3);
    const member = Buffer.concat([GZIP_HEADER, segment, FINAL_BLOCK, gzipTrailer(crc32(big), big.length)]);
    expect(gunzipSync(member).equals(big)).toBe(true);
    expect(spawnSync("gzip", ["-t"], { input: member }).status).toBe(0);
    expect(storedSegment(new Uint8Array(0))).toEqual(Buffer.from([0, 0, 0, 0xff, 0xff])); // a sync flush's marker
  });
});
