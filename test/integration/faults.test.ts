import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createHttpsServer, type Server as HttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseFlags } from "../../src/cli/flags.js";
import { parseConfig } from "../../src/config/load.js";
import { Exporter } from "../../src/exporter.js";
import { NO_WEB_CONFIG } from "../../src/http/web-config.js";
import { makeCerts, type TestCerts } from "../harness/certs.js";
import { tempDir, waitFor } from "../harness/processes.js";
import { samplesOf, valueIn } from "../helpers/exposition.js";
import { fixtureText } from "../helpers/fixtures.js";

// Every upstream fault, through the whole exporter: up goes 0, the reason is counted, the endpoint's
// series go, one log line says why, the other sources carry on, and the next good answer restores all.
// A local server plays the faulty upstream: real servers cannot be made to do these things.

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

let bomb: Buffer | undefined;
const gzipBomb = () => {
  bomb ??= gzipSync(Buffer.alloc(20_000_000, " "));
  return bomb;
};

const tsdb = fixtureText("upstream/prometheus-tsdb.json");
const targets = fixtureText("upstream/prometheus-targets.json");
const good: Handler = (req, res) => {
  res.writeHead(200, { "content-type": "application/json" });
  res.end(req.url?.startsWith("/api/v1/targets") ? targets : tsdb);
};
const json =
  (status: number, body: unknown): Handler =>
  (_req, res) => {
    res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
  };

/** Each fault: how the upstream misbehaves, the reason expected, and what the log must say. */
const FAULTS: { name: string; handler: Handler; reason: string; log: RegExp }[] = [
  { name: "accepts and never answers", handler: () => {}, reason: "timeout", log: /timeout/ },
  {
    name: "trickles a body forever",
    handler: (_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      const timer = setInterval(() => res.write(" "), 100);
      res.on("close", () => clearInterval(timer));
    },
    reason: "timeout",
    log: /timeout/,
  },
  {
    name: "HTTP 500 with an HTML page",
    handler: (_req, res) => res.writeHead(500, { "content-type": "text/html" }).end("<html><h1>Oops</h1></html>"),
    reason: "http_status",
    log: /^HTTP 500: Oops$/,
  },
  ...[400, 422, 503].map((status) => ({
    name: `HTTP ${status} with Prometheus's error envelope`,
    handler: json(status, { status: "error", errorType: "bad_data", error: `status ${status} says no` }),
    reason: "http_status",
    log: new RegExp(`^HTTP ${status}: bad_data: status ${status} says no$`),
  })),
  {
    name: "success without data",
    handler: json(200, { status: "success" }),
    reason: "invalid_payload",
    log: /data/,
  },
  {
    name: "success with data of the wrong shape",
    handler: json(200, { status: "success", data: { activeTargets: "many", headStats: [] } }),
    reason: "invalid_payload",
    log: /unexpected answer/,
  },
  {
    name: "invalid JSON",
    handler: (_req, res) => res.writeHead(200).end("{not json"),
    reason: "invalid_json",
    log: /not valid JSON/,
  },
  {
    name: "truncated JSON",
    handler: (_req, res) => res.writeHead(200).end(targets.slice(0, 300)),
    reason: "invalid_json",
    log: /not valid JSON/,
  },
  {
    name: "a body over max_response_size",
    handler: (_req, res) => res.writeHead(200).end(`{"pad":"${"x".repeat(300_000)}"}`),
    reason: "too_large",
    log: /larger than 262144 bytes/,
  },
  {
    name: "a gzip bomb",
    // Compressed once, not per request: gzipping 20 MB in every request's handler blocked this process
    // (the exporter's too) long enough on a busy machine to make its polls fail timeout instead.
    handler: (_req, res) => res.writeHead(200, { "content-encoding": "gzip" }).end(gzipBomb()),
    reason: "too_large",
    log: /after decompression/,
  },
  {
    name: "a redirect loop",
    handler: (req, res) => res.writeHead(302, { location: `${req.url}x` }).end(),
    reason: "http_status",
    log: /too many redirects/,
  },
  {
    name: "a connection reset mid-body",
    handler: (req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": "99999" });
      res.write(targets.slice(0, 200));
      setTimeout(() => req.socket.destroy(), 10);
    },
    reason: "connection",
    log: /ECONNRESET|socket hang up|aborted/i,
  },
];

let dir: ReturnType<typeof tempDir>;
let certs: TestCerts;
let mode: Handler = good;
let faulty: Server;
let faultyPort: number;
let switchTls: (m: "trusted" | "untrusted") => void;
let tlsServer: HttpsServer;
let steady: Server;
let exporter: Exporter;
let metricsUrl: string;
const logs: Record<string, unknown>[] = [];

const listen = (server: Server, port = 0) =>
  new Promise<number>((resolve) =>
    server.listen(port, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)),
  );
const scrape = async () => (await fetch(metricsUrl)).text();
const failures = (text: string, source: string, endpoint: string, reason: string) =>
  samplesOf(text, "promstatus_poll_failures_total", { source, endpoint, reason })[0]?.value ?? 0;

beforeAll(async () => {
  dir = tempDir("promstatus-faults");
  certs = makeCerts(dir.path);
  // A self-signed certificate for localhost that the source does not trust.
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:prime256v1",
      "-nodes",
      "-days",
      "2",
      "-keyout",
      "self.key",
      "-out",
      "self.crt",
      "-subj",
      "/CN=localhost",
      "-addext",
      "subjectAltName=IP:127.0.0.1",
    ],
    { cwd: dir.path, stdio: "ignore" },
  );
  faulty = createHttpServer((req, res) => mode(req, res));
  faultyPort = await listen(faulty);
  steady = createHttpServer(good);
  const steadyPort = await listen(steady);
  const trusted = { cert: certs.serverCertFile, key: certs.serverKeyFile };
  const contexts = {
    trusted: { cert: readFileSync(trusted.cert), key: readFileSync(trusted.key) },
    untrusted: { cert: readFileSync(join(dir.path, "self.crt")), key: readFileSync(join(dir.path, "self.key")) },
  };
  tlsServer = createHttpsServer(contexts.trusted, good);
  switchTls = (m) => {
    tlsServer.setSecureContext(contexts[m]);
    tlsServer.closeAllConnections(); // new connections get the new certificate
  };
  const tlsPort = await listen(tlsServer as unknown as Server);

  const config = parseConfig(
    `global: {schedule: "* * * * * *", timeout: 2s, max_response_size: 256KiB}
sources:
  - {name: faulty, kind: prometheus, url: "http://127.0.0.1:${faultyPort}"}
  - {name: steady, kind: prometheus, url: "http://127.0.0.1:${steadyPort}"}
  - {name: tls, kind: prometheus, url: "https://127.0.0.1:${tlsPort}", tls_config: {ca_file: ${certs.caFile}}, targets: {enabled: false}}
  - {name: nodns, kind: alertmanager, url: "http://promstatus-fault-test.invalid:9093"}
`,
    join(dir.path, "exporter.yml"),
  );
  // debug: a failure that goes on is said at warn once, and each later failed poll at debug.
  const log = pino({ level: "debug" }, { write: (line: string) => void logs.push(JSON.parse(line)) });
  exporter = await Exporter.start(
    { config, webConfig: NO_WEB_CONFIG },
    parseFlags(["--web.listen-address=127.0.0.1:0"]),
    log,
  );
  metricsUrl = `http://127.0.0.1:${(exporter.server.address() as AddressInfo).port}/metrics`;
  await waitFor("faulty and steady polled", async () => {
    const t = await scrape();
    return valueIn(t, "promstatus_up", { source: "faulty", endpoint: "targets" }) === 1 ? true : undefined;
  });
}, 60_000);

afterAll(async () => {
  await exporter?.stop();
  for (const s of [faulty, steady, tlsServer as unknown as Server]) {
    s?.closeAllConnections();
    s?.close();
  }
  dir?.remove();
}, 30_000);

const REQUEST_PATHS: Record<string, string> = {
  tsdb: "/api/v1/status/tsdb",
  targets: "/api/v1/targets",
  status: "/api/v2/status",
};

/** Waits until the source's endpoints have failed for `reason` once more, then checks the aftermath. */
async function expectFault(source: string, endpoints: string[], reason: string, log: RegExp): Promise<string> {
  const before = await scrape();
  const counts = endpoints.map((e) => failures(before, source, e, reason));
  const logsBefore = logs.length;
  const text = await waitFor(
    `${source} failing with ${reason}`,
    async () => {
      const t = await scrape();
      return endpoints.every((e, i) => failures(t, source, e, reason) > (counts[i] as number)) ? t : undefined;
    },
    15_000,
    100,
  );
  for (const endpoint of endpoints) {
    expect(valueIn(text, "promstatus_up", { source, endpoint }), endpoint).toBe(0);
    const line = logs
      .slice(logsBefore)
      .find((l) => l.source === source && l.endpoint === endpoint && l.msg === "poll failed");
    expect(line, `log line for ${endpoint}`).toMatchObject({ reason });
    // Every failure names the request it was the answer to, then what went wrong.
    const request = `GET ${REQUEST_PATHS[endpoint]}: `;
    expect(String(line?.error).startsWith(request), String(line?.error)).toBe(true);
    expect(String(line?.error).slice(request.length)).toMatch(log);
  }
  // The other sources carry on.
  expect(valueIn(text, "promstatus_up", { source: "steady", endpoint: "targets" })).toBe(1);
  expect(samplesOf(text, "promstatus_target_up", { source: "steady" }).length).toBeGreaterThan(0);
  return text;
}

async function expectRestored(source: string, endpoint: string): Promise<string> {
  return waitFor(
    `${source} restored`,
    async () => {
      const t = await scrape();
      return valueIn(t, "promstatus_up", { source, endpoint }) === 1 ? t : undefined;
    },
    15_000,
    100,
  );
}

describe("upstream faults", () => {
  for (const fault of FAULTS) {
    it(`${fault.name}: ${fault.reason}, series gone, then restored`, async () => {
      mode = fault.handler;
      const text = await expectFault("faulty", ["tsdb", "targets"], fault.reason, fault.log);
      expect(samplesOf(text, "promstatus_target_up", { source: "faulty" })).toEqual([]);
      expect(samplesOf(text, "promstatus_tsdb_head_series", { source: "faulty" })).toEqual([]);
      mode = good;
      await expectRestored("faulty", "tsdb");
      const restored = await expectRestored("faulty", "targets");
      expect(samplesOf(restored, "promstatus_target_up", { source: "faulty" }).length).toBeGreaterThan(0);
      expect(valueIn(restored, "promstatus_tsdb_head_series", { source: "faulty" })).toBeGreaterThan(0);
    });
  }

  it("connection refused: connection, then restored when the server is back", async () => {
    faulty.closeAllConnections();
    await new Promise((r) => faulty.close(r));
    const text = await expectFault("faulty", ["tsdb", "targets"], "connection", /ECONNREFUSED/);
    expect(samplesOf(text, "promstatus_target_up", { source: "faulty" })).toEqual([]);
    await listen(faulty, faultyPort);
    await expectRestored("faulty", "targets");
  });

  it("TLS handshake failure: tls, then restored with a trusted certificate", async () => {
    const text = await expectRestored("tls", "tsdb");
    expect(valueIn(text, "promstatus_tsdb_head_series", { source: "tls" })).toBeGreaterThan(0);
    switchTls("untrusted");
    const failed = await expectFault("tls", ["tsdb"], "tls", /TLS error/);
    expect(samplesOf(failed, "promstatus_tsdb_head_series", { source: "tls" })).toEqual([]);
    switchTls("trusted");
    await expectRestored("tls", "tsdb");
  });

  it("DNS failure: connection", async () => {
    await expectFault("nodns", ["status"], "connection", /ENOTFOUND|EAI_AGAIN/);
  });
});
