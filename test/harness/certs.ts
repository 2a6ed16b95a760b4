import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export interface TestCerts {
  caFile: string;
  ca: Buffer;
  serverCertFile: string;
  serverKeyFile: string;
  clientCertFile: string;
  clientKeyFile: string;
  clientCert: Buffer;
  clientKey: Buffer;
  /** A CA that signed nothing here: trusting only it must fail verification. */
  otherCaFile: string;
}

function openssl(dir: string, args: string[]): void {
  execFileSync("openssl", args, { cwd: dir, stdio: ["ignore", "ignore", "pipe"] });
}

function newCa(dir: string, name: string): void {
  // biome-ignore format: an openssl command line reads best as one
  openssl(dir, [
    "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
    "-keyout", `${name}.key`, "-out", `${name}.crt`, "-subj", `/CN=promstatus ${name}`,
  ]);
}

function newLeaf(dir: string, name: string, usage: string, san: string): void {
  // biome-ignore format: an openssl command line reads best as one
  openssl(dir, [
    "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
    "-keyout", `${name}.key`, "-out", `${name}.csr`, "-subj", `/CN=${name}`,
  ]);
  writeFileSync(join(dir, `${name}.ext`), `subjectAltName=${san}\nextendedKeyUsage=${usage}\n`);
  // biome-ignore format: an openssl command line reads best as one
  openssl(dir, [
    "x509", "-req", "-in", `${name}.csr`, "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
    "-days", "2", "-out", `${name}.crt`, "-extfile", `${name}.ext`,
  ]);
}

/** A throw-away CA with a server certificate for localhost/127.0.0.1 and a client certificate. */
export function makeCerts(dir: string): TestCerts {
  newCa(dir, "ca");
  newCa(dir, "other-ca");
  newLeaf(dir, "server", "serverAuth", "DNS:localhost,IP:127.0.0.1");
  newLeaf(dir, "client", "clientAuth", "DNS:promstatus-client");
  const file = (name: string) => join(dir, name);
  return {
    caFile: file("ca.crt"),
    ca: readFileSync(file("ca.crt")),
    serverCertFile: file("server.crt"),
    serverKeyFile: file("server.key"),
    clientCertFile: file("client.crt"),
    clientKeyFile: file("client.key"),
    clientCert: readFileSync(file("client.crt")),
    clientKey: readFileSync(file("client.key")),
    otherCaFile: file("other-ca.crt"),
  };
}
