import type { ServerResponse } from "node:http";
import { constants, createGzip } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { pollEndpoint } from "../../src/poll/poll-endpoint.js";
import { sourceConfig } from "../helpers/config.js";
import { type FakeUpstream, startFakeUpstream } from "../helpers/fake-upstream.js";

// An upstream that answers an error with an endless body: the exporter reads its first few KiB, then
// closes the connection. Counted in bytes the server got out before the close, not in time (what the
// kernel's socket buffers take is the only slack: a few MiB on loopback, against an endless body).

const SLACK = 16 * 2 ** 20;
let upstream: FakeUpstream | undefined;
afterEach(async () => {
  await upstream?.close();
  upstream = undefined;
});

/** Writes `piece` until the client goes, waiting for drain; resolves with the bytes written then. */
function writeForever(res: ServerResponse, piece: () => Buffer | undefined, sink = res as NodeJS.WritableStream) {
  return new Promise<number>((resolve) => {
    let written = 0;
    res.on("close", () => resolve(written));
    const pump = () => {
      while (!res.destroyed) {
        const chunk = piece();
        if (!chunk) return;
        written += chunk.length;
        if (!sink.write(chunk)) {
          sink.once("drain", pump);
          return;
        }
      }
    };
    pump();
  });
}

describe("an endless error answer", () => {
  it("is read only as far as its first KiB, then the connection is closed", async () => {
    let closed: Promise<number> | undefined;
    upstream = await startFakeUpstream((_req, res) => {
      res.writeHead(400, { "content-type": "text/html" });
      closed = writeForever(res, () => Buffer.alloc(64 * 1024, "<"));
    });
    const outcome = await pollEndpoint(sourceConfig({ url: upstream.url, timeoutMs: 20_000 }), "tsdb");
    expect(outcome.ok ? "" : outcome.error.message).toBe("HTTP 400");
    expect(outcome.ok ? "" : outcome.error.upstreamText).toBe(`${"<".repeat(200)}…`);
    expect(await closed).toBeLessThan(SLACK);
  });

  it("gzipped (a bomb that never ends): the same", async () => {
    let closed: Promise<number> | undefined;
    let wire = 0;
    upstream = await startFakeUpstream((_req, res) => {
      res.writeHead(400, { "content-encoding": "gzip" });
      const gzip = createGzip({ level: constants.Z_BEST_COMPRESSION });
      gzip.on("data", (chunk: Buffer) => {
        wire += chunk.length;
        if (!res.write(chunk)) gzip.pause();
      });
      res.on("drain", () => gzip.resume());
      res.on("close", () => gzip.destroy());
      closed = writeForever(res, () => (res.destroyed ? undefined : Buffer.alloc(2 ** 20)), gzip);
    });
    const outcome = await pollEndpoint(sourceConfig({ url: upstream.url, timeoutMs: 20_000 }), "tsdb");
    expect(outcome.ok ? "" : outcome.error.message).toBe("HTTP 400");
    await closed;
    expect(wire).toBeLessThan(SLACK);
  });
});
