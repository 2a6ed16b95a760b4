import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/load.js";
import type { Endpoint, SourceConfig } from "../../src/config/types.js";
import { type PollOutcome, pollEndpoint } from "../../src/poll/poll-endpoint.js";
import { type RealAlertmanagerCluster, startAlertmanagerCluster } from "../harness/alertmanager.js";
import { makeCerts, type TestCerts } from "../harness/certs.js";
import { tempDir } from "../harness/processes.js";
import { type RealPrometheus, startPrometheus } from "../harness/prometheus.js";
import { writeWebConfig } from "../harness/web-config.js";

// A real Prometheus behind TLS and basic auth, and a real Alertmanager that also requires a client
// certificate, both through their own --web.config.file.

const PROM_PASSWORD = "prom-Secret-pw-7";
const AM_PASSWORD = "am-Secret-pw-9";

let dir: ReturnType<typeof tempDir>;
let certs: TestCerts;
let prometheus: RealPrometheus;
let alertmanager: RealAlertmanagerCluster;

beforeAll(async () => {
  dir = tempDir("promstatus-secured");
  certs = makeCerts(dir.path);
  const tls = { certFile: certs.serverCertFile, keyFile: certs.serverKeyFile };
  const promWeb = writeWebConfig(dir.path, "prom-web.yml", { tls, users: { monitor: PROM_PASSWORD } });
  const amWeb = writeWebConfig(dir.path, "am-web.yml", {
    tls: { ...tls, clientCaFile: certs.caFile, clientAuthType: "RequireAndVerifyClientCert" },
    users: { monitor: AM_PASSWORD },
  });
  prometheus = await startPrometheus(dir.path, [], {
    webConfigFile: promWeb,
    readyCheck: { ca: certs.ca, auth: `monitor:${PROM_PASSWORD}` },
  });
  alertmanager = await startAlertmanagerCluster(dir.path, 1, {
    webConfigFile: amWeb,
    readyCheck: { ca: certs.ca, auth: `monitor:${AM_PASSWORD}`, cert: certs.clientCert, key: certs.clientKey },
  });
}, 60_000);

afterAll(async () => {
  await Promise.all([prometheus?.stop(), alertmanager?.stop()]);
  dir?.remove();
}, 30_000);

/** One source from config text, as an operator would write it. */
function source(yaml: string): SourceConfig {
  const file = join(dir.path, "exporter.yml");
  const config = parseConfig(`sources:\n  - ${yaml.trim().replace(/\n/g, "\n    ")}\n`, file);
  return config.sources[0] as SourceConfig;
}

const prom = (extra: string) => source(`name: p\nkind: prometheus\nurl: ${prometheus.url}\ntimeout: 5s\n${extra}`);
const am = (extra: string) =>
  source(`name: a\nkind: alertmanager\nurl: ${alertmanager.members[0]?.url}\ntimeout: 5s\n${extra}`);

async function poll(s: SourceConfig, endpoint: Endpoint): Promise<PollOutcome> {
  return pollEndpoint(s, endpoint);
}
const reasonOf = (o: PollOutcome) => (o.ok ? "ok" : o.error.reason);

describe("secured Prometheus (TLS, basic auth)", () => {
  const good = () =>
    `basic_auth: {username: monitor, password: "${PROM_PASSWORD}"}\ntls_config: {ca_file: ${certs.caFile}}`;

  it("polls both endpoints with the right credentials and CA", async () => {
    const s = prom(good());
    expect(reasonOf(await poll(s, "tsdb"))).toBe("ok");
    expect(reasonOf(await poll(s, "targets"))).toBe("ok");
  });

  it("fails as http_status 401 with a wrong password", async () => {
    const outcome = await poll(
      prom(`basic_auth: {username: monitor, password: wrong}\ntls_config: {ca_file: ${certs.caFile}}`),
      "tsdb",
    );
    expect(reasonOf(outcome)).toBe("http_status");
    expect(outcome.ok ? "" : outcome.error.message).toMatch(/^HTTP 401/);
  });

  it("fails as http_status 401 without credentials", async () => {
    const outcome = await poll(prom(`tls_config: {ca_file: ${certs.caFile}}`), "targets");
    expect(outcome.ok ? "" : outcome.error.message).toMatch(/^HTTP 401/);
  });

  it("fails as tls without the CA, with another CA, and with a wrong server name", async () => {
    const auth = `basic_auth: {username: monitor, password: "${PROM_PASSWORD}"}`;
    expect(reasonOf(await poll(prom(auth), "tsdb"))).toBe("tls");
    expect(reasonOf(await poll(prom(`${auth}\ntls_config: {ca_file: ${certs.otherCaFile}}`), "tsdb"))).toBe("tls");
    const wrongName = `${auth}\ntls_config: {ca_file: ${certs.caFile}, server_name: elsewhere.example}`;
    expect(reasonOf(await poll(prom(wrongName), "tsdb"))).toBe("tls");
  });

  it("accepts an unknown CA with insecure_skip_verify", async () => {
    const s = prom(
      `basic_auth: {username: monitor, password: "${PROM_PASSWORD}"}\ntls_config: {insecure_skip_verify: true}`,
    );
    expect(reasonOf(await poll(s, "tsdb"))).toBe("ok");
  });

  it("re-reads password_file on every poll, so a rotated password works without a reload", async () => {
    const file = join(dir.path, "prom-password");
    writeFileSync(file, "an-old-password\n");
    const s = prom(`basic_auth: {username: monitor, password_file: ${file}}\ntls_config: {ca_file: ${certs.caFile}}`);
    expect(reasonOf(await poll(s, "tsdb"))).toBe("http_status");
    writeFileSync(file, `${PROM_PASSWORD}\n`);
    expect(reasonOf(await poll(s, "tsdb"))).toBe("ok");
  });
});

describe("secured Alertmanager (TLS with client certificates, basic auth)", () => {
  const auth = () => `basic_auth: {username: monitor, password: "${AM_PASSWORD}"}`;

  it("polls with a client certificate, credentials and the CA", async () => {
    const tls = `tls_config: {ca_file: ${certs.caFile}, cert_file: ${certs.clientCertFile}, key_file: ${certs.clientKeyFile}}`;
    const outcome = await poll(am(`${auth()}\n${tls}`), "status");
    expect(reasonOf(outcome)).toBe("ok");
  });

  it("fails as tls without a client certificate", async () => {
    expect(reasonOf(await poll(am(`${auth()}\ntls_config: {ca_file: ${certs.caFile}}`), "status"))).toBe("tls");
  });

  it("fails as http_status 401 with the certificate but a wrong password", async () => {
    const tls = `tls_config: {ca_file: ${certs.caFile}, cert_file: ${certs.clientCertFile}, key_file: ${certs.clientKeyFile}}`;
    const outcome = await poll(am(`basic_auth: {username: monitor, password: nope}\n${tls}`), "status");
    expect(outcome.ok ? "" : outcome.error.message).toMatch(/^HTTP 401/);
  });
});
