import { createHash, randomBytes } from "node:crypto";
import { createServer, type ServerResponse } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fetchBody, streamBody } from "../../src/upstream/client.js";
import { closeServer, listenOnLoopback } from "../helpers/loopback-server.js";

// Plain-HTTP upstreams are read through one buffer kept for all sockets (reading-agent.ts): every piece
// handed on must still be the answer's bytes, in order, when the next reads overwrote that buffer.

const ANSWER = randomBytes(6 * 2 ** 20);
const digest = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

function answer(path: string | undefined, response: ServerResponse): void {
  response.writeHead(200, { "content-type": "application/json" });
  // As Prometheus sends a plain answer: one write (one HTTP chunk) of the whole body.
  if (path === "/whole") return void response.end(ANSWER);
  // As Go's gzip writer does: many small chunks.
  for (let at = 0; at < ANSWER.length; at += 2048) response.write(ANSWER.subarray(at, at + 2048));
  response.end();
}

let connections = 0;
const server = createServer((request, response) => answer(request.url, response));
server.on("connection", () => connections++);
let url = "";

beforeAll(async () => {
  url = `http://127.0.0.1:${await listenOnLoopback(server)}`;
});
afterAll(() => closeServer(server));

/** Streams the answer at `path`, keeping every piece; every fifth piece makes the fetch wait a little. */
async function streamed(path: string): Promise<Buffer[]> {
  const pieces: Buffer[] = [];
  await streamBody(
    `${url}${path}`,
    { timeoutMs: 30_000, maxBytes: 2 ** 30 },
    {
      begin: () => {},
      piece: (chunk) => {
        pieces.push(chunk);
        if (pieces.length % 5 !== 0) return true;
        return new Promise((resolve) => setTimeout(() => resolve(true), 2));
      },
    },
  );
  return pieces;
}

describe("reading plain-HTTP answers through one read buffer", () => {
  it.each(["/whole", "/chunks"])(
    "hands on every byte of %s in order, each piece in memory of its own",
    async (path) => {
      const pieces = await streamed(path);
      expect(digest(Buffer.concat(pieces))).toBe(digest(ANSWER));
      // Kept pieces never share memory: the parser copied each out of the read buffer before it was read into again.
      expect(new Set(pieces.map((piece) => piece.buffer)).size).toBe(pieces.length);
    },
  );

  it("reads more than Node's own 64 KiB at a time when the answer comes faster than it is taken", async () => {
    const pieces = await streamed("/whole");
    expect(Math.max(...pieces.map((piece) => piece.length))).toBeGreaterThan(64 * 1024);
  });

  it("keeps the socket alive for the next answer, and reads small answers whole", async () => {
    const before = connections;
    const first = await fetchBody(`${url}/chunks`, { timeoutMs: 30_000, maxBytes: 2 ** 30 });
    const second = await fetchBody(`${url}/whole`, { timeoutMs: 30_000, maxBytes: 2 ** 30 });
    expect(digest(first.body)).toBe(digest(ANSWER));
    expect(digest(second.body)).toBe(digest(ANSWER));
    expect(connections - before).toBeLessThanOrEqual(1);
  });
});
