import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeCerts, type TestCerts } from "../harness/certs.js";
import { startDaemon } from "../harness/daemon.js";
import { httpGet } from "../harness/http-get.js";
import { freePort, type Managed, tempDir, waitFor, waitForHttp } from "../harness/processes.js";
import { type RealPrometheus, startPrometheus } from "../harness/prometheus.js";
import { writeWebConfig } from "../harness/web-config.js";

// The exporter's own endpoint behind TLS and basic auth (--web.config.file), scraped by a real Prometheus.

const SCRAPE_PASSWORD = "scrape-Pw-31";
let dir: ReturnType<typeof tempDir>;
let certs: TestCerts;
let daemon: Managed;
let prometheus: RealPrometheus;
let address: string;
let webConfigFile: string;

beforeAll(async () => {
  dir = tempDir("promstatus-webconfig");
  certs = makeCerts(dir.path);
  address = `127.0.0.1:${await freePort()}`;
  const tls = { certFile: certs.serverCertFile, keyFile: certs.serverKeyFile };
  webConfigFile = writeWebConfig(dir.path, "web.yml", { tls, users: { prometheus: SCRAPE_PASSWORD } });
  const configFile = join(dir.path, "exporter.yml");
  const deadPort = await freePort();
  writeFileSync(configFile, `sources:\n  - {name: gone, kind: alertmanager, url: "http://127.0.0.1:${deadPort}"}\n`);
  daemon = startDaemon(dir.path, [
    `--config.file=${configFile}`,
    `--web.listen-address=${address}`,
    `--web.config.file=${webConfigFile}`,
    "--web.enable-lifecycle",
  ]);
  await waitForHttp(`https://${address}/-/healthy`, daemon, 30_000, {
    ca: certs.ca,
    auth: `prometheus:${SCRAPE_PASSWORD}`,
  });
  prometheus = await startPrometheus(dir.path, [
    {
      job_name: "promstatus",
      targets: [address],
      scheme: "https",
      tls_config: { ca_file: certs.caFile },
      basic_auth: { username: "prometheus", password: SCRAPE_PASSWORD },
      honor_labels: true,
    },
  ]);
}, 60_000);

afterAll(async () => {
  await Promise.all([daemon?.stop(3000), prometheus?.stop()]);
  dir?.remove();
}, 30_000);

describe("the exporter behind its web config", () => {
  it("is scraped by a real Prometheus over TLS with basic auth", async () => {
    const result = await waitFor("exporter up in Prometheus", async () => {
      const res = await fetch(`${prometheus.url}/api/v1/query?query=${encodeURIComponent('up{job="promstatus"}')}`);
      const body = (await res.json()) as { data: { result: { value: [number, string] }[] } };
      return body.data.result[0]?.value[1] === "1" ? body.data.result : undefined;
    });
    expect(result).toHaveLength(1);
    const stored = await fetch(
      `${prometheus.url}/api/v1/query?query=${encodeURIComponent('promstatus_up{source="gone"}')}`,
    );
    expect(((await stored.json()) as { data: { result: unknown[] } }).data.result).toHaveLength(1);
  });

  it("answers 401 without credentials or with a wrong password", async () => {
    for (const path of ["/metrics", "/"]) {
      const res = await httpGet(`https://${address}${path}`, { ca: certs.ca });
      expect(res.status, path).toBe(401);
      expect(res.headers["www-authenticate"]).toContain("Basic");
    }
    expect((await httpGet(`https://${address}/metrics`, { ca: certs.ca, auth: "prometheus:nope" })).status).toBe(401);
    expect(
      (await httpGet(`https://${address}/metrics`, { ca: certs.ca, auth: `other:${SCRAPE_PASSWORD}` })).status,
    ).toBe(401);
    expect(
      (await httpGet(`https://${address}/metrics`, { ca: certs.ca, auth: `prometheus:${SCRAPE_PASSWORD}` })).status,
    ).toBe(200);
  });

  it("lets health and readiness probes through without credentials, over TLS", async () => {
    expect((await httpGet(`https://${address}/-/healthy`, { ca: certs.ca })).status).toBe(200);
    expect((await httpGet(`https://${address}/-/ready`, { ca: certs.ca })).status).toBe(200);
    const reload = await httpGet(`https://${address}/-/reload`, { ca: certs.ca, method: "POST" });
    expect(reload.status).toBe(401);
  });

  it("does not speak plain HTTP on the TLS port", async () => {
    const answer = await httpGet(`http://${address}/metrics`, { auth: `prometheus:${SCRAPE_PASSWORD}` }).then(
      (res) => res.status,
      (err: Error) => err.message,
    );
    expect(answer).not.toBe(200);
  });

  it("takes new users from the web config on reload", async () => {
    writeWebConfig(dir.path, "web.yml", {
      tls: { certFile: certs.serverCertFile, keyFile: certs.serverKeyFile },
      users: { prometheus: SCRAPE_PASSWORD, ops: "rotated-Pw-5" },
    });
    const reload = await httpGet(`https://${address}/-/reload`, {
      ca: certs.ca,
      auth: `prometheus:${SCRAPE_PASSWORD}`,
      method: "POST",
    });
    expect(reload.status).toBe(200);
    expect((await httpGet(`https://${address}/metrics`, { ca: certs.ca, auth: "ops:rotated-Pw-5" })).status).toBe(200);
  });

  it("refuses a reload whose certificate and key do not match, says why and counts it", async () => {
    const auth = `prometheus:${SCRAPE_PASSWORD}`;
    writeWebConfig(dir.path, "web.yml", {
      tls: { certFile: certs.serverCertFile, keyFile: certs.clientKeyFile },
      users: { prometheus: SCRAPE_PASSWORD },
    });
    const reload = await httpGet(`https://${address}/-/reload`, { ca: certs.ca, auth, method: "POST" });
    expect(reload.status).toBe(500);
    expect(reload.body).toContain("tls_server_config.cert_file: certificate and key cannot be used together");
    const metrics = await httpGet(`https://${address}/metrics`, { ca: certs.ca, auth });
    expect(metrics.body).toMatch(/^promstatus_config_last_reload_successful 0$/m);
    // The old certificate is still served.
    expect((await httpGet(`https://${address}/-/healthy`, { ca: certs.ca })).status).toBe(200);
  });
});
