import type { Server } from "node:http";
import { type AddressInfo, connect, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import type { Exposition } from "../../src/publish/store.js";
import { appServing } from "../helpers/app.js";

// Hostile review of 9b01d56 (/probe answers bounded in bytes, closed after --web.stall-timeout once ready).
// Failed until a GET with a body was refused (app.ts): the stall timeout is the connection's idle timeout (stall-timeout.ts),
// which any byte the client sends resets. A client that never reads its answer but sends a byte of a
// request body now and then keeps the answer, and its share of the bytes budget, for as long as Node's
// own requestTimeout lets the request last (300 s, checked every 30 s): measured with a 500 ms stall
// timeout, other clients' probes were answered 503 for 330 s; in the daemon (Node 24, default 1m), five
// such clients of a 45 MB answer kept every probe of that target at 503 for the 150 s they were run.

const SMALL: Exposition = { parts: [Buffer.from("x 1\n")], length: 4, gzip: undefined };
const body = Buffer.alloc(16 * 2 ** 20, "promstatus_up 1\n");
const probe = async () => ({ status: 200 as const, type: "metrics" as const, body });

let server: Server | undefined;
const sockets: Socket[] = [];
let timer: NodeJS.Timeout | undefined;
afterEach(async () => {
  clearInterval(timer);
  for (const socket of sockets.splice(0)) socket.destroy();
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

describe("a /probe answer its client does not read, while the client sends a byte now and then", () => {
  it("is closed after --web.stall-timeout, giving its bytes back", async () => {
    const app = appServing(() => SMALL, { probe, probeAnswerBytes: 24 * 2 ** 20, stallTimeoutMs: 300 });
    server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, "127.0.0.1", () => resolve(s));
    });
    const port = (server.address() as AddressInfo).port;
    const socket = connect(port, "127.0.0.1");
    sockets.push(socket);
    socket.on("error", () => {});
    // A request body announced and sent a byte at a time: the answer comes at once, and is never read.
    socket.write("GET /probe?target=x HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100000\r\n\r\n");
    await new Promise<void>((resolve) =>
      socket.once("data", () => {
        socket.pause();
        resolve();
      }),
    );
    timer = setInterval(() => socket.write("a"), 100);
    // Ten stall timeouts without a byte of the answer taken.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const answer = await fetch(`http://127.0.0.1:${port}/probe?target=x`);
    await answer.arrayBuffer();
    expect(answer.status, "another client's probe, after ten stall timeouts of the first answer unread").toBe(200);
  });
});
