import { Agent, get, type Server } from "node:http";
import { type AddressInfo, connect, type Socket } from "node:net";
import bcrypt from "bcryptjs";
import { afterEach, describe, expect, it } from "vitest";
import { packLines } from "../../src/exposition/pack.js";
import type { AppDeps } from "../../src/http/app.js";
import { ProcessMetrics } from "../../src/publish/process-metrics.js";
import { createScrapeMetrics } from "../../src/publish/scrape-metrics.js";
import type { Exposition } from "../../src/publish/store.js";
import { waitFor } from "../harness/processes.js";
import { appServing } from "../helpers/app.js";
import { samplesOf } from "../helpers/exposition.js";
import { promtoolCheckMetrics } from "../helpers/promtool.js";

// --web.max-requests: /metrics requests served at once. A response its client has stopped reading keeps
// its place (and the exposition it holds) until the client goes away; one request over the limit gets 503.

let server: Server | undefined;
const held: Socket[] = [];
/** Ends a probe a test left hanging. */
let releaseProbe: () => void = () => {};
afterEach(async () => {
  releaseProbe();
  for (const socket of held.splice(0)) socket.destroy();
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

const SMALL_TEXT = "# HELP promstatus_x x\n# TYPE promstatus_x gauge\npromstatus_x 5\n";
const SMALL: Exposition = { parts: [Buffer.from(SMALL_TEXT)], length: SMALL_TEXT.length, gzip: undefined };

/** 32 MiB of lines, far more than loopback socket buffers hold, packed as the decoder packs a large family. */
function largePacked(): Exposition {
  let block = "";
  for (let i = 0; block.length < 2 ** 20 - 200; i++) block += `promstatus_target_up{instance="host-${i}:9100"} 1\n`;
  const lines = Buffer.concat(Array.from({ length: 32 }, () => Buffer.from(block)));
  return { parts: [packLines(lines)], length: lines.length, gzip: undefined };
}
const LARGE = largePacked();

async function serve(exposition: () => Exposition, overrides: Partial<AppDeps> = {}) {
  // Runtime metrics collected once for the whole test: scrapes need not wait a turn of the event loop.
  const processMetrics = new ProcessMetrics("test", 3_600_000);
  const app = appServing(exposition, {
    processMetrics,
    scrapeMetrics: createScrapeMetrics(processMetrics.registry),
    ...overrides,
  });
  server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, "127.0.0.1", () => resolve(s));
  });
  const port = (server.address() as AddressInfo).port;
  return { port, url: `http://127.0.0.1:${port}/metrics`, processMetrics };
}

/** The text of the first scrape answered 200 within `ms`, once a place is free again. */
function servedWhenFree(url: string, init: RequestInit = {}, ms = 5000): Promise<string> {
  return waitFor(
    "a place to be free",
    async () => {
      const answer = await fetch(url, init);
      const text = await answer.text();
      return answer.status === 200 ? text : undefined;
    },
    ms,
    20,
  );
}

/**
 * A client that asks for /metrics, reads the first bytes of the answer and then stops reading (its
 * socket stays open). Resolves with the socket and the status line once the server has begun to answer.
 */
function stalledScrape(
  port: number,
  headers: Record<string, string> = {},
  path = "/metrics",
): Promise<{ socket: Socket; status: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    held.push(socket);
    const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
    socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${lines.join("")}\r\n`);
    socket.once("data", (first: Buffer) => {
      socket.pause();
      resolve({ socket, status: first.toString("latin1").split("\r\n")[0] ?? "" });
    });
    socket.once("error", reject);
  });
}

/** Stops a stalled client and waits until the server saw it go (its socket closed at the server too). */
async function hangUp(socket: Socket): Promise<void> {
  const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  socket.destroy();
  await closed;
}

const fail = (): never => {
  throw new Error("no stalled scrape");
};

const LIMIT_BODY = (n: number) => `Limit of concurrent requests reached (${n}), try again later.\n`;

describe("/metrics with --web.max-requests", () => {
  it("answers 503 over the limit, in promhttp's words, and lets the next in once a stalled client goes away", async () => {
    const { port, url } = await serve(() => LARGE, { maxRequests: 2 });
    const first = await stalledScrape(port);
    const second = await stalledScrape(port);
    expect([first.status, second.status]).toEqual(["HTTP/1.1 200 OK", "HTTP/1.1 200 OK"]);

    const refused = await fetch(url);
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(refused.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(await refused.text()).toBe(LIMIT_BODY(2));

    await hangUp(first.socket);
    // The server learns of the hang-up from the socket closing, a moment after the client.
    const next = await waitFor(
      "a place to be free",
      async () => {
        const res = await fetch(url);
        if (res.status === 200) return res;
        await res.text();
        return undefined;
      },
      5000,
      20,
    );
    const body = Buffer.from(await next.arrayBuffer());
    expect(body.length).toBe(Number(next.headers.get("content-length")));
    expect(body.subarray(-LARGE.length).subarray(0, 40).toString()).toBe('promstatus_target_up{instance="host-0:91');
  });

  it("counts scrapes in flight (itself included) and by code, as promhttp names them, and promtool accepts them", async () => {
    let exposition = LARGE;
    const { port, url } = await serve(() => exposition, { maxRequests: 3 });
    const scrape = async () => {
      exposition = SMALL;
      const res = await fetch(url);
      return { status: res.status, text: await res.text() };
    };
    const stalled = [await stalledScrape(port), await stalledScrape(port)];

    const first = await scrape();
    expect(first.status).toBe(200);
    expect(samplesOf(first.text, "promhttp_metric_handler_requests_in_flight")[0]?.value).toBe(3);
    for (const code of ["200", "500", "503"]) {
      expect(samplesOf(first.text, "promhttp_metric_handler_requests_total", { code })[0]?.value).toBe(0);
    }
    const check = promtoolCheckMetrics(first.text);
    expect(check.output).toBe("");
    expect(check.status).toBe(0);

    exposition = LARGE;
    stalled.push(await stalledScrape(port));
    let refused = 0;
    expect((await scrape()).status).toBe(503);
    refused += 1;
    await hangUp(stalled[0]?.socket ?? fail());
    const after = await waitFor(
      "a place to be free",
      async () => {
        const answer = await scrape();
        if (answer.status === 200) return answer;
        refused += 1;
        return undefined;
      },
      5000,
      20,
    );
    // Two stalled scrapes and this one; answered so far: the first scrape and the stalled one that went
    // away (a 200 cut short), and the refusals.
    expect(samplesOf(after.text, "promhttp_metric_handler_requests_in_flight")[0]?.value).toBe(3);
    expect(samplesOf(after.text, "promhttp_metric_handler_requests_total", { code: "200" })[0]?.value).toBe(2);
    expect(samplesOf(after.text, "promhttp_metric_handler_requests_total", { code: "503" })[0]?.value).toBe(refused);
  });

  it("holds no limit at 0", async () => {
    let exposition = LARGE;
    const { port, url } = await serve(() => exposition, { maxRequests: 0 });
    for (let i = 0; i < 5; i++) await stalledScrape(port);
    exposition = SMALL;
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(samplesOf(await res.text(), "promhttp_metric_handler_requests_in_flight")[0]?.value).toBe(6);
  });

  it("keeps the place of a gzip scrape its client does not read", async () => {
    // The members are not read as gzip here: only their size matters (more than socket buffers hold).
    const member = Buffer.alloc(32 * 2 ** 20);
    const gzip = { members: [member], crc: 0 };
    const { port, url } = await serve(() => ({ ...SMALL, gzip }), { maxRequests: 1 });
    const stalled = await stalledScrape(port, { "Accept-Encoding": "gzip" });
    expect(stalled.status).toBe("HTTP/1.1 200 OK");
    const res = await fetch(url, { headers: { "accept-encoding": "gzip" } });
    expect(res.status).toBe(503);
    expect(await res.text()).toBe(LIMIT_BODY(1));
  });

  it("gives the place back once on every path: kept-alive connections, HEAD, errors before and after the headers", async () => {
    let exposition: () => Exposition = () => SMALL;
    const { url } = await serve(() => exposition(), { maxRequests: 1 });
    for (let i = 0; i < 3; i++) expect((await fetch(url)).status).toBe(200); // one kept-alive connection
    expect((await fetch(url, { method: "HEAD" })).status).toBe(200);

    exposition = () => {
      throw new Error("no exposition");
    };
    const failed = await fetch(url);
    expect(failed.status).toBe(500);
    await failed.text();

    // A member that is not deflate data fails the plain body after its headers: the connection is cut.
    const bad = packLines(Buffer.from("promstatus_x 1\n".repeat(200_000)), 2 ** 20);
    bad.members[1] = Buffer.from("not deflate data");
    exposition = () => ({ parts: [bad], length: bad.length, gzip: undefined });
    const cut = await fetch(url);
    expect(cut.status).toBe(200);
    await expect(cut.arrayBuffer()).rejects.toThrow();

    exposition = () => SMALL;
    const res = await servedWhenFree(url);
    expect(samplesOf(res, "promhttp_metric_handler_requests_in_flight")[0]?.value).toBe(1);
    expect(samplesOf(res, "promhttp_metric_handler_requests_total", { code: "500" })[0]?.value).toBe(1);
    expect(samplesOf(res, "promhttp_metric_handler_requests_total", { code: "503" })[0]?.value).toBe(0);
    // Three GETs, the HEAD and the body cut short.
    expect(samplesOf(res, "promhttp_metric_handler_requests_total", { code: "200" })[0]?.value).toBe(5);
  });

  it("leaves no listener behind on a kept-alive connection, however many scrapes it carries", async () => {
    const { port } = await serve(() => SMALL, { maxRequests: 1 });
    const sockets: Socket[] = [];
    server?.on("connection", (socket: Socket) => sockets.push(socket));
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const scrape = () =>
      new Promise<number>((resolve, reject) => {
        get({ host: "127.0.0.1", port, path: "/metrics", agent }, (res) => {
          res.resume();
          res.on("end", () => resolve(res.statusCode ?? 0));
        }).on("error", reject);
      });
    expect(await scrape()).toBe(200);
    const listeners = sockets[0]?.listenerCount("close") ?? -1;
    for (let i = 0; i < 30; i++) expect(await scrape()).toBe(200);
    agent.destroy();
    // One connection for all of them, with as many 'close' listeners as after the first.
    expect(sockets.length).toBe(1);
    expect(sockets[0]?.listenerCount("close")).toBe(listeners);
  });

  it("limits the telemetry path only, after basic auth", async () => {
    const users = new Map([["prometheus", bcrypt.hashSync("right", 4)]]);
    const { port, url } = await serve(() => LARGE, {
      maxRequests: 1,
      webConfig: () => ({ tls: undefined, users }),
    });
    const authorization = `Basic ${Buffer.from("prometheus:right").toString("base64")}`;
    expect((await stalledScrape(port, { Authorization: authorization })).status).toBe("HTTP/1.1 200 OK");
    expect((await fetch(url, { headers: { authorization } })).status).toBe(503);
    // A client without the password is refused as such: the limit does not tell it how busy /metrics is.
    expect((await fetch(url)).status).toBe(401);
    const base = url.replace(/\/metrics$/, "");
    expect((await fetch(`${base}/-/healthy`)).status).toBe(200);
    expect((await fetch(`${base}/`, { headers: { authorization } })).status).toBe(200);
  });
  // On Node 20 a ServerResponse queued behind another on its connection (pipelined requests) emits no
  // 'close' when that connection closes (_http_server.js keeps it in state.outgoing): the limiter also
  // listens on the connection, or one unauthenticated connection would turn /metrics into 503 for good.
  it("gives back the places of pipelined scrapes queued behind a slow response when the client hangs up", async () => {
    let probes = 0;
    const { port, url, processMetrics } = await serve(() => SMALL, {
      maxRequests: 2,
      // A probe of an upstream that does not answer (within its timeout): holds no /metrics place.
      probe: () => {
        probes++;
        return new Promise((resolve) => {
          releaseProbe = () => resolve({ status: 400, type: "text", body: "released\n" });
        });
      },
    });
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
    // The client is gone: its places come back, and the next scrape is served.
    await servedWhenFree(url, {}, 3000);
  });

  // Basic auth checks a password in a worker (asynchronously) before the limiter takes a place: a client
  // that hangs up meanwhile has its response closed before the limiter could listen for it.
  it("takes no place for a client that hung up while its password was checked", async () => {
    // A password cost as a real web config has it: the check takes tens of milliseconds.
    const users = new Map([["prometheus", bcrypt.hashSync("right", 12)]]);
    const { port, url } = await serve(() => SMALL, { maxRequests: 1, webConfig: () => ({ tls: undefined, users }) });
    const authorization = `Basic ${Buffer.from("prometheus:right").toString("base64")}`;

    const socket = connect(port, "127.0.0.1");
    socket.on("error", () => {});
    await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
    socket.write(`GET /metrics HTTP/1.1\r\nHost: x\r\nAuthorization: ${authorization}\r\n\r\n`);
    await new Promise((r) => setTimeout(r, 20)); // the request is read; its password is being checked
    socket.destroy();

    // With a place lost, every scrape would get 503 until a restart.
    await servedWhenFree(url, { headers: { authorization } }, 3000);
  });
});

describe("/metrics with --web.stall-timeout", () => {
  it("closes a scrape its client stopped reading, freeing its place", async () => {
    const { port, url } = await serve(() => LARGE, { maxRequests: 1, stallTimeoutMs: 300 });
    const stalled = await stalledScrape(port);
    expect(stalled.status).toBe("HTTP/1.1 200 OK");
    // The client reads nothing more (its socket stays paused and open): its place is held, then given back.
    const refused = await fetch(url);
    expect(refused.status).toBe(503);
    await refused.text();
    const text = await servedWhenFree(url, {}, 5000);
    expect(text.length).toBeGreaterThan(LARGE.length);
  });

  it("leaves a client that keeps taking what is written (each write within the timeout)", async () => {
    const { port } = await serve(() => LARGE, { maxRequests: 1, stallTimeoutMs: 300 });
    const { socket, status } = await stalledScrape(port);
    expect(status).toBe("HTTP/1.1 200 OK");
    let closed = false;
    socket.once("close", () => {
      closed = true;
    });
    // A little every 100 ms for 1.5 s: never 300 ms without reading.
    const chunk = (): Promise<void> =>
      new Promise((resolve) => {
        socket.once("data", () => {
          socket.pause();
          resolve();
        });
        socket.resume();
      });
    for (let i = 0; i < 15; i++) {
      await chunk();
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(closed).toBe(false);
  });

  it("leaves a kept-alive connection waiting for the next scrape once one is whole", async () => {
    const { port } = await serve(() => SMALL, { stallTimeoutMs: 300 });
    const socket = connect(port, "127.0.0.1");
    held.push(socket);
    expect(await twoScrapesOneConnection(socket, 600)).toEqual(["HTTP/1.1 200 OK", "HTTP/1.1 200 OK"]);
  });

  it("leaves a request pipelined behind a scrape to Node's own timeouts", async () => {
    // A probe that answers after three stall timeouts of silence on the connection.
    const { port } = await serve(() => SMALL, {
      stallTimeoutMs: 300,
      probe: async () => {
        await new Promise((r) => setTimeout(r, 900));
        return { status: 200, type: "text", body: "probed\n" };
      },
    });
    const socket = connect(port, "127.0.0.1");
    held.push(socket);
    let received = "";
    socket.on("data", (piece: Buffer) => {
      received += piece.toString("latin1");
    });
    const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
    // Both in one write: the probe's response waits behind the scrape's and takes its connection after it.
    socket.write(
      "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nGET /probe?target=x HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
    );
    await closed;
    expect(received.match(/^HTTP\/1\.1 \d+/gm)).toEqual(["HTTP/1.1 200", "HTTP/1.1 200"]);
    expect(received.endsWith("probed\n")).toBe(true);
  });
});

/** Two scrapes on one connection, `pauseMs` apart once the first was read whole: their status lines. */
async function twoScrapesOneConnection(socket: Socket, pauseMs: number): Promise<string[]> {
  const statuses: string[] = [];
  let received = Buffer.alloc(0);
  const whole = () =>
    new Promise<void>((resolve, reject) => {
      const onData = (piece: Buffer) => {
        received = Buffer.concat([received, piece]);
        const head = received.indexOf("\r\n\r\n");
        if (head < 0) return;
        const length = Number(/content-length: (\d+)/i.exec(received.subarray(0, head).toString("latin1"))?.[1]);
        if (received.length < head + 4 + length) return;
        statuses.push(received.subarray(0, received.indexOf("\r\n")).toString("latin1"));
        received = received.subarray(head + 4 + length);
        socket.off("data", onData);
        resolve();
      };
      socket.on("data", onData);
      socket.once("close", () => reject(new Error(`closed after ${statuses.length} answers`)));
    });
  const request = "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
  socket.write(request);
  await whole();
  await new Promise((r) => setTimeout(r, pauseMs));
  socket.write(request);
  await whole();
  return statuses;
}

describe("/probe answers its clients have not read", () => {
  // 16 MiB, far more than loopback socket buffers hold: an answer its client does not read stays held.
  const body = Buffer.alloc(16 * 2 ** 20, "promstatus_up 1\n").toString("latin1");
  const probe = async () => ({ status: 200 as const, type: "metrics" as const, body: Buffer.from(body, "latin1") });

  it("are bounded in bytes: one more is answered 503 at once, and served once a client goes away", async () => {
    const { port } = await serve(() => SMALL, { probe, probeAnswerBytes: 24 * 2 ** 20 });
    const first = await stalledScrape(port, {}, "/probe?target=x");
    expect(first.status).toBe("HTTP/1.1 200 OK");
    const url = `http://127.0.0.1:${port}/probe?target=x`;
    const refused = await fetch(url);
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(await refused.text()).toContain("Too many probe answers still being read");
    await hangUp(first.socket);
    expect((await servedWhenFree(url, {}, 3000)).length).toBe(body.length);
  });

  it("are closed after --web.stall-timeout, giving their bytes back", async () => {
    const { port } = await serve(() => SMALL, { probe, probeAnswerBytes: 24 * 2 ** 20, stallTimeoutMs: 300 });
    const first = await stalledScrape(port, {}, "/probe?target=x");
    expect(first.status).toBe("HTTP/1.1 200 OK");
    const url = `http://127.0.0.1:${port}/probe?target=x`;
    const refused = await fetch(url);
    expect(refused.status).toBe(503);
    await refused.text();
    // The client never reads on (nor hangs up): the server closes its answer and the bytes come back.
    expect((await servedWhenFree(url, {}, 5000)).length).toBe(body.length);
  });
});
