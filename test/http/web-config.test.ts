import { writeFileSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import bcrypt from "bcryptjs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ConfigError } from "../../src/config/config-error.js";
import { createServer, listen } from "../../src/http/server.js";
import { loadWebConfig, type WebConfig } from "../../src/http/web-config.js";
import { makeCerts, type TestCerts } from "../harness/certs.js";
import { httpGet } from "../harness/http-get.js";
import { tempDir } from "../harness/processes.js";
import { appServing } from "../helpers/app.js";

let dir: ReturnType<typeof tempDir>;
let certs: TestCerts;
const servers: Server[] = [];

beforeAll(() => {
  dir = tempDir("promstatus-web");
  certs = makeCerts(dir.path);
});
afterAll(async () => {
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
  dir.remove();
});

async function load(yaml: string): Promise<WebConfig> {
  const file = join(dir.path, `web-${Math.random()}.yml`);
  writeFileSync(file, yaml);
  return loadWebConfig(file);
}

async function serveWith(yaml: string): Promise<string> {
  const web = await load(yaml);
  const app = appServing(() => ({ parts: [], length: 0, gzip: undefined }), { webConfig: () => web });
  const server = createServer(app, web.tls);
  servers.push(server);
  await listen(server, 0, "127.0.0.1");
  return `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const tls = (extra = "") =>
  `tls_server_config:\n  cert_file: ${certs.serverCertFile}\n  key_file: ${certs.serverKeyFile}\n${extra}`;
const status = (url: string, withCert: boolean) =>
  httpGet(`${url}/-/healthy`, {
    ca: certs.ca,
    ...(withCert ? { cert: certs.clientCert, key: certs.clientKey } : {}),
  }).then(
    (r) => r.status,
    () => "refused",
  );

describe("web config client certificates", () => {
  it("RequireAndVerifyClientCert refuses a client without a certificate", async () => {
    const url = await serveWith(
      tls(`  client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: ${certs.caFile}\n`),
    );
    expect(await status(url, true)).toBe(200);
    expect(await status(url, false)).toBe("refused");
  });

  it("RequireAnyClientCert answers 403 without a certificate", async () => {
    const url = await serveWith(tls("  client_auth_type: RequireAnyClientCert\n"));
    expect(await status(url, true)).toBe(200);
    expect(await status(url, false)).toBe(403);
  });

  it("NoClientCert (the default) needs none", async () => {
    expect(await status(await serveWith(tls()), false)).toBe(200);
  });
});

describe("web config validation", () => {
  const problem = (yaml: string) =>
    load(yaml).then(
      () => "accepted",
      (err: ConfigError) => err.problems.map((p) => `${p.field}: ${p.message}`).join("\n"),
    );

  it("names the field and the problem", async () => {
    expect(await problem("tls_server_config: {cert_file: /nope.crt, key_file: /nope.key}\n")).toBe(
      "tls_server_config.cert_file: cannot read file /nope.crt (ENOENT)\ntls_server_config.key_file: cannot read file /nope.key (ENOENT)",
    );
    expect(await problem(tls("  client_auth_type: RequireAndVerifyClientCert\n"))).toBe(
      "tls_server_config.client_ca_file: client_ca_file is required to verify client certificates",
    );
    expect(await problem(tls("  min_version: TLS99\n"))).toBe(
      "tls_server_config.min_version: must be one of TLS10, TLS11, TLS12, TLS13",
    );
    expect(await problem("basic_auth_users: {admin: hunter2}\n")).toBe(
      "basic_auth_users.admin: must be a bcrypt hash ($2a$, $2b$ or $2y$, cost 04 to 31)",
    );
    expect(await problem("http_server_config: {http2: true}\n")).toBe("http_server_config: unknown field");
  });

  it("checks what the server and bcrypt will do with the files, so a reload or a login cannot fail later", async () => {
    const valid = bcrypt.hashSync("pw", 4);
    for (const hash of [
      valid.replace(/^\$2[aby]\$/, "$2x$"),
      valid.replace(/\$04\$/, "$99$"),
      valid.replace(/^\$2[aby]\$/, "$2$"),
    ]) {
      expect(await problem(`basic_auth_users: {admin: "${hash}"}\n`)).toBe(
        "basic_auth_users.admin: must be a bcrypt hash ($2a$, $2b$ or $2y$, cost 04 to 31)",
      );
    }
    expect(await problem(tls("  min_version: TLS13\n  max_version: TLS12\n"))).toBe(
      "tls_server_config.max_version: max_version must not be below min_version",
    );
    // A key that is not the certificate's.
    const mismatched = `tls_server_config:\n  cert_file: ${certs.serverCertFile}\n  key_file: ${certs.clientKeyFile}\n`;
    expect(await problem(mismatched)).toMatch(
      /^tls_server_config\.cert_file: certificate and key cannot be used together: .*key values mismatch/,
    );
    const garbage = join(dir.path, "garbage.pem");
    writeFileSync(garbage, "not a certificate\n");
    expect(await problem(`tls_server_config:\n  cert_file: ${garbage}\n  key_file: ${certs.serverKeyFile}\n`)).toMatch(
      /^tls_server_config\.cert_file: certificate and key cannot be used together/,
    );
    expect(
      await problem(tls(`  client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: ${garbage}\n`)),
    ).toMatch(/^tls_server_config\.client_ca_file: not a PEM certificate bundle/);
  });
});
