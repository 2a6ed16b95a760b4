import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import fc from "fast-check";
import { Options } from "got";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/load.js";
import type { ModuleConfig } from "../../src/config/types.js";
import { requestUrl } from "../../src/poll/endpoints.js";
import { probeSource, runProbe, validateProbe } from "../../src/probe/probe.js";
import { Prober } from "../../src/probe/prober.js";
import { fixtureText } from "../helpers/fixtures.js";

// allowed_targets is decided on the URL got fetches, not on the string a caller gave: the module's
// credentials reach only hosts the patterns allow, redirects included. Loopback servers record what
// arrives, Authorization first.

const status = fixtureText("upstream/alertmanager-status-clustered.json");
const servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

interface Recorder {
  url: string;
  port: number;
  /** Authorization header of each request, "" for none. */
  seen: string[];
}

async function recorder(handler?: (req: IncomingMessage, res: ServerResponse) => void): Promise<Recorder> {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    seen.push(req.headers.authorization ?? "");
    if (handler) handler(req, res);
    else res.writeHead(200, { "content-type": "application/json" }).end(status);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  servers.push({
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, port, seen };
}

/** Modules of kind alertmanager (one endpoint) with basic_auth and the given patterns, by name. */
function securedModules(patterns: Record<string, string[]>): ReadonlyMap<string, ModuleConfig> {
  const modules = Object.fromEntries(
    Object.entries(patterns).map(([name, allowed]) => [
      name,
      { kind: "alertmanager", basic_auth: { username: "monitor", password: "s3cret" }, allowed_targets: allowed },
    ]),
  );
  // JSON is YAML: no escaping of backslashes by hand.
  return parseConfig(JSON.stringify({ modules }), "/tmp/exporter.yml").modules;
}

const probe = (modules: ReadonlyMap<string, ModuleConfig>, module: string, target: string) =>
  new Prober(() => modules, 500, pino({ level: "silent" })).probe({
    target,
    module,
    scrapeTimeoutSeconds: undefined,
    debug: false,
  });

describe("allowed_targets bypasses (issue 20)", () => {
  it("a backslash does not end the host for the check: the credentials never reach the host it really names", async () => {
    const attacker = await recorder();
    const modules = securedModules({ secured: ["http://[^/]+\\.internal\\.example:9090"] });
    const answer = await probe(modules, "secured", `http://127.0.0.1:${attacker.port}\\.internal.example:9090`);
    expect(answer.status).toBe(400);
    expect(answer.type === "text" && answer.body).toMatch(/target holds a backslash/);
    expect(attacker.seen).toEqual([]);
  });

  it("a path cannot pass for a host: the pattern judges the origin alone", async () => {
    const attacker = await recorder();
    const modules = securedModules({ secured: ["https?://.*\\.internal\\.example:9090"] });
    const answer = await probe(modules, "secured", `${attacker.url}/.internal.example:9090`);
    expect(answer.status).toBe(400);
    expect(answer.type === "text" && answer.body).toMatch(/is not in allowed_targets of module "secured"/);
    expect(attacker.seen).toEqual([]);
  });

  it("takes a path only from a pattern that names it, as optional", async () => {
    const upstream = await recorder();
    const port = upstream.port;
    const modules = securedModules({
      bare: [`http://127\\.0\\.0\\.1:${port}`],
      optional: [`http://127\\.0\\.0\\.1:${port}(/am)?`],
      required: [`http://127\\.0\\.0\\.1:${port}/am`],
    });
    expect((await probe(modules, "bare", `${upstream.url}/am`)).status).toBe(400);
    const required = await probe(modules, "required", `${upstream.url}/am`);
    expect(required.type === "text" && required.body).toMatch(/names it as optional: \(\/path\)\?/);
    expect((await probe(modules, "optional", `${upstream.url}/am`)).status).toBe(200);
    expect((await probe(modules, "optional", `${upstream.url}/`)).status).toBe(200);
    expect(upstream.seen).toEqual(["Basic bW9uaXRvcjpzM2NyZXQ=", "Basic bW9uaXRvcjpzM2NyZXQ="]);
  });
});

describe("a target without a scheme", () => {
  it("is judged by allowed_targets as it is fetched, with http:// in front", async () => {
    const upstream = await recorder();
    const modules = securedModules({
      plain: [`http://127\\.0\\.0\\.1:${upstream.port}`],
      tlsOnly: [`https://127\\.0\\.0\\.1:${upstream.port}`],
    });
    const refused = await probe(modules, "tlsOnly", `127.0.0.1:${upstream.port}`);
    expect(refused.status).toBe(400);
    expect(refused.type === "text" && refused.body).toContain(
      `target "http://127.0.0.1:${upstream.port}" is not in allowed_targets of module "tlsOnly"`,
    );
    expect(upstream.seen).toEqual([]);
    const taken = await probe(modules, "plain", `127.0.0.1:${upstream.port}`);
    expect(taken.status).toBe(200);
    expect(taken.type === "metrics" && taken.body.toString()).toContain(`source="http://127.0.0.1:${upstream.port}"`);
    expect(upstream.seen).toEqual(["Basic bW9uaXRvcjpzM2NyZXQ="]);
  });
});

describe("redirects of a module with allowed_targets", () => {
  it("are not followed to an origin outside allowed_targets: that host gets no request at all", async () => {
    const elsewhere = await recorder();
    const allowed = await recorder((_req, res) =>
      res.writeHead(302, { location: `${elsewhere.url}/api/v2/status` }).end(),
    );
    const modules = securedModules({ secured: [`http://127\\.0\\.0\\.1:${allowed.port}`] });
    const valid = validateProbe(modules, { target: allowed.url, module: "secured", scrapeTimeoutSeconds: undefined });
    if (typeof valid === "string") throw new Error(valid);
    const run = await runProbe(valid, undefined, 500);
    const outcome = run.endpoints[0]?.outcome;
    expect(outcome?.ok).toBe(false);
    expect(outcome?.ok === false && [outcome.error.reason, outcome.error.message]).toEqual([
      "http_status",
      "redirect to a target outside allowed_targets not followed",
    ]);
    expect(allowed.seen).toEqual(["Basic bW9uaXRvcjpzM2NyZXQ="]);
    expect(elsewhere.seen).toEqual([]);
  });

  it("are followed to another origin a pattern takes (the credentials stay with the first, as for any source)", async () => {
    const second = await recorder();
    const first = await recorder((_req, res) => res.writeHead(307, { location: `${second.url}/api/v2/status` }).end());
    const modules = securedModules({ secured: ["http://127\\.0\\.0\\.1:[0-9]+"] });
    const answer = await probe(modules, "secured", first.url);
    expect(answer.status).toBe(200);
    expect(answer.type === "metrics" && answer.body.toString()).toMatch(/promstatus_up\{[^}]*\} 1/);
    expect(first.seen).toEqual(["Basic bW9uaXRvcjpzM2NyZXQ="]);
    expect(second.seen).toEqual([""]);
  });
});

/** Mostly a plain piece, sometimes one a WHATWG parser treats in ways a reader of the string may not expect. */
const piece = (plain: string[], odd: string[]) =>
  fc.oneof({ arbitrary: fc.constantFrom(...plain), weight: 4 }, { arbitrary: fc.constantFrom(...odd), weight: 1 });

const schemes = piece(["http", "https"], ["HTTP", "hTtPs", "ftp", "http:", ""]);
const separators = piece(["://"], [":/", ":", ":///", ":\\", ":/\\", "://\t", ": //"]);
const userinfos = piece([""], ["user@", "u:p@", "a.internal.example:9090@", "@", "%40@"]);
const hosts = piece(
  ["a.internal.example", "127.0.0.1", "evil.com", "[::1]", "prom.example"],
  [
    "A.Internal.EXAMPLE",
    "a.internal.example.",
    "0x7f.1",
    "2130706433",
    "%31%32%37.0.0.1",
    "a%2einternal.example",
    "127.0.0.1\\.internal.example",
    "evil.com/.internal.example",
    "evil.com#.internal.example",
    "evil.com?.internal.example",
    "[0:0::1]",
    "[::ffff:127.0.0.1]",
    "xn--bcher-kva.internal.example",
    "bücher.internal.example",
    "\u212Aa.internal.example",
    "a\t.internal.example",
    "a.internal\n.example",
    "",
  ],
);
const ports = piece(["", ":9090", ":443"], [":80", ":09090", ":", ":65536", ":9090 ", ":90\t90"]);
const paths = piece(
  ["", "/", "/x", "/x/"],
  [
    "//",
    "/X/",
    "//evil.com",
    "/./x",
    "/%2e%2e/x",
    "/a/../b",
    "\\x",
    "/\t",
    "?q",
    "#f",
    "/%2F",
    "/.internal.example:9090",
  ],
);
const oddities = ["\\", "\t", "\n", "\r", " ", "@", "%", "%2e", "/", ":", "[", "]", "#", "?", ".", "\u0000", "é"];

/** A URL-ish string: pieces joined, sometimes with an odd character slipped in somewhere. */
const urlish = fc
  .tuple(
    schemes,
    separators,
    userinfos,
    hosts,
    ports,
    paths,
    fc.option(fc.tuple(fc.nat(), fc.constantFrom(...oddities)), { freq: 4 }),
  )
  .map(([scheme, separator, userinfo, host, port, path, odd]) => {
    const text = `${scheme}${separator}${userinfo}${host}${port}${path}`;
    if (!odd) return text;
    const at = odd[0] % (text.length + 1);
    return text.slice(0, at) + odd[1] + text.slice(at);
  });

const patterns = [
  "http://[^/]+\\.internal\\.example:9090",
  "https?://.*\\.internal\\.example:9090",
  "https?://.*\\.internal\\.example(:[0-9]+)?(/.*)?",
  "http://127\\.0\\.0\\.1(:[0-9]+)?",
  "https?://[^:/]+(:[0-9]+)?(/x)?",
  "http://\\[::1\\](:[0-9]+)?",
  "https://[a-z.]+:443",
  ".*",
];
const patternModules = securedModules(Object.fromEntries(patterns.map((p, i) => [`m${i}`, [p]])));

/** Whether a pattern takes the URL got requests: its origin alone, and with the base path (the endpoint's cut). */
function satisfies(pattern: string, requested: URL, endpointPath: string): boolean {
  const re = new RegExp(`^(?:${pattern})$`);
  const defaultPort = requested.protocol === "https:" ? "443" : "80";
  const origins = [
    `${requested.protocol}//${requested.host}`,
    `${requested.protocol}//${requested.hostname}:${requested.port || defaultPort}`,
  ];
  if (!requested.pathname.endsWith(endpointPath)) return false;
  const path = requested.pathname.slice(0, -endpointPath.length);
  return origins.some((o) => re.test(o) && (path === "" || re.test(o + path)));
}

describe("allowed_targets property", () => {
  it("whatever a pattern takes, the URL got requests satisfies that pattern and carries no credentials", () => {
    let taken = 0;
    fc.assert(
      fc.property(urlish, fc.nat(patterns.length - 1), (target, index) => {
        const valid = validateProbe(patternModules, { target, module: `m${index}`, scrapeTimeoutSeconds: undefined });
        if (typeof valid === "string") return;
        taken++;
        const source = probeSource(valid.module, valid.target, 1000);
        // As got requests it: its own Options parse the URL string it is given.
        const requested = new Options(requestUrl(source, "status")).url as URL;
        expect(requested.username + requested.password, target).toBe("");
        expect(satisfies(patterns[index] as string, requested, "/api/v2/status"), target).toBe(true);
      }),
      { numRuns: 20_000 },
    );
    // Not vacuous: plenty of targets were taken and checked.
    expect(taken).toBeGreaterThan(300);
  });
});
