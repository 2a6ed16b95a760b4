import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseFlags } from "../../src/cli/flags.js";
import { parseConfig } from "../../src/config/load.js";
import { Exporter } from "../../src/exporter.js";
import { NO_WEB_CONFIG } from "../../src/http/web-config.js";
import { tempDir, waitFor } from "../harness/processes.js";

// Nothing an upstream's body says reaches a /probe client: not its answer (debug or not), not the
// probe history's accounts (/logs), not the status page, not /metrics. Upstreams here answer with
// "secrets" in every place a body or header can hold text; the probe must say status and reason only.
// The operator's own log (debug) and the status page of a configured source do get an excerpt.

const SECRET = "DB_PASSWORD=hunter2";
const PAGE = `internal-admin: ${SECRET} api_key=AKIAIOSFODNN7EXAMPLE`;
const leaks = (text: string) => text.includes("hunter2") || text.includes("AKIA") || text.includes("internal-a");

type Handler = (req: IncomingMessage, res: ServerResponse) => void;
const text =
  (status: number, body: string | Buffer, headers: Record<string, string> = {}): Handler =>
  (_req, res) =>
    res.writeHead(status, { "content-type": "text/plain", ...headers }).end(body);

/** Each way an upstream can put text in front of a probe, by the path prefix the probe's target names. */
let internalUrl = "";
const ROUTES: Record<string, Handler> = {
  "/error-page": text(500, PAGE),
  "/error-json": text(400, JSON.stringify({ status: "error", errorType: "bad_data", error: PAGE })),
  "/error-gzip": text(503, gzipSync(PAGE), { "content-encoding": "gzip" }),
  "/error-coding": text(500, PAGE, { "content-encoding": `x-${SECRET}` }),
  "/success-not-json": text(200, PAGE),
  "/success-coding": text(200, PAGE, { "content-encoding": `x-${SECRET}` }),
  "/success-wrong-shape": text(
    200,
    JSON.stringify({ status: "success", data: { activeTargets: [], droppedTargetCounts: { [SECRET]: "x" } } }),
  ),
  "/success-am-wrong-shape": text(200, JSON.stringify({ cluster: { status: 1, [SECRET]: 1 }, config: PAGE })),
  "/redirect": (_req, res) => res.writeHead(302, { location: `${internalUrl}/error-page/` }).end(),
  "/configured": text(500, "configured upstream: maintenance until noon"),
};

let dir: ReturnType<typeof tempDir>;
let upstream: Server;
let exporter: Exporter;
let base = "";
let upstreamUrl = "";
const logs: Record<string, unknown>[] = [];
const get = async (path: string) => (await fetch(`${base}${path}`)).text();

beforeAll(async () => {
  dir = tempDir("promstatus-probe-text");
  upstream = createServer((req, res) => {
    const route = Object.keys(ROUTES).find((prefix) => req.url?.startsWith(`${prefix}/`));
    if (route) ROUTES[route]?.(req, res);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  internalUrl = upstreamUrl; // the redirect's "internal" host: the same loopback server
  const config = parseConfig(
    `global: {schedule: "0 0 1 1 *", timeout: 2s}
sources:
  - {name: configured, kind: alertmanager, url: "${upstreamUrl}/configured"}
`,
    join(dir.path, "exporter.yml"),
  );
  const log = pino({ level: "debug" }, { write: (line: string) => void logs.push(JSON.parse(line)) });
  exporter = await Exporter.start(
    { config, webConfig: NO_WEB_CONFIG },
    parseFlags(["--web.listen-address=127.0.0.1:0"]),
    log,
  );
  base = `http://127.0.0.1:${(exporter.server.address() as AddressInfo).port}`;
  await waitFor("the configured source polled", async () =>
    (await get("/")).includes("maintenance") ? true : undefined,
  );
}, 60_000);

afterAll(async () => {
  await exporter?.stop();
  upstream?.closeAllConnections();
  upstream?.close();
  dir?.remove();
}, 30_000);

const CASES: [string, "prometheus" | "alertmanager", RegExp][] = [
  ["error-page", "alertmanager", /reason http_status, HTTP 500/],
  ["error-page", "prometheus", /reason http_status, HTTP 500/],
  ["error-json", "prometheus", /reason http_status, HTTP 400/],
  ["error-gzip", "alertmanager", /reason http_status, HTTP 503/],
  ["error-coding", "alertmanager", /reason http_status, HTTP 500/],
  ["success-not-json", "alertmanager", /reason invalid_json/],
  ["success-not-json", "prometheus", /reason invalid_json/],
  ["success-coding", "alertmanager", /reason invalid_json/],
  ["success-coding", "prometheus", /reason invalid_json/],
  ["success-wrong-shape", "prometheus", /reason invalid_payload/],
  ["success-am-wrong-shape", "alertmanager", /reason invalid_payload/],
  ["redirect", "alertmanager", /reason http_status, HTTP 500/],
];

describe("a /probe client never reads an upstream's text", () => {
  it.each(CASES)(
    "%s with module %s: the answer, the debug account and /logs say the reason only",
    async (path, module, says) => {
      const target = encodeURIComponent(`${upstreamUrl}/${path}/`);
      const debug = await get(`/probe?module=${module}&target=${target}&debug=true`);
      expect(debug).toMatch(says);
      expect(leaks(debug), debug).toBe(false);
      const plain = await get(`/probe?module=${module}&target=${target}`);
      expect(leaks(plain), plain).toBe(false);
      const page = await get("/");
      // The two probes just made, newest first.
      const ids = [...page.matchAll(/logs\?id=(\d+)/g)].map((m) => m[1]).slice(0, 2);
      expect(ids).toHaveLength(2);
      for (const id of ids) {
        const account = await get(`/logs?id=${id}`);
        expect(leaks(account), account).toBe(false);
      }
      expect(leaks(page)).toBe(false);
      expect(leaks(await get("/metrics"))).toBe(false);
    },
  );

  it("what the upstream said goes to the exporter's own log, at debug level, sanitised", () => {
    const said = logs.filter((l) => l.msg === "probe failed" && typeof l.upstream_text === "string");
    expect(said.length).toBeGreaterThan(0);
    for (const l of said) expect(l.level).toBe(20);
    expect(said.some((l) => String(l.upstream_text).includes(SECRET))).toBe(true);
    expect(said.every((l) => String(l.upstream_text).length <= 201)).toBe(true);
  });

  it("a configured source's status keeps what its upstream said, for the operator", async () => {
    expect(await get("/")).toContain("HTTP 500: configured upstream: maintenance until noon");
  });
});
