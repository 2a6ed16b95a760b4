import { mkdirSync, readFileSync } from "node:fs";
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { type AddressInfo, createServer as createNetServer, type Server, type Socket } from "node:net";
import { join } from "node:path";
import type { TLSSocket } from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HttpClientConfig } from "../../src/config/types.js";
import { pollEndpoint } from "../../src/poll/poll-endpoint.js";
import { makeCerts, type TestCerts } from "../harness/certs.js";
import { tempDir } from "../harness/processes.js";
import { sourceConfig } from "../helpers/config.js";
import { fixtureText } from "../helpers/fixtures.js";

// Redirects must not carry a source's secrets anywhere the operator did not point it. Two (or, for the
// scheme change, one dual-protocol) local servers: the first redirects, the second records what came.

const targetsJson = fixtureText("upstream/prometheus-targets.json");
const dir = tempDir("promstatus-redirects");
let certs: TestCerts;
const servers: Server[] = [];

interface Seen {
  url: string;
  authorization: string | undefined;
  orgId: string | undefined;
  clientCert: boolean;
}

beforeAll(() => {
  mkdirSync(join(dir.path, "certs"));
  certs = makeCerts(join(dir.path, "certs"));
});
afterAll(async () => {
  for (const s of servers) {
    (s as { closeAllConnections?: () => void }).closeAllConnections?.();
    await new Promise((r) => s.close(r));
  }
  dir.remove();
});

type Handler = (req: IncomingMessage, res: ServerResponse, seen: Seen[]) => void;

function record(req: IncomingMessage, seen: Seen[]): void {
  const socket = req.socket as TLSSocket;
  seen.push({
    url: req.url ?? "",
    authorization: req.headers.authorization,
    orgId: req.headers["x-scope-orgid"] as string | undefined,
    clientCert: typeof socket.getPeerCertificate === "function" && Object.keys(socket.getPeerCertificate()).length > 0,
  });
}

function recording(seen: Seen[], handler: Handler) {
  return (req: IncomingMessage, res: ServerResponse) => {
    record(req, seen);
    handler(req, res, seen);
  };
}

async function listen(server: Server): Promise<number> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as AddressInfo).port;
}

async function httpServer(handler: Handler) {
  const seen: Seen[] = [];
  const port = await listen(createHttpServer(recording(seen, handler)));
  return { url: `http://127.0.0.1:${port}`, seen };
}

async function httpsServer(handler: Handler, requestCert = false) {
  const seen: Seen[] = [];
  const server = createHttpsServer(
    {
      cert: readCert(certs.serverCertFile),
      key: readCert(certs.serverKeyFile),
      requestCert,
      rejectUnauthorized: false,
    },
    recording(seen, handler),
  );
  const port = await listen(server);
  return { url: `https://127.0.0.1:${port}`, seen };
}

/** One port that speaks HTTPS and plain HTTP (by the first byte), so a redirect can change only the scheme. */
async function dualServer(handler: Handler) {
  const seen: Seen[] = [];
  const onRequest = recording(seen, handler);
  const plain = createHttpServer(onRequest);
  const secure = createHttpsServer(
    { cert: readCert(certs.serverCertFile), key: readCert(certs.serverKeyFile) },
    onRequest,
  );
  const sockets = new Set<Socket>();
  const front = createNetServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.once("readable", () => {
      const first = socket.read(1) as Buffer | null;
      if (!first) return;
      socket.unshift(first);
      (first[0] === 0x16 ? secure : plain).emit("connection", socket);
    });
  });
  front.on("close", () => {
    for (const s of sockets) s.destroy();
  });
  const port = await listen(front);
  return { port, seen };
}

const readCert = (file: string) => readFileSync(file);

const answer: Handler = (_req, res) => res.writeHead(200, { "content-type": "application/json" }).end(targetsJson);
const redirectTo =
  (location: () => string): Handler =>
  (req, res) =>
    res.writeHead(302, { location: `${location()}${req.url}` }).end();

function http(overrides: Partial<HttpClientConfig> = {}): HttpClientConfig {
  return {
    headers: { "X-Scope-OrgID": "tenant-secret" },
    authorization: { type: "Bearer", credentials: "s3cr3t-token" },
    tls: { caFile: certs.caFile, insecureSkipVerify: false },
    followRedirects: true,
    compression: "gzip",
    ...overrides,
  };
}

describe("redirects", () => {
  it("keep credentials and headers on the same origin", async () => {
    let first = true;
    const a = await httpServer((req, res, seen) => {
      if (first) {
        first = false;
        return redirectTo(() => `http://127.0.0.1:${new URL(`http://${req.headers.host}`).port}/moved`)(req, res, seen);
      }
      answer(req, res, seen);
    });
    const outcome = await pollEndpoint(sourceConfig({ url: a.url, http: http() }), "targets");
    expect(outcome.ok).toBe(true);
    expect(a.seen.map((s) => [s.authorization, s.orgId])).toEqual([
      ["Bearer s3cr3t-token", "tenant-secret"],
      ["Bearer s3cr3t-token", "tenant-secret"],
    ]);
  });

  it("never carry the Authorization header or custom headers to another origin", async () => {
    const b = await httpServer(answer);
    const a = await httpServer(redirectTo(() => b.url));
    const outcome = await pollEndpoint(sourceConfig({ url: a.url, http: http() }), "targets");
    expect(outcome.ok).toBe(true);
    expect(a.seen[0]).toMatchObject({ authorization: "Bearer s3cr3t-token", orgId: "tenant-secret" });
    expect(b.seen).toEqual([expect.objectContaining({ authorization: undefined, orgId: undefined })]);
  });

  it("never carry basic auth from HTTPS to plain HTTP on the same host and port", async () => {
    // got itself keeps Authorization when only the scheme changes.
    const server = await dualServer((req, res, seen) => {
      const secure = (req.socket as TLSSocket).encrypted === true;
      if (secure) return redirectTo(() => `http://127.0.0.1:${server.port}`)(req, res, seen);
      answer(req, res, seen);
    });
    const config = http({ authorization: undefined, basicAuth: { username: "monitor", password: "pa55word" } });
    const outcome = await pollEndpoint(
      sourceConfig({ url: `https://127.0.0.1:${server.port}`, http: config }),
      "targets",
    );
    expect(outcome.ok ? "" : outcome.error.message).toBe("");
    expect(server.seen).toHaveLength(2);
    expect(server.seen[0]?.authorization).toMatch(/^Basic /);
    expect(server.seen[1]).toMatchObject({ authorization: undefined, orgId: undefined });
  });

  it("never present the client certificate to another origin", async () => {
    const b = await httpsServer(answer, true);
    const a = await httpsServer(
      redirectTo(() => b.url),
      true,
    );
    const config = http({
      tls: {
        caFile: certs.caFile,
        certFile: certs.clientCertFile,
        keyFile: certs.clientKeyFile,
        insecureSkipVerify: false,
      },
    });
    const outcome = await pollEndpoint(sourceConfig({ url: a.url, http: config }), "targets");
    expect(outcome.ok).toBe(true);
    expect(a.seen[0]?.clientCert).toBe(true);
    expect(b.seen[0]?.clientCert).toBe(false);
  });

  it("are not followed with follow_redirects: false, and say so", async () => {
    const b = await httpServer(answer);
    const a = await httpServer(redirectTo(() => b.url));
    const outcome = await pollEndpoint(sourceConfig({ url: a.url, http: http({ followRedirects: false }) }), "targets");
    expect(outcome.ok ? "" : outcome.error.reason).toBe("http_status");
    expect(outcome.ok ? "" : outcome.error.message).toBe("HTTP 302: redirect not followed (follow_redirects is false)");
    expect(b.seen).toEqual([]);
  });
});
