import { request, type Server } from "node:http";
import { type AddressInfo, connect } from "node:net";
import { crc32 } from "node:zlib";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { deflateSegmentSync } from "../../src/exposition/gzip-stream.js";
import { createApp } from "../../src/http/app.js";
import { NO_WEB_CONFIG, type WebConfig } from "../../src/http/web-config.js";
import type { ProbeResponse } from "../../src/probe/prober.js";
import { ProcessMetrics } from "../../src/publish/process-metrics.js";
import type { Exposition } from "../../src/publish/store.js";
import { samplesOf } from "../helpers/exposition.js";

const SOURCES_TEXT = "# HELP promstatus_x x\n# TYPE promstatus_x gauge\npromstatus_x 5\n";
let server: Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

async function serve(
  overrides: {
    ready?: () => boolean;
    sources?: () => Exposition;
    reload?: () => Promise<string | undefined>;
    lifecycle?: boolean;
    probe?: () => Promise<ProbeResponse>;
    account?: (id: number) => string | undefined;
    webConfig?: () => WebConfig;
  } = {},
) {
  const app = createApp({
    log: pino({ level: "silent" }),
    telemetryPath: "/custom-metrics",
    enableLifecycle: overrides.lifecycle ?? true,
    processMetrics: new ProcessMetrics("1.2.3"),
    sourcesExposition:
      overrides.sources ??
      (() => ({
        parts: [Buffer.from(SOURCES_TEXT)],
        length: SOURCES_TEXT.length,
        gzip: { members: [deflateSegmentSync(Buffer.from(SOURCES_TEXT))], crc: crc32(SOURCES_TEXT) },
      })),
    isReady: overrides.ready ?? (() => true),
    reload: overrides.reload ?? (async () => undefined),
    landing: () => ({
      version: "1.2.3",
      telemetryPath: "/custom-metrics",
      sources: [{ name: "<b>prom</b>", kind: "prometheus", group: undefined, url: "http://prom:9090", endpoints: [] }],
      probes: [],
      groups: [
        {
          name: "am-prod",
          kind: "alertmanager",
          differences: [],
          members: [
            {
              source: "am-0",
              up: true,
              lastSuccessSeconds: 1_800_000_000,
              view: "2 peers: x (self), y",
              configHashPrefix: "0123456789ab",
            },
            {
              source: "am-<1>",
              up: false,
              lastSuccessSeconds: undefined,
              view: "no answer",
              configHashPrefix: undefined,
            },
          ],
        },
      ],
    }),
    webConfig: overrides.webConfig ?? (() => NO_WEB_CONFIG),
    probe: overrides.probe ?? (async () => ({ status: 400, type: "text", body: "no probes here\n" })),
    probeAccount: overrides.account ?? (() => undefined),
  });
  server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, "127.0.0.1", () => resolve(s));
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe("HTTP app", () => {
  it("serves process metrics, build info and source metrics on the telemetry path", async () => {
    const base = await serve();
    const res = await fetch(`${base}/custom-metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/plain; version=0.0.4");
    const text = await res.text();
    expect(samplesOf(text, "promstatus_x")[0]?.value).toBe(5);
    expect(samplesOf(text, "process_cpu_user_seconds_total")).toHaveLength(1);
    expect(
      samplesOf(text, "promstatus_exporter_build_info", { version: "1.2.3", node_version: process.version })[0]?.value,
    ).toBe(1);
    // prom-client's gauges named *_total are removed: promtool rejects them.
    expect(text).not.toMatch(/^nodejs_active_\w+_total/m);
    expect(text).toMatch(/^nodejs_active_handles\{/m);
  });

  it("serves gzip when accepted: the live part and the cached part as two members of one stream", async () => {
    const base = await serve();
    const res = await fetch(`${base}/custom-metrics`, { headers: { "accept-encoding": "gzip" } });
    expect(res.headers.get("content-encoding")).toBe("gzip");
    expect(res.headers.get("vary")).toContain("Accept-Encoding");
    // fetch decompresses; the text must be the whole exposition, both members.
    const text = await res.text();
    expect(samplesOf(text, "promstatus_x")[0]?.value).toBe(5);
    expect(samplesOf(text, "process_cpu_user_seconds_total")).toHaveLength(1);
    const plain = await fetch(`${base}/custom-metrics`, { headers: { "accept-encoding": "identity" } });
    expect(plain.headers.get("content-encoding")).toBeNull();
  });

  it("serves plain text while the gzip of a change is not ready yet", async () => {
    const base = await serve({
      sources: () => ({ parts: [Buffer.from(SOURCES_TEXT)], length: SOURCES_TEXT.length, gzip: undefined }),
    });
    const res = await fetch(`${base}/custom-metrics`, { headers: { "accept-encoding": "gzip" } });
    expect(res.headers.get("content-encoding")).toBeNull();
    expect(samplesOf(await res.text(), "promstatus_x")[0]?.value).toBe(5);
  });

  it("has a landing page linking to the metrics, with names escaped", async () => {
    const base = await serve();
    const res = await fetch(base);
    expect(res.headers.get("content-type")).toContain("text/html");
    const html = await res.text();
    expect(html).toContain('<a href="./custom-metrics">');
    expect(html).toContain("&lt;b&gt;prom&lt;/b&gt;");
  });

  it("shows a table per replica group: each member's last poll, view and config hash prefix", async () => {
    const html = await (await fetch(await serve())).text();
    expect(html).toContain("<h3>am-prod <small>alertmanager</small></h3>");
    expect(html).toContain(
      '<tr class="ok"><td>am-0</td><td class="result">up</td><td>2027-01-15T08:00:00Z</td><td>2 peers: x (self), y</td><td><code>0123456789ab</code></td></tr>',
    );
    expect(html).toContain(
      '<tr class="failing"><td>am-&lt;1&gt;</td><td class="result">down</td><td>never</td><td>no answer</td>',
    );
  });

  it("is healthy while running and ready only once the first polls are done", async () => {
    let ready = false;
    const base = await serve({ ready: () => ready });
    expect((await fetch(`${base}/-/healthy`)).status).toBe(200);
    expect((await fetch(`${base}/-/ready`)).status).toBe(503);
    ready = true;
    expect((await fetch(`${base}/-/ready`)).status).toBe(200);
  });

  it("answers 500 without details when rendering fails", async () => {
    const base = await serve({
      sources: () => {
        throw new Error("secret detail");
      },
    });
    const res = await fetch(`${base}/custom-metrics`);
    expect(res.status).toBe(500);
    expect(await res.text()).not.toContain("secret detail");
  });

  it("refuses a GET with a body (whose bytes, trickled, would keep an unread answer past the stall timeout)", async () => {
    const base = await serve();
    const port = new URL(base).port;
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), "127.0.0.1");
      let text = "";
      socket.on("data", (d) => {
        text += d.toString("latin1");
      });
      socket.on("close", () => resolve(text));
      socket.on("error", reject);
      socket.write("GET /custom-metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nab");
    });
    expect(answer.split("\r\n")[0]).toBe("HTTP/1.1 400 Bad Request");
    expect(answer).toContain("A GET request takes no body.");
    // A POST may carry one (a form's, say); it is not read.
    expect((await fetch(`${base}/-/reload`, { method: "POST", body: "a=1" })).status).toBe(200);
  });

  it("answers an unknown path 404 in plain text, as Go's router does", async () => {
    const base = await serve();
    const res = await fetch(`${base}/nonexistent`);
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(await res.text()).toBe("404 page not found\n");
  });

  it("reloads on POST or PUT /-/reload (as Prometheus), answering 500 with the problems when refused, 405 for GET", async () => {
    let answer: string | undefined;
    const base = await serve({ reload: async () => answer });
    expect((await fetch(`${base}/-/reload`, { method: "POST" })).status).toBe(200);
    expect((await fetch(`${base}/-/reload`, { method: "PUT" })).status).toBe(200);
    answer = "x.yml:3: sources[0].url: invalid URL";
    const refused = await fetch(`${base}/-/reload`, { method: "POST" });
    expect(refused.status).toBe(500);
    expect(await refused.text()).toContain("x.yml:3: sources[0].url: invalid URL");
    const get = await fetch(`${base}/-/reload`);
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("OPTIONS, POST, PUT");
    expect(await get.text()).toBe("Use POST (or PUT) to reload the config.\n");
  });

  // As Debian's Prometheus 2.42 and Alertmanager 0.25 answer (their router's HandleMethodNotAllowed and
  // HandleOPTIONS): POST /-/healthy is 405 with Allow: GET, HEAD, OPTIONS, and OPTIONS is 200 with no body.
  it("answers a method a path does not serve 405 with Allow, and OPTIONS 200, as Prometheus does", async () => {
    const base = await serve({ ready: () => true });
    for (const path of ["/-/healthy", "/-/ready", "/custom-metrics", "/probe", "/logs", "/"]) {
      for (const method of ["POST", "PUT", "DELETE", "PATCH"]) {
        const res = await fetch(`${base}${path}`, { method });
        expect(res.status, `${method} ${path}`).toBe(405);
        expect(res.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
        expect(res.headers.get("content-type")).toMatch(/^text\/plain/);
        expect(await res.text()).toBe("Method Not Allowed\n");
      }
      const options = await fetch(`${base}${path}`, { method: "OPTIONS" });
      expect(options.status, `OPTIONS ${path}`).toBe(200);
      expect(options.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
      expect(await options.text()).toBe("");
      expect((await fetch(`${base}${path}`, { method: "HEAD" })).status, `HEAD ${path}`).not.toBe(405);
    }
    const options = await fetch(`${base}/-/reload`, { method: "OPTIONS" });
    expect(options.status).toBe(200);
    expect(options.headers.get("allow")).toBe("OPTIONS, POST, PUT");
    // A path the exporter does not have stays 404 whatever the method.
    expect((await fetch(`${base}/-/nothing`, { method: "POST" })).status).toBe(404);
  });

  it("answers OPTIONS * 200 with no body and another method on * 400, credentials or not, as Prometheus", async () => {
    const users = new Map([["prometheus", "$2y$04$abcdefghijklmnopqrstuuJ8C8JlZ4b1sBqU3e.Wc6t1yO0ZP5p6i"]]);
    const base = new URL(await serve({ webConfig: () => ({ tls: undefined, users }) }));
    const asterisk = (method: string) =>
      new Promise<{ status: number; length: string | undefined; body: string; connection: string | undefined }>(
        (resolve, reject) => {
          const req = request({ host: base.hostname, port: base.port, method, path: "*" }, (res) => {
            let body = "";
            res.on("data", (c: Buffer) => {
              body += c.toString();
            });
            res.on("end", () =>
              resolve({
                status: res.statusCode ?? 0,
                length: res.headers["content-length"],
                body,
                connection: res.headers.connection,
              }),
            );
          });
          req.once("error", reject);
          req.end();
        },
      );
    expect(await asterisk("OPTIONS")).toMatchObject({ status: 200, length: "0", body: "" });
    // Any other method on * is a bad request there, and the connection closed.
    expect(await asterisk("GET")).toMatchObject({ status: 400, connection: "close" });
  });

  it("refuses POST /-/reload without --web.enable-lifecycle, and does not reload", async () => {
    let reloads = 0;
    const base = await serve({
      lifecycle: false,
      reload: async () => {
        reloads++;
        return undefined;
      },
    });
    const res = await fetch(`${base}/-/reload`, { method: "POST" });
    expect(res.status).toBe(403);
    expect(await res.text()).toContain("--web.enable-lifecycle");
    // Nor through a browser's cross-site form post.
    const form = await fetch(`${base}/-/reload`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: "http://evil.example" },
      body: "a=1",
    });
    expect(form.status).toBe(403);
    expect(reloads).toBe(0);
  });

  it("answers a probe over the limit 503 with Retry-After in seconds; a bad one 400 without", async () => {
    const body = "Too many probes in flight: the limit of 2 set by --probe.max-concurrent was reached.\n";
    const base = await serve({ probe: async () => ({ status: 503, type: "text", body, retryAfterSeconds: 1 }) });
    const res = await fetch(`${base}/probe?target=http://x:9090&module=prometheus`);
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("1");
    expect(res.headers.get("content-type")).toContain("text/plain");
    expect(await res.text()).toBe(body);
    await new Promise<void>((resolve) => server?.close(() => resolve()));
    const refused = await fetch(`${await serve()}/probe`);
    expect(refused.status).toBe(400);
    expect(refused.headers.get("retry-after")).toBeNull();
  });

  it("answers 404 elsewhere", async () => {
    const base = await serve();
    expect((await fetch(`${base}/nothing`)).status).toBe(404);
  });

  // A browser must not take a probe's debug text or a /logs account (target-controlled words) for HTML.
  it("says nosniff on every answer: metrics, probes, logs, health, landing page, errors, refusals", async () => {
    const account = "Probe of http://x <script>alert(1)</script>\n";
    const base = await serve({
      account: (id) => (id === 1 ? account : undefined),
      probe: async () => ({ status: 200, type: "text", body: "<html><script>alert(1)</script>\n" }),
    });
    const paths = [
      "/custom-metrics",
      "/probe?target=http://x:9090&module=prometheus&debug=true",
      "/logs?id=1",
      "/logs?id=2",
      "/-/healthy",
      "/-/ready",
      "/",
      "/-/reload",
      "/nothing",
    ];
    for (const path of paths) {
      const res = await fetch(`${base}${path}`);
      await res.arrayBuffer();
      expect([path, res.headers.get("x-content-type-options")]).toEqual([path, "nosniff"]);
    }
    await new Promise<void>((resolve) => server?.close(() => resolve()));
    const users = new Map([["prometheus", "$2y$04$abcdefghijklmnopqrstuuJ8C8JlZ4b1sBqU3e.Wc6t1yO0ZP5p6i"]]);
    const guarded = await serve({ webConfig: () => ({ tls: undefined, users }) });
    const refused = await fetch(`${guarded}/logs?id=1`);
    expect(refused.status).toBe(401);
    expect(refused.headers.get("x-content-type-options")).toBe("nosniff");
  });
});
