import { createServer, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fetchBody, streamBody } from "../../src/upstream/client.js";
import { PollError } from "../../src/upstream/poll-error.js";
import { closeServer, listenOnLoopback } from "../helpers/loopback-server.js";

// A hostile upstream (a /probe target) answers 101 Switching Protocols and then sends as fast as it is
// read: got hands such a connection on and nothing closed it, the poll waited for its timeout and the
// socket stayed open, read for as long as the upstream sent. No real server answers a GET so: a fake.
const connections: Socket[] = [];
const server = createServer((socket) => {
  connections.push(socket);
  socket.on("error", () => {});
  socket.once("data", async () => {
    socket.write("HTTP/1.1 101 Switching Protocols\r\nConnection: upgrade\r\nUpgrade: other\r\n\r\n");
    const block = Buffer.alloc(64 * 1024, "x");
    while (!socket.destroyed) {
      if (!socket.write(block)) await new Promise((resolve) => socket.once("drain", resolve).once("close", resolve));
    }
  });
});
let url = "";

beforeAll(async () => {
  url = `http://127.0.0.1:${await listenOnLoopback(server)}/api/v1/status/tsdb`;
});
afterAll(() => {
  for (const socket of connections) socket.destroy();
  return closeServer(server);
});

/** Resolves once every connection the server was given is closed. */
async function allClosed(): Promise<void> {
  await Promise.all(
    connections.map((socket) =>
      socket.destroyed ? undefined : new Promise((resolve) => socket.once("close", resolve)),
    ),
  );
}

describe("an answer that switches protocols", () => {
  it.each([
    ["whole", () => fetchBody(url, { timeoutMs: 60_000, maxBytes: 2 ** 20 })],
    [
      "streamed",
      () =>
        streamBody(
          url,
          { timeoutMs: 60_000, maxBytes: 2 ** 20 },
          { begin: () => {}, piece: () => true, movesPieces: true },
        ),
    ],
  ])("fails http_status at once and closes the connection (%s)", async (_, fetch) => {
    const before = connections.length;
    const failure = await fetch().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(PollError);
    expect(failure).toMatchObject({ reason: "http_status", status: 101 });
    expect(connections.length).toBe(before + 1); // not tried again
    await allClosed();
  });
});
