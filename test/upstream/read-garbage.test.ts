import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HttpClientConfig } from "../../src/config/types.js";
import { streamBody } from "../../src/upstream/client.js";
import { youngCollections } from "../helpers/young-collections.js";

// 96 MB: past V8's 64 MB trigger of a collection by memory held outside its heap, so buffers of the
// socket reads left to the collector pile up to tens of MB before anything frees them. Random bytes
// stored uncompressed (level 0), so that the gzip answer is as many socket reads as the plain one.
const ANSWER = randomBytes(96 * 2 ** 20);
const ZIPPED = gzipSync(ANSWER, { level: 0 });
const server = createServer((request, response) => {
  const zip = request.headers["accept-encoding"] === "gzip";
  response.writeHead(200, { "content-type": "application/json", ...(zip ? { "content-encoding": "gzip" } : {}) });
  response.end(zip ? ZIPPED : ANSWER);
});
let url = "";

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/targets`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const httpConfig = (compression: HttpClientConfig["compression"]): HttpClientConfig => ({
  headers: {},
  tls: { insecureSkipVerify: false },
  followRedirects: true,
  compression,
});

/** The most memory outside the heap (ArrayBuffers) held at once, above what was held before the read. */
function peakAbove(): { sample: () => void; peak: () => number } {
  const before = process.memoryUsage().arrayBuffers;
  let most = 0;
  return {
    sample: () => {
      most = Math.max(most, process.memoryUsage().arrayBuffers - before);
    },
    peak: () => most,
  };
}

describe("reading an answer", () => {
  it.each([
    ["plain", "none"],
    ["gzip", "gzip"],
  ] as const)("frees the buffers of its pieces as it reads (%s)", async (_, compression) => {
    const held = peakAbove();
    let bytes = 0;
    let gzip: unknown;
    const received = await streamBody(
      url,
      { timeoutMs: 60_000, maxBytes: 2 ** 30, http: httpConfig(compression) },
      {
        begin: (input) => {
          gzip = input.gzip;
        },
        piece: (chunk) => {
          bytes += chunk.length;
          held.sample();
          return true;
        },
      },
    );
    expect(received.stopped).toBe(false);
    // The pieces as they came over the wire: a gzip answer is gunzipped by its reader.
    expect(bytes).toBe(compression === "gzip" ? ZIPPED.length : ANSWER.length);
    expect(gzip).toEqual(
      compression === "gzip"
        ? { maxBytes: 2 ** 30, tooLarge: expect.stringContaining("after decompression") }
        : undefined,
    );
    // Each piece is a buffer of its own (64 KiB): a few MiB of them at once (with those the streams still
    // hold when the machine is busy: 8-14 MB plain, 2-5 MB gzip here, Node 20 and 24), not tens of MB
    // (35-94 MB when left to the collector).
    expect(held.peak()).toBeLessThan(24 * 2 ** 20);
  });

  // Read through the shared read buffer (reading-agent.ts), a piece is the HTTP parser's copy: a reader
  // that moves it to another thread (the decoder's) leaves nothing behind, and the main thread's
  // collections every 4 MiB (~24 for this answer) would be for nothing.
  it("leaves a reader that moves its pieces away uncollected: no collection every 4 MiB", async () => {
    let bytes = 0;
    const collections = await youngCollections(() =>
      streamBody(
        url,
        { timeoutMs: 60_000, maxBytes: 2 ** 30, http: httpConfig("none") },
        {
          begin: () => {},
          piece: (chunk) => {
            bytes += chunk.length;
            return true;
          },
          movesPieces: true,
        },
      ),
    );
    expect(bytes).toBe(ANSWER.length);
    // V8's own collections may still run (the pieces here are dropped, not moved); not one per 4 MiB.
    expect(collections).toBeLessThan(8);
  });
});
