import { randomBytes } from "node:crypto";
import { gzipSync } from "node:zlib";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SyncGunzip, syncGunzip } from "../../src/lib/gunzip-sync.js";
import { AnswerInput, type InputEncoding } from "../../src/poll/answer-input.js";
import type { ChunkDecoder } from "../../src/poll/decode-types.js";
import { TAIL_BYTES } from "../../src/poll/flavor-clues.js";

/** A reader that keeps what it is given (copied: the input gives a piece's memory back once read), giving up past `giveUpAfter` bytes. */
function recorder(giveUpAfter = Number.POSITIVE_INFINITY) {
  const pieces: Buffer[] = [];
  let bytes = 0;
  const decoder: ChunkDecoder = {
    write(chunk) {
      pieces.push(Buffer.from(chunk));
      bytes += chunk.byteLength;
      return bytes <= giveUpAfter;
    },
    finish: () => undefined,
    finishPacked: () => undefined,
    refusal: () => undefined,
  };
  return { decoder, read: () => Buffer.concat(pieces) };
}

type Gunzip = "here" | "stream";

/** Feeds `wire` to an input cut at `cuts`, ends it; what the reader got and what the input said. */
async function feed(gunzip: Gunzip, wire: Buffer, cuts: number[], encoding: InputEncoding, giveUpAfter?: number) {
  const { decoder, read } = recorder(giveUpAfter);
  let consumed = 0;
  let wanted = true;
  const input = new AnswerInput(
    decoder,
    (bytes, more) => {
      consumed += bytes;
      if (!more) wanted = false;
    },
    gunzip,
  );
  input.encoding(encoding);
  let from = 0;
  for (const at of [...cuts.filter((c) => c > 0 && c < wire.length).sort((a, b) => a - b), wire.length]) {
    if (at <= from) continue;
    input.write(new Uint8Array(wire.subarray(from, at))); // a piece of its own, as a message brings it
    from = at;
  }
  await new Promise<void>((resolve) => input.end(resolve));
  return { read: read(), consumed, wanted, failure: input.failure, tail: input.tail };
}

const gzip = (maxBytes = 2 ** 30): InputEncoding => ({
  gzip: { maxBytes, tooLarge: `answer larger than ${maxBytes} bytes after decompression` },
});

// Text with runs and noise, so the deflate data has both long matches and literals.
const ANSWER = Buffer.from(
  Array.from(
    { length: 3000 },
    (_, i) => `{"labels":{"instance":"10.0.${i % 256}.${i}:9100"},"x":"${randomBytes(6).toString("hex")}"}`,
  ).join(","),
);
const ZIPPED = gzipSync(ANSWER);

describe("AnswerInput", () => {
  it("gunzips on its own thread on this Node.js (the stream in the thread pool only where it cannot)", () => {
    expect(syncGunzip(() => true)).toBeInstanceOf(SyncGunzip);
  });

  it("hands on what its reader throws rather than calling the answer not gzip", () => {
    const decoder: ChunkDecoder = {
      write() {
        throw new RangeError("a reader's bug");
      },
      finish: () => undefined,
      finishPacked: () => undefined,
      refusal: () => undefined,
    };
    const input = new AnswerInput(decoder, () => {});
    input.encoding(gzip());
    expect(() => input.write(new Uint8Array(ZIPPED))).toThrow("a reader's bug");
    expect(input.failure).toBeUndefined();
  });
});

describe.each(["here", "stream"] as const)("AnswerInput gunzipping %s", (gunzip) => {
  it("hands a plain answer's pieces to the reader as they are, each acknowledged", async () => {
    const out = await feed(gunzip, ANSWER, [1, 100, 5000], {});
    expect(out.read.equals(ANSWER)).toBe(true);
    expect(out.consumed).toBe(ANSWER.length);
    expect(out.failure).toBeUndefined();
  });

  it("gunzips a gzip answer cut anywhere: the reader gets the answer's bytes, every wire byte is acknowledged", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 1, max: ZIPPED.length - 1 }), { maxLength: 40 }), async (cuts) => {
        const out = await feed(gunzip, ZIPPED, cuts, gzip());
        expect(out.read.equals(ANSWER)).toBe(true);
        expect(out.consumed).toBe(ZIPPED.length);
        expect(out.failure).toBeUndefined();
        expect(out.tail).toBe(ANSWER.subarray(ANSWER.length - TAIL_BYTES).toString("latin1"));
      }),
      { numRuns: 30 },
    );
  });

  it("gunzips a gzip answer given a byte at a time", async () => {
    const small = gzipSync(ANSWER.subarray(0, 4000));
    const out = await feed(
      gunzip,
      small,
      Array.from({ length: small.length }, (_, i) => i),
      gzip(),
    );
    expect(out.read.equals(ANSWER.subarray(0, 4000))).toBe(true);
  });

  it("refuses bytes that are not gzip as invalid_json, and wants no more", async () => {
    const out = await feed(gunzip, Buffer.from("not gzip at all"), [], gzip());
    expect(out.failure).toEqual({
      reason: "invalid_json",
      message: "answer is not valid gzip: incorrect header check",
    });
    expect(out.wanted).toBe(false);
  });

  it("refuses a gzip answer cut short as it ends", async () => {
    const out = await feed(gunzip, ZIPPED.subarray(0, ZIPPED.length - 100), [1000], gzip());
    expect(out.failure).toEqual({
      reason: "invalid_json",
      message: "answer is not valid gzip: unexpected end of file",
    });
  });

  it("refuses a gzip answer past its bound once gunzipped, the reader given no byte past it", async () => {
    const bomb = gzipSync(Buffer.alloc(20_000_000, " "));
    const out = await feed(gunzip, bomb, [5000, 10_000], gzip(1_000_000));
    expect(out.failure).toEqual({
      reason: "too_large",
      message: "answer larger than 1000000 bytes after decompression",
    });
    expect(out.read.length).toBeLessThanOrEqual(1_000_000);
    expect(out.wanted).toBe(false);
  });

  it("reads a gzip answer up to zero bytes after its member (gzip's padding), and wants nothing after them", async () => {
    const { decoder, read } = recorder();
    let wanted = true;
    const input = new AnswerInput(
      decoder,
      (_, more) => {
        if (!more) wanted = false;
      },
      gunzip,
    );
    input.encoding(gzip());
    input.write(new Uint8Array(Buffer.concat([ZIPPED, Buffer.alloc(4)])));
    // As an upstream would send the rest later: the main thread is told to fetch no more before then.
    for (let i = 0; i < 200 && wanted; i++) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(wanted).toBe(false);
    input.write(new Uint8Array(Buffer.from("garbage")));
    await new Promise<void>((resolve) => input.end(resolve));
    expect(input.failure).toBeUndefined();
    expect(read().equals(ANSWER)).toBe(true);
  });

  it("reads a gzip answer of two members whole, as zlib does", async () => {
    const half = ANSWER.length >> 1;
    const twoMembers = Buffer.concat([gzipSync(ANSWER.subarray(0, half)), gzipSync(ANSWER.subarray(half))]);
    const out = await feed(gunzip, twoMembers, [half >> 3, twoMembers.length - 7], gzip());
    expect(out.failure).toBeUndefined();
    expect(out.read.equals(ANSWER)).toBe(true);
  });

  it("stops when the reader gives up: no more is read, and no more wanted", async () => {
    const out = await feed(gunzip, ZIPPED, [500, 1000, 1500], gzip(), 10_000);
    expect(out.wanted).toBe(false);
    expect(out.failure).toBeUndefined();
    expect(out.read.length).toBeLessThan(ANSWER.length);
  });

  it("reads nothing once dropped", async () => {
    const { decoder, read } = recorder();
    const input = new AnswerInput(decoder, () => {}, gunzip);
    input.encoding(gzip());
    input.drop();
    input.write(new Uint8Array(ZIPPED));
    await new Promise<void>((resolve) => input.end(resolve));
    expect(read().length).toBe(0);
  });
});
