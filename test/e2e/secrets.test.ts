import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RealAlertmanagerCluster, startAlertmanagerCluster } from "../harness/alertmanager.js";
import { makeCerts, type TestCerts } from "../harness/certs.js";
import { DAEMON, startDaemon } from "../harness/daemon.js";
import { httpGet } from "../harness/http-get.js";
import { freePort, type Managed, tempDir, waitFor, waitForHttp } from "../harness/processes.js";
import { type RealPrometheus, startPrometheus } from "../harness/prometheus.js";
import { writeWebConfig } from "../harness/web-config.js";
import { valueIn } from "../helpers/exposition.js";
import { fixtureText } from "../helpers/fixtures.js";

// A full run with debug logging, right and wrong credentials and a refused reload; then every byte
// the exporter produced is searched for the secrets it was given.

const SECRETS = {
  promPassword: "prom-Pass-secret-0",
  wrongPassword: "wrong-Pass-secret-1",
  bearer: "bearer-Token-secret-2",
  header: "header-Value-secret-3",
  amPassword: "am-Pass-secret-4",
  reloadPassword: "reload-Pass-secret-5",
  scrapePassword: "scrape-Pass-secret-6",
  webhookToken: "harness-webhook-token", // in the Alertmanager's config.original, in clear text
  slashPassword: "slash/Pass+secret==7", // base64-style: makes the URL unparseable
  redirectBearer: "redirect-Bearer-secret-8",
  redirectHeader: "redirect-Header-secret-9",
  taggedToken: "tagged-Token-secret-10", // next to an unusual YAML tag in a config.original
};

// What a second origin received after a redirect, and an Alertmanager answer no real one can give (a
// config.original with a YAML tag the parser warns about): local servers for those two cases.
const elsewhere: string[] = [];
let redirector: Server;
let otherOrigin: Server;
let oddAlertmanager: Server;
const listen = async (server: Server) => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

let dir: ReturnType<typeof tempDir>;
let certs: TestCerts;
let prometheus: RealPrometheus;
let alertmanager: RealAlertmanagerCluster;
let daemon: Managed;
let base: string;
let configFile: string;
let webConfigFile: string;
const captured: string[] = [];
const auth = `prometheus:${SECRETS.scrapePassword}`;

async function get(path: string, method = "GET", credentials: string | undefined = auth): Promise<string> {
  const res = await httpGet(`${base}${path}`, { ca: certs.ca, auth: credentials, method });
  captured.push(res.body, JSON.stringify(res.headers));
  return res.body;
}

function run(args: string[]): void {
  const result = spawnSync(process.execPath, [DAEMON, ...args], {
    encoding: "utf8",
    env: { ...process.env, AM_PASSWORD: SECRETS.amPassword },
  });
  captured.push(result.stdout, result.stderr);
}

beforeAll(async () => {
  dir = tempDir("promstatus-secrets");
  certs = makeCerts(dir.path);
  const tls = { certFile: certs.serverCertFile, keyFile: certs.serverKeyFile };
  prometheus = await startPrometheus(dir.path, [], {
    webConfigFile: writeWebConfig(dir.path, "prom-web.yml", { tls, users: { monitor: SECRETS.promPassword } }),
    readyCheck: { ca: certs.ca, auth: `monitor:${SECRETS.promPassword}` },
  });
  alertmanager = await startAlertmanagerCluster(dir.path, 1, {
    webConfigFile: writeWebConfig(dir.path, "am-web.yml", { tls, users: { monitor: SECRETS.amPassword } }),
    readyCheck: { ca: certs.ca, auth: `monitor:${SECRETS.amPassword}` },
  });
  const passwordFile = join(dir.path, "prom-password");
  writeFileSync(passwordFile, `${SECRETS.promPassword}\n`);
  const ca = `tls_config: {ca_file: ${certs.caFile}}`;
  otherOrigin = createServer((req, res) => {
    elsewhere.push(JSON.stringify(req.headers));
    res.writeHead(200, { "content-type": "application/json" }).end(fixtureText("upstream/prometheus-targets.json"));
  });
  const otherUrl = await listen(otherOrigin);
  redirector = createServer((req, res) => res.writeHead(302, { location: `${otherUrl}${req.url}` }).end());
  const redirectorUrl = await listen(redirector);
  const status = JSON.parse(fixtureText("upstream/alertmanager-status-standalone.json"));
  status.config.original = `route: {receiver: hook}\nreceivers:\n- name: hook\n  webhook_configs:\n  - url: !weird http://x/?token=${SECRETS.taggedToken}\n`;
  oddAlertmanager = createServer((_req, res) => res.writeHead(200).end(JSON.stringify(status)));
  const oddUrl = await listen(oddAlertmanager);
  configFile = join(dir.path, "exporter.yml");
  writeFileSync(
    configFile,
    `global: {schedule: "* * * * * *", timeout: 3s}
sources:
  - {name: right, kind: prometheus, url: "${prometheus.url}", basic_auth: {username: monitor, password_file: ${passwordFile}}, ${ca}}
  - {name: wrong, kind: prometheus, url: "${prometheus.url}", basic_auth: {username: monitor, password: ${SECRETS.wrongPassword}}, ${ca}}
  - {name: bearer, kind: prometheus, url: "${prometheus.url}", authorization: {credentials: ${SECRETS.bearer}}, headers: {X-Api-Key: ${SECRETS.header}}, ${ca}}
  - {name: am, kind: alertmanager, url: "${alertmanager.members[0]?.url}", basic_auth: {username: monitor, password: "\${AM_PASSWORD}"}, ${ca}}
  - {name: redirected, kind: prometheus, url: "${redirectorUrl}", tsdb: {enabled: false}, authorization: {credentials: ${SECRETS.redirectBearer}}, headers: {X-Api-Key: ${SECRETS.redirectHeader}}}
  - {name: odd, kind: alertmanager, url: "${oddUrl}"}
`,
  );
  webConfigFile = writeWebConfig(dir.path, "web.yml", { tls, users: { prometheus: SECRETS.scrapePassword } });
  const address = `127.0.0.1:${await freePort()}`;
  base = `https://${address}`;
  daemon = startDaemon(
    dir.path,
    [
      `--config.file=${configFile}`,
      `--web.listen-address=${address}`,
      `--web.config.file=${webConfigFile}`,
      "--web.enable-lifecycle",
      "--log.level=debug",
    ],
    "exporter",
    { ...process.env, AM_PASSWORD: SECRETS.amPassword },
  );
  await waitForHttp(`${base}/-/ready`, daemon, 30_000, { ca: certs.ca, auth });
}, 60_000);

afterAll(async () => {
  await Promise.all([daemon?.stop(3000), prometheus?.stop(), alertmanager?.stop()]);
  for (const server of [redirector, otherOrigin, oddAlertmanager]) server?.close();
  dir?.remove();
}, 30_000);

describe("secrets", () => {
  it("polls with right and wrong credentials for a few cycles", async () => {
    const text = await waitFor(
      "two failures of each wrong source",
      async () => {
        const t = await get("/metrics");
        const n = (source: string) =>
          valueIn(t, "promstatus_poll_failures_total", { source, endpoint: "tsdb", reason: "http_status" });
        return n("wrong") >= 2 && n("bearer") >= 2 ? t : undefined;
      },
      20_000,
    );
    expect(valueIn(text, "promstatus_up", { source: "right", endpoint: "tsdb" })).toBe(1);
    expect(valueIn(text, "promstatus_up", { source: "am", endpoint: "status" })).toBe(1);
    expect(valueIn(text, "promstatus_up", { source: "wrong", endpoint: "tsdb" })).toBe(0);
    expect(valueIn(text, "promstatus_up", { source: "redirected", endpoint: "targets" })).toBe(1);
    expect(valueIn(text, "promstatus_up", { source: "odd", endpoint: "status" })).toBe(1);
    expect(elsewhere.length).toBeGreaterThan(0); // the redirect was followed
  });

  it("refuses a reload of a config holding a new secret, by POST and by SIGHUP", async () => {
    const good = readFileSync(configFile, "utf8");
    writeFileSync(
      configFile,
      `${good}  - {name: broken, kind: alertmanager, url: "http://monitor:${SECRETS.reloadPassword}@bad host", basic_auth: {username: u, password: ${SECRETS.reloadPassword}, password_file: /x}}
  - {name: slashed, kind: alertmanager, url: "http://monitor:${SECRETS.slashPassword}@host:9093"}\n`,
    );
    const body = await get("/-/reload", "POST");
    expect(body).toContain("sources[6].basic_auth: at most one of password and password_file may be set");
    expect(body).toContain('sources[7].url: invalid URL "http://monitor:xxxxx@host:9093"');
    daemon.child.kill("SIGHUP");
    run([`--config.file=${configFile}`, `--web.config.file=${webConfigFile}`, "--config.check"]);
    run([`--config.file=${configFile}`, "--web.listen-address=127.0.0.1:0"]); // refuses to start
    await waitFor("SIGHUP reload logged", async () =>
      readFileSync(daemon.logFile, "utf8").split("config reload refused").length > 2 ? true : undefined,
    );
    writeFileSync(configFile, good);
  });

  it("serves and logs none of them", async () => {
    await get("/metrics");
    await get("/");
    await get("/metrics", "GET", `prometheus:${SECRETS.wrongPassword}`);
    await daemon.stop(3000);
    captured.push(readFileSync(daemon.logFile, "utf8"), ...elsewhere);
    const everything = captured.join("\n");
    expect(everything).toContain("poll failed"); // the capture did see the failures
    expect(everything).toContain("HTTP 401");
    const forms = Object.values(SECRETS).flatMap((s) => [
      s,
      Buffer.from(`monitor:${s}`).toString("base64"),
      Buffer.from(`prometheus:${s}`).toString("base64"),
    ]);
    const keyBody = readFileSync(certs.serverKeyFile, "utf8").split("\n")[1] as string;
    for (const secret of [...forms, keyBody]) expect(everything, secret).not.toContain(secret);
  });
});
