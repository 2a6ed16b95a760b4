import { Readable } from "node:stream";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { describeErrorBody } from "../../src/upstream/error-body.js";
import { ERROR_BODY_BYTES, readErrorStart } from "../../src/upstream/error-start.js";

// An error answer is read only as far as its first few KiB, on the wire and after inflating: the
// work is bounded by that cap whatever the upstream sends, counted here in bytes pulled, not in time.

/** An endless stream of `piece`, counting the bytes it handed out; `destroyed` once the reader left. */
function endless(piece: Buffer) {
  const seen = { bytes: 0, destroyed: false };
  const stream = new Readable({
    read() {
      seen.bytes += piece.length;
      this.push(piece);
    },
    destroy(error, callback) {
      seen.destroyed = true;
      callback(error);
    },
  });
  return { stream, seen };
}

/** A stream of `bytes` in pieces of `size`, counting what was handed out. */
function pieces(bytes: Buffer, size = 1024) {
  let offset = 0;
  const seen = { bytes: 0, destroyed: false };
  const stream = new Readable({
    highWaterMark: size,
    read() {
      const piece = bytes.subarray(offset, offset + size);
      offset += piece.length;
      seen.bytes += piece.length;
      this.push(piece.length > 0 ? piece : null);
    },
    destroy(error, callback) {
      seen.destroyed = true;
      callback(error);
    },
  });
  return { stream, seen };
}

describe("readErrorStart", () => {
  it("stops reading an endless plain body after the cap, and destroys the stream", async () => {
    const { stream, seen } = endless(Buffer.alloc(1024, "<"));
    const start = await readErrorStart(stream, undefined);
    expect(start?.length).toBe(ERROR_BODY_BYTES);
    expect(seen.destroyed).toBe(true);
    // What was pulled: the cap plus what the stream buffers ahead (its high-water mark).
    expect(seen.bytes).toBeLessThanOrEqual(ERROR_BODY_BYTES + 16 * 1024 + 1024);
  });

  it("reads a few KiB of a gzip bomb's wire bytes and inflates a few KiB of them", async () => {
    const bomb = gzipSync(Buffer.alloc(16 * 2 ** 20, "a")); // 16 MiB in ~16 KiB
    const { stream, seen } = pieces(bomb);
    const start = await readErrorStart(stream, "gzip");
    expect(start?.length).toBe(ERROR_BODY_BYTES);
    expect(start?.toString()).toBe("a".repeat(ERROR_BODY_BYTES));
    expect(seen.destroyed).toBe(true);
    expect(seen.bytes).toBeLessThanOrEqual(ERROR_BODY_BYTES + 16 * 1024 + 1024);
  });

  it("describes the start of a long gzipped answer (the cut is no error)", async () => {
    const page = gzipSync(`<html><h1>Service Unavailable</h1>${"<p>padding</p>\n".repeat(100_000)}</html>`);
    const start = await readErrorStart(pieces(page).stream, "gzip");
    expect(describeErrorBody(start ?? Buffer.alloc(0))).toMatch(/^Service Unavailable padding padding/);
  });

  it("leaves a body in a coding it does not read unread", async () => {
    const { stream } = endless(Buffer.alloc(1024, 0));
    expect(await readErrorStart(stream, "br")).toBeUndefined();
  });

  it("describes whatever arrived before the body failed", async () => {
    const stream = new Readable({ read() {} });
    stream.push("upstream went away");
    setImmediate(() => stream.destroy(new Error("reset")));
    expect(describeErrorBody((await readErrorStart(stream, undefined)) ?? Buffer.alloc(0))).toBe("upstream went away");
  });
});
