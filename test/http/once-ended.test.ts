import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { type AddressInfo, connect, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { onceEnded } from "../../src/http/once-ended.js";
import { waitFor } from "../harness/processes.js";

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** A server that holds every response until told, each request watched by onceEnded. */
async function holdingServer() {
  const held: { req: IncomingMessage; res: ServerResponse }[] = [];
  let ended = 0;
  server = createServer((req, res) => {
    onceEnded(req, res, () => ended++);
    held.push({ req, res });
  });
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return { held, port, ended: () => ended };
}

/** `n` requests pipelined on one connection. */
function pipelined(port: number, n: number): Socket {
  const socket = connect(port, "127.0.0.1");
  socket.on("error", () => {});
  socket.write("GET / HTTP/1.1\r\nHost: x\r\n\r\n".repeat(n));
  return socket;
}

describe("onceEnded", () => {
  it("waits on a connection with one listener however many pipelined requests wait on it", async () => {
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on("warning", onWarning);
    try {
      const { held, ended } = await holdingServer().then(async (s) => {
        const client = pipelined(s.port, 15);
        await waitFor("the requests", async () => (s.held.length === 15 ? true : undefined), 5000, 5);
        const socket = s.held[0]?.req.socket as Socket;
        // Node's own few and one of onceEnded's, not one per request.
        expect(socket.listenerCount("close")).toBeLessThan(8);
        for (const { res } of s.held) res.end("ok\n");
        await waitFor("every response ended", async () => (s.ended() === 15 ? true : undefined), 5000, 5);
        client.destroy();
        return s;
      });
      expect(held).toHaveLength(15);
      expect(ended()).toBe(15);
      expect(warnings.filter((w) => w.name === "MaxListenersExceededWarning")).toEqual([]);
    } finally {
      process.off("warning", onWarning);
    }
  });

  it("calls back at once for a response whose client is gone already, and once for a hang-up", async () => {
    const s = await holdingServer();
    const client = pipelined(s.port, 2);
    await waitFor("the requests", async () => (s.held.length === 2 ? true : undefined), 5000, 5);
    client.destroy();
    await waitFor("both ended", async () => (s.ended() === 2 ? true : undefined), 5000, 5);
    // Watched again after the hang-up (a handler that awaited something first): called back at once.
    const { req, res } = s.held[0] as { req: IncomingMessage; res: ServerResponse };
    let late = 0;
    onceEnded(req, res, () => late++);
    expect(late).toBe(1);
    await new Promise((r) => setTimeout(r, 50));
    expect(s.ended()).toBe(2);
  });
});
