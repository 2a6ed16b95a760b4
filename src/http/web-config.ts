import { readFileSync } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";
import type { SecureVersion } from "node:tls";
import { z } from "zod";
import { ConfigError, type ConfigProblem } from "../config/config-error.js";
import { parseYaml, readConfigFile } from "../config/yaml-file.js";

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
const BCRYPT = /^\$2[abxy]?\$\d\d\$[./A-Za-z0-9]{53}$/;

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
    .optional(),
  basic_auth_users: z
    .record(
      z.string().min(1),
      // The hash itself is not echoed: it is a secret too.
      z.string().regex(BCRYPT, { error: "must be a bcrypt hash ($2y$...)" }),
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
  if (problems.length > 0) throw new ConfigError(file, problems);
  return { tls, users: new Map(Object.entries(data.basic_auth_users ?? {})) };
}
