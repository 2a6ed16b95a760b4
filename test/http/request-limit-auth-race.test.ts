import type { Server } from "node:http";
import { type AddressInfo, connect } from "node:net";
import bcrypt from "bcryptjs";
import { afterEach, expect, it } from "vitest";
import { ProcessMetrics } from "../../src/publish/process-metrics.js";
import { createScrapeMetrics } from "../../src/publish/scrape-metrics.js";
import type { Exposition } from "../../src/publish/store.js";
import { waitFor } from "../harness/processes.js";
import { appServing } from "../helpers/app.js";

// Basic auth checks a password in a worker (asynchronously) before request-limit.ts takes a place.
// A client that hangs up while its password is checked has its response closed ('close' emitted)
// before the limiter could listen for it: the limiter takes no place for a client already gone, or
// with --web.max-requests=1 one such scrape would leave /metrics 503 for every client until a restart.

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

const TEXT = "# HELP promstatus_x x\n# TYPE promstatus_x gauge\npromstatus_x 5\n";
const SMALL: Exposition = { parts: [Buffer.from(TEXT)], length: TEXT.length, gzip: undefined };

it("gives the place back to a scrape whose client hung up while its password was checked", async () => {
  // A password cost as a real web config has it: the check takes tens of milliseconds.
  const users = new Map([["prometheus", bcrypt.hashSync("right", 12)]]);
  const processMetrics = new ProcessMetrics("test", 3_600_000);
  const app = appServing(() => SMALL, {
    processMetrics,
    scrapeMetrics: createScrapeMetrics(processMetrics.registry),
    maxRequests: 1,
    webConfig: () => ({ tls: undefined, users }),
  });
  server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, "127.0.0.1", () => resolve(s));
  });
  const port = (server.address() as AddressInfo).port;
  const authorization = `Basic ${Buffer.from("prometheus:right").toString("base64")}`;

  const socket = connect(port, "127.0.0.1");
  socket.on("error", () => {});
  await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
  socket.write(`GET /metrics HTTP/1.1\r\nHost: x\r\nAuthorization: ${authorization}\r\n\r\n`);
  await new Promise((r) => setTimeout(r, 20)); // the request is read; its password is being checked
  socket.destroy();

  let last = 0;
  const served = await waitFor(
    "a place to be free",
    async () => {
      const res = await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { authorization } });
      last = res.status;
      await res.arrayBuffer();
      return res.status === 200 ? true : undefined;
    },
    3000,
    50,
  ).catch(() => false);
  expect({ served, last }).toEqual({ served: true, last: 200 });
});
