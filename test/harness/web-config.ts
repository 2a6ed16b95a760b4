import { writeFileSync } from "node:fs";
import { join } from "node:path";
import bcrypt from "bcryptjs";
import { stringify } from "yaml";

export interface WebConfigSpec {
  tls?: { certFile: string; keyFile: string; clientCaFile?: string; clientAuthType?: string };
  /** User name to clear-text password; stored as bcrypt hashes. */
  users?: Record<string, string>;
}

/** Writes a web config in the exporter-toolkit format Prometheus, Alertmanager and the exporter share. */
export function writeWebConfig(dir: string, name: string, spec: WebConfigSpec): string {
  const doc: Record<string, unknown> = {};
  if (spec.tls) {
    doc.tls_server_config = {
      cert_file: spec.tls.certFile,
      key_file: spec.tls.keyFile,
      ...(spec.tls.clientCaFile ? { client_ca_file: spec.tls.clientCaFile } : {}),
      ...(spec.tls.clientAuthType ? { client_auth_type: spec.tls.clientAuthType } : {}),
    };
  }
  if (spec.users) {
    doc.basic_auth_users = Object.fromEntries(
      Object.entries(spec.users).map(([user, password]) => [user, bcrypt.hashSync(password, 8)]),
    );
  }
  const file = join(dir, name);
  writeFileSync(file, stringify(doc));
  return file;
}
