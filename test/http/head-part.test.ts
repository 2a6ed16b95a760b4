import { constants, crc32, inflateRawSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { headPart, lastHeadPart, STORED_PART_BYTES } from "../../src/http/head-part.js";

describe("head parts of a scrape", () => {
  it("are the text's bytes, their CRC-32 and a deflate segment that inflates back to them", () => {
    const part = headPart("# HELP x é\nx 1\n");
    expect(part.bytes.toString()).toBe("# HELP x é\nx 1\n");
    const deflated = part.deflated();
    expect(part.deflated()).toBe(deflated); // compressed once
    expect(deflated.crc).toBe(crc32(part.bytes));
    expect(deflated.length).toBe(part.bytes.length);
    const [segment] = deflated.segments as [Uint8Array];
    expect(inflateRawSync(segment, { finishFlush: constants.Z_SYNC_FLUSH }).toString()).toBe("# HELP x é\nx 1\n");
  });

  it("go into a gzip scrape stored (no zlib call) up to STORED_PART_BYTES, compressed above", () => {
    const inflate = (segment: Uint8Array) => inflateRawSync(segment, { finishFlush: constants.Z_SYNC_FLUSH });
    const small = headPart(`${"x 1\n".repeat(STORED_PART_BYTES / 4)}`);
    const [stored] = small.deflated().segments as [Uint8Array];
    expect(stored.length).toBe(small.bytes.length + 5); // one stored block: a byte, LEN and NLEN
    expect(inflate(stored).equals(small.bytes)).toBe(true);
    const large = headPart(`${"x 1\n".repeat(STORED_PART_BYTES / 4)}y 2\n`);
    const [compressed] = large.deflated().segments as [Uint8Array];
    expect(compressed.length).toBeLessThan(large.bytes.length / 10);
    expect(inflate(compressed).equals(large.bytes)).toBe(true);
  });

  it("are made again only when the text changes", () => {
    const part = lastHeadPart();
    const a = part("runtime 1\n");
    expect(part(`runtime ${1}\n`)).toBe(a); // the same text, even as another string
    const b = part("runtime 2\n");
    expect(b).not.toBe(a);
    expect(b.bytes.toString()).toBe("runtime 2\n");
    expect(part("runtime 1\n")).not.toBe(a); // only the last is kept
  });
});
