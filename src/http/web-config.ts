import { readFileSync } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";
import { createSecureContext, type SecureVersion } from "node:tls";
import { z } from "zod";
import { ConfigError, type ConfigProblem } from "../config/config-error.js";
import { type Locate, parseYaml, readConfigFile } from "../config/yaml-file.js";

// --web.config.file in the exporter-toolkit format every Prometheus exporter accepts.

export const CLIENT_AUTH_TYPES = [
  "NoClientCert",
  "RequestClientCert",
  "RequireAnyClientCert",
  "VerifyClientCertIfGiven",
  "RequireAndVerifyClientCert",
] as const;
export type ClientAuthType = (typeof CLIENT_AUTH_TYPES)[number];

const TLS_VERSIONS: Record<string, SecureVersion> = {
  TLS10: "TLSv1",
  TLS11: "TLSv1.1",
  TLS12: "TLSv1.2",
  TLS13: "TLSv1.3",
};
const tlsVersion = z.enum(Object.keys(TLS_VERSIONS) as [string, ...string[]], {
  error: `must be one of ${Object.keys(TLS_VERSIONS).join(", ")}`,
});
// As bcrypt itself accepts a hash: versions 2a, 2b and 2y, cost 04 to 31 (bcryptjs refuses "$2x$" and
// cost 99, and never matches "$2$"): a bad hash fails the config check, not every later request.
const BCRYPT = /^\$2[aby]\$(?:0[4-9]|[12]\d|3[01])\$[./A-Za-z0-9]{53}$/;
const VERSION_ORDER = ["TLS10", "TLS11", "TLS12", "TLS13"];

const schema = z.strictObject({
  tls_server_config: z
    .strictObject({
      cert_file: z.string().min(1),
      key_file: z.string().min(1),
      client_auth_type: z
        .enum(CLIENT_AUTH_TYPES, { error: `must be one of ${CLIENT_AUTH_TYPES.join(", ")}` })
        .optional(),
      client_ca_file: z.string().min(1).optional(),
      min_version: tlsVersion.optional(),
      max_version: tlsVersion.optional(),
    })
    .refine(
      (t) =>
        !(t.client_auth_type === "VerifyClientCertIfGiven" || t.client_auth_type === "RequireAndVerifyClientCert") ||
        t.client_ca_file !== undefined,
      { error: "client_ca_file is required to verify client certificates", path: ["client_ca_file"] },
    )
    .refine((t) => VERSION_ORDER.indexOf(t.min_version ?? "TLS12") <= VERSION_ORDER.indexOf(t.max_version ?? "TLS13"), {
      error: "max_version must not be below min_version",
      path: ["max_version"],
    })
    .optional(),
  basic_auth_users: z
    .record(
      z.string().min(1),
      // The hash itself is not echoed: it is a secret too.
      z.string().regex(BCRYPT, { error: "must be a bcrypt hash ($2a$, $2b$ or $2y$, cost 04 to 31)" }),
    )
    .optional(),
});

export interface WebTlsConfig {
  cert: Buffer;
  key: Buffer;
  clientCa: Buffer | undefined;
  clientAuthType: ClientAuthType;
  minVersion: SecureVersion;
  maxVersion: SecureVersion | undefined;
}

export interface WebConfig {
  tls: WebTlsConfig | undefined;
  /** User name to bcrypt hash; empty means no authentication. */
  users: Map<string, string>;
}

export const NO_WEB_CONFIG: WebConfig = { tls: undefined, users: new Map() };

/** Reads and validates a web config file, loading its certificate files. Throws ConfigError. */
export async function loadWebConfig(file: string): Promise<WebConfig> {
  const { data, locate } = parseYaml(await readConfigFile(file), file, schema);
  const problems: ConfigProblem[] = [];
  const base = dirname(resolve(file));
  const read = (path: string | undefined, field: string): Buffer | undefined => {
    if (path === undefined) return undefined;
    const full = isAbsolute(path) ? path : resolve(base, path);
    try {
      return readFileSync(full);
    } catch (err) {
      problems.push(
        locate(["tls_server_config", field], `cannot read file ${full} (${(err as NodeJS.ErrnoException).code})`),
      );
      return undefined;
    }
  };
  let tls: WebTlsConfig | undefined;
  const t = data.tls_server_config;
  if (t) {
    const cert = read(t.cert_file, "cert_file");
    const key = read(t.key_file, "key_file");
    const clientCa = read(t.client_ca_file, "client_ca_file");
    tls = {
      cert: cert ?? Buffer.alloc(0),
      key: key ?? Buffer.alloc(0),
      clientCa,
      clientAuthType: t.client_auth_type ?? "NoClientCert",
      minVersion: TLS_VERSIONS[t.min_version ?? "TLS12"] as SecureVersion,
      maxVersion: t.max_version ? TLS_VERSIONS[t.max_version] : undefined,
    };
  }
  if (tls && problems.length === 0) problems.push(...checkTls(tls, locate));
  if (problems.length > 0) throw new ConfigError(file, problems);
  return { tls, users: new Map(Object.entries(data.basic_auth_users ?? {})) };
}

/**
 * What the TLS server will do with these files, done now: parse the certificate and key and check
 * they belong together, parse the client CA. A config that passes here cannot fail when the server
 * (or a reload's setSecureContext) takes it. OpenSSL's reasons name no key material.
 */
function checkTls(tls: WebTlsConfig, locate: Locate): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  try {
    createSecureContext({ cert: tls.cert, key: tls.key });
  } catch (err) {
    problems.push(
      locate(["tls_server_config", "cert_file"], `certificate and key cannot be used together: ${reason(err)}`),
    );
  }
  if (tls.clientCa) {
    try {
      createSecureContext({ ca: tls.clientCa });
      if (!/-----BEGIN CERTIFICATE-----/.test(tls.clientCa.toString("latin1"))) throw new Error("no certificate found");
    } catch (err) {
      problems.push(locate(["tls_server_config", "client_ca_file"], `not a PEM certificate bundle: ${reason(err)}`));
    }
  }
  return problems;
}

const reason = (err: unknown) => (err instanceof Error ? err.message : String(err)).replace(/^error:[0-9A-F]+:/, "");
