import { accessSync, constants } from "node:fs";
import type { ExporterConfig } from "./types.js";

export interface FileProblem {
  path: (string | number)[];
  message: string;
}

/**
 * Checks that every file a source names can be read now, so a typo fails at load time rather than at
 * the first poll. The files are read again on every poll, so rotated secrets are picked up.
 */
export function checkFiles(config: ExporterConfig): FileProblem[] {
  const problems: FileProblem[] = [];
  config.sources.forEach((s, i) => {
    const files: [string[], string | undefined][] = [
      [["basic_auth", "password_file"], s.http.basicAuth?.passwordFile],
      [["authorization", "credentials_file"], s.http.authorization?.credentialsFile],
      [["tls_config", "ca_file"], s.http.tls.caFile],
      [["tls_config", "cert_file"], s.http.tls.certFile],
      [["tls_config", "key_file"], s.http.tls.keyFile],
    ];
    for (const [field, path] of files) {
      if (path === undefined) continue;
      try {
        accessSync(path, constants.R_OK);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code ?? "unreadable";
        problems.push({ path: ["sources", i, ...field], message: `cannot read file ${path} (${code})` });
      }
    }
  });
  return problems;
}
