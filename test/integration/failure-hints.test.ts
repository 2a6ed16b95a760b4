import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RealAlertmanagerCluster, startAlertmanagerCluster } from "../harness/alertmanager.js";
import { makeCerts, type TestCerts } from "../harness/certs.js";
import { type InProcessExporter, startExporter } from "../harness/exporter.js";
import { httpGet } from "../harness/http-get.js";
import { tempDir, waitFor } from "../harness/processes.js";
import { type RealPrometheus, startPrometheus } from "../harness/prometheus.js";
import { writeWebConfig } from "../harness/web-config.js";
import { samplesOf } from "../helpers/exposition.js";

// Misconfigured sources against a real Prometheus (TLS and basic auth, its own --web.config.file) and
// a real plain-HTTP Alertmanager: each failing poll's log line and status row name the request and
// what to change.

const PROM_PASSWORD = "prom-Secret-pw-7";
const WRONG_PASSWORD = "wrong-Secret-pw-3";
const TOKEN = "token-Secret-55";

let dir: ReturnType<typeof tempDir>;
let certs: TestCerts;
let prometheus: RealPrometheus;
let alertmanager: RealAlertmanagerCluster;
let exporter: InProcessExporter;
const logged: { msg: string; source?: string; error?: string }[] = [];
const logText: string[] = [];

beforeAll(async () => {
  dir = tempDir("promstatus-failure-hints");
  certs = makeCerts(dir.path);
  const promWeb = writeWebConfig(dir.path, "prom-web.yml", {
    tls: { certFile: certs.serverCertFile, keyFile: certs.serverKeyFile },
    users: { monitor: PROM_PASSWORD },
  });
  prometheus = await startPrometheus(dir.path, [], {
    webConfigFile: promWeb,
    readyCheck: { ca: certs.ca, auth: `monitor:${PROM_PASSWORD}` },
    selfScrape: false,
  });
  alertmanager = await startAlertmanagerCluster(dir.path, 1);
  const am = alertmanager.members[0];
  if (!am) throw new Error("no Alertmanager");
  const wrongPasswordFile = join(dir.path, "wrong-password");
  writeFileSync(wrongPasswordFile, `${WRONG_PASSWORD}\n`);
  const tokenFile = join(dir.path, "token");
  writeFileSync(tokenFile, TOKEN);
  const ca = `tls_config: {ca_file: ${certs.caFile}}`;
  const auth = `basic_auth: {username: monitor, password: "${PROM_PASSWORD}"}`;
  const log = pino(
    { level: "warn" },
    {
      write(line: string) {
        logText.push(line);
        logged.push(JSON.parse(line));
      },
    },
  );
  exporter = await startExporter(
    dir.path,
    `global: {interval: 1s, timeout: 3s}
sources:
  - {name: am-as-prometheus, kind: prometheus, url: "${am.url}"}
  - {name: am-as-prometheus-status-only, kind: prometheus, url: "${am.url}", tsdb: {enabled: false}, targets: {enabled: false}}
  - {name: prometheus-as-am, kind: alertmanager, url: "${prometheus.url}", ${auth}, ${ca}}
  - {name: api-v1-suffix, kind: prometheus, url: "${prometheus.url}/api/v1", ${auth}, ${ca}, targets: {enabled: false}}
  - {name: https-to-plain, kind: alertmanager, url: "https://${am.address}"}
  - {name: wrong-password, kind: prometheus, url: "${prometheus.url}", basic_auth: {username: monitor, password_file: ${wrongPasswordFile}}, ${ca}, targets: {enabled: false}}
  - {name: bearer, kind: prometheus, url: "${prometheus.url}", authorization: {credentials_file: ${tokenFile}}, ${ca}, targets: {enabled: false}}
  - {name: no-credentials, kind: prometheus, url: "${prometheus.url}", ${ca}, targets: {enabled: false}}
`,
    { log },
  );
}, 60_000);

afterAll(async () => {
  await exporter?.exporter.stop();
  await Promise.all([prometheus?.stop(), alertmanager?.stop()]);
  dir?.remove();
}, 30_000);

/** The `error` of the latest "poll failed" line of a source whose error matches. */
async function failure(source: string, pattern: RegExp): Promise<string> {
  return waitFor(
    `a poll of ${source} failing with ${pattern}`,
    async () =>
      logged.findLast((l) => l.msg === "poll failed" && l.source === source && pattern.test(l.error ?? ""))?.error,
  );
}

/** The status page's text, its HTML entities read back. */
async function statusPage(): Promise<string> {
  const html = await (await fetch(`${exporter.base}/`)).text();
  return html
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">");
}

describe("a failing poll names its request and what to change", () => {
  it("a Prometheus source pointed at an Alertmanager: 404, and this looks like an Alertmanager", async () => {
    const hint = "this looks like an Alertmanager (GET /api/v2/status answers as one): set kind: alertmanager?";
    for (const path of ["/api/v1/status/tsdb", "/api/v1/targets"]) {
      expect(await failure("am-as-prometheus", new RegExp(`^GET ${path}: HTTP 404`))).toContain(hint);
    }
    const page = await statusPage();
    expect(page).toContain(`GET /api/v1/targets: HTTP 404: 404 page not found; ${hint}`);
    // The status endpoints' 404s too: nothing answered, so none reads as a Prometheus lacking it.
    const metrics = (await httpGet(`${exporter.base}/metrics`)).body;
    for (const endpoint of ["buildinfo", "runtimeinfo", "walreplay"])
      expect(samplesOf(metrics, "promstatus_up", { source: "am-as-prometheus", endpoint })[0]?.value).toBe(0);
  });

  it("a Prometheus source asking only status endpoints, pointed at an Alertmanager: down, not a Prometheus lacking them", async () => {
    // Every endpoint answers Go's 404, which alone would read as an older Prometheus lacking it.
    const error = await failure("am-as-prometheus-status-only", /^GET \/api\/v1\/status\/buildinfo: HTTP 404/);
    expect(error).toContain("set kind: alertmanager?");
    const metrics = (await httpGet(`${exporter.base}/metrics`)).body;
    const up = [
      ...metrics.matchAll(/^promstatus_up\{source="am-as-prometheus-status-only",endpoint="(\w+)"\} (\d)$/gm),
    ];
    expect(up.map(([, endpoint]) => endpoint).sort()).toEqual(["buildinfo", "runtimeinfo", "walreplay"]);
    expect(up.map(([, , value]) => value)).toEqual(up.map(() => "0"));
  });

  it("an Alertmanager source pointed at a Prometheus: 404, and this looks like a Prometheus (asked once)", async () => {
    const error = await failure("prometheus-as-am", /^GET \/api\/v2\/status: HTTP 404/);
    expect(error).toContain(
      "this looks like a Prometheus (GET /api/v1/status/buildinfo answers as one): set kind: prometheus?",
    );
    expect(await statusPage()).toContain("GET /api/v2/status: HTTP 404");
    // Several failed polls later, the check was made once: Prometheus counts the requests it answered.
    // Counted by the exporter: the log says the same failure once.
    await waitFor("three failed polls", async () => {
      const text = (await httpGet(`${exporter.base}/metrics`)).body;
      const failed = samplesOf(text, "promstatus_poll_failures_total", { source: "prometheus-as-am" });
      return failed.reduce((n, s) => n + s.value, 0) >= 3 ? true : undefined;
    });
    const metrics = await httpGet(`${prometheus.url}/metrics`, { ca: certs.ca, auth: `monitor:${PROM_PASSWORD}` });
    const asked = /^prometheus_http_requests_total\{code="200",handler="\/api\/v1\/status\/buildinfo"\} (\d+)$/m.exec(
      metrics.body,
    );
    expect(asked?.[1]).toBe("1");
  });

  it("a URL ending in /api/v1: the doubled path is shown, and no kind is guessed", async () => {
    const error = await failure("api-v1-suffix", /status\/tsdb: HTTP 404/);
    expect(error).toMatch(/^GET \/api\/v1\/api\/v1\/status\/tsdb: HTTP 404/);
    expect(error).not.toContain("looks like");
  });

  it("https:// to a plain-HTTP port: the server speaks plain HTTP, use http://", async () => {
    const error = await failure("https-to-plain", /TLS error/);
    expect(error).toMatch(/^GET \/api\/v2\/status: TLS error: EPROTO: the server speaks plain HTTP: use http:\/\//);
    expect(await statusPage()).toContain("the server speaks plain HTTP: use http://");
  });

  it("401 names the credentials sent, never their value", async () => {
    // Every endpoint of the source fails alike (tsdb, targets and the status endpoints): read tsdb's line.
    expect(await failure("wrong-password", /^GET \/api\/v1\/status\/tsdb: HTTP 401/)).toBe(
      `GET /api/v1/status/tsdb: HTTP 401: Unauthorized; credentials sent: basic_auth user "monitor" with the password from basic_auth.password_file ${join(dir.path, "wrong-password")}`,
    );
    expect(await failure("bearer", /HTTP 401/)).toContain(
      `credentials sent: an authorization Bearer token from authorization.credentials_file ${join(dir.path, "token")}`,
    );
    expect(await failure("no-credentials", /HTTP 401/)).toContain(
      "; no credentials configured (basic_auth, authorization or tls_config.cert_file)",
    );
    const page = await statusPage();
    expect(page).toContain('credentials sent: basic_auth user "monitor"');
    for (const secret of [PROM_PASSWORD, WRONG_PASSWORD, TOKEN]) {
      expect(page).not.toContain(secret);
      expect(logText.join("")).not.toContain(secret);
    }
  });
});
