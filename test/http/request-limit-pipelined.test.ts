import type { Server } from "node:http";
import { type AddressInfo, connect } from "node:net";
import { afterEach, expect, it } from "vitest";
import { ProcessMetrics } from "../../src/publish/process-metrics.js";
import { createScrapeMetrics } from "../../src/publish/scrape-metrics.js";
import type { Exposition } from "../../src/publish/store.js";
import { waitFor } from "../harness/processes.js";
import { appServing } from "../helpers/app.js";

// --web.max-requests places taken by pipelined /metrics requests whose responses wait in the
// connection's queue (behind a slow /probe) are given back when the client hangs up. On Node 20 a
// ServerResponse that was never assigned its socket emits no 'close' when that socket closes
// (_http_server.js keeps it in state.outgoing), so request-limit.ts also listens on the connection:
// otherwise one unauthenticated connection would turn /metrics into 503 for good.

let server: Server | undefined;
let releaseProbe: () => void = () => {};
afterEach(async () => {
  releaseProbe();
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

const TEXT = "# HELP promstatus_x x\n# TYPE promstatus_x gauge\npromstatus_x 5\n";
const SMALL: Exposition = { parts: [Buffer.from(TEXT)], length: TEXT.length, gzip: undefined };

it("gives back the places of pipelined /metrics requests queued behind a slow response when the client hangs up", async () => {
  const processMetrics = new ProcessMetrics("test", 3_600_000);
  let probes = 0;
  const app = appServing(() => SMALL, {
    processMetrics,
    scrapeMetrics: createScrapeMetrics(processMetrics.registry),
    maxRequests: 2,
    // A probe of an upstream that does not answer (within its timeout): holds no /metrics place.
    probe: () => {
      probes++;
      return new Promise((resolve) => {
        releaseProbe = () => resolve({ status: 400, type: "text", body: "released\n" });
      });
    },
  });
  server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, "127.0.0.1", () => resolve(s));
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}/metrics`;
  const inFlight = async () =>
    (await processMetrics.registry.getSingleMetric("promhttp_metric_handler_requests_in_flight")?.get())?.values[0]
      ?.value;

  const socket = connect(port, "127.0.0.1");
  socket.on("error", () => {});
  socket.pause();
  await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
  socket.write(
    "GET /probe?module=prometheus&target=http://127.0.0.1:1 HTTP/1.1\r\nHost: x\r\n\r\n" +
      "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n".repeat(2),
  );
  // Both /metrics requests have their places (their responses wait behind the probe's).
  await waitFor(
    "the pipelined scrapes to hold both places",
    async () => ((await inFlight()) === 2 ? true : undefined),
    5000,
    10,
  );
  expect(probes).toBe(1);

  const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  socket.destroy();
  await closed;

  // The client is gone: its places must come back, and the next scrape be served.
  let last = 0;
  const served = await waitFor(
    "a place to be free",
    async () => {
      const res = await fetch(url);
      last = res.status;
      await res.arrayBuffer();
      return res.status === 200 ? true : undefined;
    },
    3000,
    50,
  ).catch(() => false);
  expect({ served, last }).toEqual({ served: true, last: 200 });
});
