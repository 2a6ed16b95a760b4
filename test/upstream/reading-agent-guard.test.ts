import { createServer } from "node:http";
import type { Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkBodyPiece, readingAgent, readsIntoSharedBuffer } from "../../src/upstream/reading-agent.js";
import { closeServer, listenOnLoopback } from "../helpers/loopback-server.js";

// A Node.js whose HTTP parser handed on views of the socket's read instead of copies would have the next
// read overwrite pieces still held: the first such piece fails its answer and the shared buffer is given
// up. (Its own file: the module's state does not go back.)

const server = createServer((_, response) => response.end("x".repeat(1000)));
let port = 0;

beforeAll(async () => {
  port = await listenOnLoopback(server);
});
afterAll(() => closeServer(server));

const connect = () => readingAgent.createConnection({ host: "127.0.0.1", port }) as Socket;

describe("a piece found in the shared read buffer", () => {
  it("fails, and the sockets opened after it read into buffers of their own", async () => {
    const socket = connect();
    expect(readsIntoSharedBuffer(socket)).toBe(true);
    // What the socket hands its 'data' listener (the parser) is a view of the shared buffer itself.
    const read = new Promise<Uint8Array>((resolve) => socket.once("data", resolve));
    socket.write("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
    const view = await read;
    socket.destroy();
    expect(() => checkBodyPiece(Buffer.from(view))).not.toThrow(); // a copy is fine
    expect(() => checkBodyPiece(view)).toThrow(/without copying it out of the socket's read buffer/);
    const later = connect();
    expect(readsIntoSharedBuffer(later)).toBe(false);
    later.destroy();
  });
});
