import { readFile } from "node:fs/promises";
import type { HttpClientConfig } from "../config/types.js";
import { PollError } from "./poll-error.js";

export interface RequestAuth {
  headers: Record<string, string>;
  https: {
    certificateAuthority?: Buffer;
    certificate?: Buffer;
    key?: Buffer;
    serverName?: string;
    rejectUnauthorized: boolean;
  };
}

/**
 * Headers and TLS settings for one poll. Files are read on every call so that rotated passwords,
 * tokens and certificates take effect without a reload. Errors name the setting, never the content.
 */
export async function requestAuth(http: HttpClientConfig): Promise<RequestAuth> {
  const headers: Record<string, string> = { ...http.headers };
  if (http.basicAuth) {
    const { username, password, passwordFile } = http.basicAuth;
    const secret = passwordFile ? await readSecret(passwordFile, "basic_auth.password_file") : (password ?? "");
    headers.authorization = `Basic ${Buffer.from(`${username}:${secret}`).toString("base64")}`;
  }
  if (http.authorization) {
    const { type, credentials, credentialsFile } = http.authorization;
    const secret = credentialsFile
      ? await readSecret(credentialsFile, "authorization.credentials_file")
      : (credentials ?? "");
    headers.authorization = `${type} ${secret}`;
  }
  const { caFile, certFile, keyFile, serverName, insecureSkipVerify } = http.tls;
  return {
    headers,
    https: {
      certificateAuthority: caFile ? await readFileFor(caFile, "tls_config.ca_file") : undefined,
      certificate: certFile ? await readFileFor(certFile, "tls_config.cert_file") : undefined,
      key: keyFile ? await readFileFor(keyFile, "tls_config.key_file") : undefined,
      serverName,
      rejectUnauthorized: !insecureSkipVerify,
    },
  };
}

async function readFileFor(path: string, setting: string): Promise<Buffer> {
  try {
    return await readFile(path);
  } catch (err) {
    // Not a reason of its own: the poll could not be made, much like a refused connection.
    throw new PollError("connection", `cannot read ${setting} ${path} (${(err as NodeJS.ErrnoException).code})`);
  }
}

/** A secret file's content without the trailing newline editors and `echo` add. */
async function readSecret(path: string, setting: string): Promise<string> {
  return (await readFileFor(path, setting)).toString("utf8").replace(/\r?\n$/, "");
}
