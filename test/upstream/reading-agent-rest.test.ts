import { createHash, randomBytes } from "node:crypto";
import { createServer, get, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer as createTcpServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readingAgent } from "../../src/upstream/reading-agent.js";
import { closeServer, listenOnLoopback } from "../helpers/loopback-server.js";

// An answer written a little at a time (as a real Prometheus writes a gzip answer: 4 KiB a write as its
// gzip writer makes them) is read a little less often: the socket rests after a read that did not fill
// the read buffer, and what arrived meanwhile comes in one read. A rest never undoes a pause.

const PIECE = 4096;
const PIECES = 150;
const ANSWER = randomBytes(PIECE * PIECES);
const digest = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

/** Writes the answer one 4 KiB piece per millisecond timer. */
function trickle(response: ServerResponse): void {
  response.writeHead(200, { "content-type": "application/octet-stream" });
  const from = (k: number) => {
    if (response.destroyed) return;
    if (k === PIECES) return void response.end();
    response.write(ANSWER.subarray(k * PIECE, (k + 1) * PIECE));
    setTimeout(from, 1, k + 1);
  };
  from(0);
}

const server = createServer((_, response) => trickle(response));
let url = "";

beforeAll(async () => {
  url = `http://127.0.0.1:${await listenOnLoopback(server)}`;
});
afterAll(() => closeServer(server));

function request(): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => get(url, { agent: readingAgent }, resolve).on("error", reject));
}

describe("resting a socket that reads little at a time", () => {
  it("reads an answer written in 150 small pieces in far fewer reads, every byte in order", async () => {
    const response = await request();
    let reads = 0;
    response.socket.on("data", () => reads++);
    const pieces: Buffer[] = [];
    for await (const piece of response) pieces.push(piece as Buffer);
    expect(digest(Buffer.concat(pieces))).toBe(digest(ANSWER));
    expect(reads).toBeGreaterThan(0);
    expect(reads).toBeLessThan(PIECES / 3);
  });

  it("does not read a socket paused during a rest once the rest ends, and reads on once it is resumed", async () => {
    const response = await request();
    const socket = response.socket;
    let bytes = 0;
    socket.on("data", (piece: Buffer) => {
      bytes += piece.length;
    });
    const pieces: Buffer[] = [];
    response.on("data", (piece: Buffer) => pieces.push(piece));
    await new Promise((resolve) => socket.once("data", resolve)); // a read: a rest follows
    socket.pause(); // as the HTTP client pauses it when its reader is full
    const paused = bytes;
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(bytes).toBe(paused); // read on, ~300 KiB would have come
    socket.resume();
    await new Promise((resolve) => response.once("end", resolve));
    expect(digest(Buffer.concat(pieces))).toBe(digest(ANSWER));
  });

  it("does not rest once the answer is whole: an upstream closing a kept-alive connection is seen before it is used again", async () => {
    // Keep-alive said, then the connection closed after the answer: Node 20's agent handed the closed
    // socket to the next request (ECONNRESET) when a rest kept its EOF unread.
    const closing = createTcpServer((socket) => {
      socket.once("data", () => socket.end("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\nok"));
      socket.on("error", () => {});
    });
    const port = await listenOnLoopback(closing);
    const once = () =>
      new Promise<string>((resolve) => {
        const req = get(`http://127.0.0.1:${port}/`, { agent: readingAgent }, (res) => {
          res.resume();
          res.on("end", () => resolve("ok"));
        });
        req.on("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
      });
    const outcomes: string[] = [];
    try {
      for (let i = 0; i < 20; i++) {
        outcomes.push(await once());
        await new Promise((resolve) => setTimeout(resolve, 3));
      }
    } finally {
      await closeServer(closing);
    }
    expect(outcomes).toEqual(outcomes.map(() => "ok"));
  });
});
