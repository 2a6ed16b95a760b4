import { get, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Worker } from "node:worker_threads";
import { gunzipSync } from "node:zlib";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { TargetsRounds } from "../../scripts/bench/generate.js";
import { type Families, type PackedLines, packLines } from "../../src/exposition/pack.js";
import type { AgainPiece, LinesWrittenAgain, WriteAgain } from "../../src/exposition/unpack.js";
import { StreamDecoder } from "../../src/poll/stream-decoder.js";
import { ProcessMetrics } from "../../src/publish/process-metrics.js";
import { SourceStore } from "../../src/publish/store.js";
import { waitFor } from "../harness/processes.js";
import { appServing } from "../helpers/app.js";
import { sourceConfig } from "../helpers/config.js";
import { decodeOptions } from "../helpers/decode-options.js";
import { hangUpAfterFirstBytes } from "../helpers/hang-up.js";

// A plain scrape whose per-target families the decoder thread writes again (exposition-body.ts
// sendPlain, poll/lines-again.ts): the same bytes as the gzip scrape, whether the thread writes all of a
// family, stops part way (a poll began) or is slower than the client.

const A = sourceConfig({ name: "a" });
let decoder: StreamDecoder;
let store: SourceStore;
let server: Server | undefined;

beforeAll(async () => {
  decoder = new StreamDecoder(() => 320 * 2 ** 20);
  const stream = decoder.openStream("targets", decodeOptions());
  await stream.write(Buffer.from(new TargetsRounds(30_000).answer(0)));
  const end = await stream.end(60_000);
  if (end.gaveUp || !end.result.ok) throw new Error("not decoded");
  store = new SourceStore([A]);
  const families: Families = end.result.families;
  store.record(A, "targets", { ok: true, families, series: 150_000, durationSeconds: 0.5, finishedAt: 1000 });
  await waitFor("gzip ready", async () => store.exposition().gzip, 10_000, 5);
}, 60_000);

afterAll(async () => {
  await (decoder as unknown as { worker?: Worker }).worker?.terminate();
});

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** The real writer, watched: pieces handed out, writings closed; `change` alters what it hands out. */
function watched(change?: (piece: AgainPiece, index: number) => AgainPiece | null | undefined) {
  const seen = { pieces: 0, writings: 0, closed: 0 };
  const writeAgain: WriteAgain = (family: PackedLines) => {
    const writing = decoder.writeAgain(family);
    if (!writing) return undefined;
    seen.writings++;
    let index = 0;
    let closed = false;
    const wrapped: LinesWrittenAgain = {
      next: async () => {
        const piece = await writing.next();
        if (!piece) return piece;
        seen.pieces++;
        const changed = change ? change(piece, index++) : piece;
        if (!changed) piece.written(); // dropped: its slot is free again
        return changed;
      },
      close: () => {
        if (!closed) seen.closed++;
        closed = true;
        writing.close();
      },
    };
    return wrapped;
  };
  return { seen, writeAgain };
}

async function serve(writeAgain: WriteAgain): Promise<string> {
  const app = appServing(() => store.exposition(), {
    processMetrics: new ProcessMetrics("test", 3_600_000),
    writeAgain,
  });
  server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, "127.0.0.1", () => resolve(s));
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`;
}

function rawGet(url: string, encoding: string) {
  return new Promise<{ res: IncomingMessage; body: Buffer }>((resolve, reject) => {
    get(url, { headers: { "accept-encoding": encoding } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ res, body: Buffer.concat(chunks) }));
      res.on("error", reject);
    }).on("error", reject);
  });
}

/** A plain and a gzip scrape: the plain one's body, checked against the gzip one and its length. */
async function plainAgainstGzip(url: string): Promise<Buffer> {
  const plain = await rawGet(url, "identity");
  const zipped = await rawGet(url, "gzip");
  expect(zipped.res.headers["content-encoding"]).toBe("gzip");
  expect(plain.body.length).toBe(Number(plain.res.headers["content-length"]));
  expect(plain.body.equals(gunzipSync(zipped.body))).toBe(true);
  return plain.body;
}

describe("a plain scrape of families written again", () => {
  it("serves the gzip scrape's bytes, every per-target family written by the decoder thread", async () => {
    const { seen, writeAgain } = watched();
    const body = await plainAgainstGzip(await serve(writeAgain));
    expect(body.length).toBeGreaterThan(15 * 2 ** 20);
    expect(seen.writings).toBeGreaterThanOrEqual(4);
    expect(seen.pieces).toBeGreaterThan(10);
    expect(seen.closed).toBe(seen.writings);
  });

  it("inflates the rest of a family where its writer stops, ends early, or would give more than the family", async () => {
    for (const change of [
      (piece: AgainPiece, i: number) => (i === 2 ? undefined : piece), // a poll began: stopped
      (piece: AgainPiece, i: number) => (i === 1 ? null : piece), // said done too early
      // a piece cut mid-line, then stopped: the members give the rest from that very byte
      (piece: AgainPiece, i: number) => (i === 0 ? { ...piece, bytes: piece.bytes.subarray(0, 1001) } : undefined),
      // more than the family holds: never written past its length
      (piece: AgainPiece) => ({ ...piece, bytes: new Uint8Array(64 * 2 ** 20) }),
    ]) {
      const { seen, writeAgain } = watched(change);
      await plainAgainstGzip(await serve(writeAgain));
      expect(seen.writings).toBeGreaterThanOrEqual(4);
      expect(seen.closed).toBe(seen.writings);
      server?.closeAllConnections();
      await new Promise<void>((resolve) => server?.close(() => resolve()));
      server = undefined;
    }
  });

  it("writes no further ahead than a slow client reads, never over bytes the response still holds", async () => {
    const { seen, writeAgain } = watched();
    const url = await serve(writeAgain);
    const zipped = await rawGet(url, "gzip");
    const before = seen.pieces;
    const read = await new Promise<{ whilePaused: number; body: Buffer }>((resolve, reject) => {
      get(url, { headers: { "accept-encoding": "identity" } }, (res) => {
        const chunks: Buffer[] = [];
        res.once("data", async (first: Buffer) => {
          chunks.push(first);
          res.pause();
          // Settled: the sockets' buffers full, the writing waiting for its slots to come back.
          let last = -1;
          const settled = async () => {
            const unchanged = seen.pieces === last;
            last = seen.pieces;
            return unchanged ? true : undefined;
          };
          await waitFor("the writing to wait", settled, 10_000, 300);
          const whilePaused = seen.pieces - before;
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => resolve({ whilePaused, body: Buffer.concat(chunks) }));
          res.resume();
        });
        res.on("error", reject);
      }).on("error", reject);
    });
    // A few MiB in the sockets' buffers and the slots, of a body of ~19 MB (19 pieces or more); the
    // slots went round while the response held pieces, and none was written over before it was sent.
    expect(read.whilePaused).toBeLessThan(12);
    expect(seen.pieces - before).toBeGreaterThan(read.whilePaused + 5);
    expect(read.body.equals(gunzipSync(zipped.body))).toBe(true);
  });

  it("ends the writing when the client goes, and goes on serving", async () => {
    const { seen, writeAgain } = watched();
    const url = await serve(writeAgain);
    await hangUpAfterFirstBytes(url);
    await waitFor("the writing closed", async () => (seen.closed === seen.writings ? true : undefined), 5000, 10);
    const pieces = seen.pieces;
    expect(pieces).toBeLessThan(12);
    await plainAgainstGzip(url);
    expect(seen.pieces).toBeGreaterThan(pieces);
  });

  it("hands a piece back only once the socket took it, however long the client pauses", async () => {
    // One 40 MB family, more than the sockets' buffers hold, written again by a writer with a single
    // buffer that it writes over as soon as a piece is handed back (as a thread refills a slot).
    let block = "";
    for (let i = 0; block.length < 2 ** 20 - 200; i++) block += `promstatus_target_up{instance="host-${i}:9100"} 1\n`;
    const lines = Buffer.concat(Array.from({ length: 40 }, (_, n) => Buffer.from(block.replaceAll("} 1", `} ${n}`))));
    const packed = packLines(lines);
    const exposition = () => ({ parts: [packed], length: lines.length, gzip: undefined });
    const buffer = Buffer.alloc(2 ** 20);
    const writeAgain: WriteAgain = () => {
      let at = 0;
      let handedBack: Promise<void> = Promise.resolve();
      return {
        next: async () => {
          await handedBack; // the buffer is the writer's again only once handed back
          if (at >= lines.length) return null;
          const end = Math.min(lines.length, at + buffer.length);
          const length = lines.copy(buffer, 0, at, end);
          at = end;
          let written = () => {};
          handedBack = new Promise((resolve) => {
            written = () => {
              buffer.fill(0xff);
              resolve();
            };
          });
          return { bytes: buffer.subarray(0, length), written };
        },
        close: () => {},
      };
    };
    const app = appServing(exposition, { processMetrics: new ProcessMetrics("test", 3_600_000), writeAgain });
    server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, "127.0.0.1", () => resolve(s));
    });
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`;
    const body = await new Promise<Buffer>((resolve, reject) => {
      get(url, { headers: { "accept-encoding": "identity" } }, (res) => {
        const chunks: Buffer[] = [];
        res.once("data", (first: Buffer) => {
          chunks.push(first);
          res.pause();
          setTimeout(() => {
            res.on("data", (c: Buffer) => chunks.push(c));
            res.on("end", () => resolve(Buffer.concat(chunks)));
            res.resume();
          }, 500);
        });
        res.on("error", reject);
      }).on("error", reject);
    });
    expect(body.subarray(body.length - lines.length).equals(lines)).toBe(true);
  });
});
