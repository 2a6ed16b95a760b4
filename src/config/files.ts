import { accessSync, constants, statSync } from "node:fs";
import type { ExporterConfig, HttpClientConfig } from "./types.js";

export interface FileProblem {
  path: (string | number)[];
  message: string;
}

/**
 * Checks that every file a source or module names can be read now, so a typo fails at load time rather
 * than at every poll. The files are read again on every poll, so rotated secrets are picked up.
 */
export function checkFiles(config: Pick<ExporterConfig, "sources" | "modules">): FileProblem[] {
  const problems: FileProblem[] = [];
  const check = (at: (string | number)[], http: HttpClientConfig) => {
    const files: [string[], string | undefined][] = [
      [["basic_auth", "password_file"], http.basicAuth?.passwordFile],
      [["authorization", "credentials_file"], http.authorization?.credentialsFile],
      [["tls_config", "ca_file"], http.tls.caFile],
      [["tls_config", "cert_file"], http.tls.certFile],
      [["tls_config", "key_file"], http.tls.keyFile],
    ];
    for (const [field, path] of files) {
      if (path === undefined) continue;
      try {
        accessSync(path, constants.R_OK);
        // A readable directory passes the check above, then fails every read.
        if (statSync(path).isDirectory())
          problems.push({ path: [...at, ...field], message: `${path} is a directory, not a file` });
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code ?? "unreadable";
        problems.push({ path: [...at, ...field], message: `cannot read file ${path} (${code})` });
      }
    }
  };
  config.sources.forEach((s, i) => {
    check(["sources", i], s.http);
  });
  for (const [name, m] of config.modules) check(["modules", name], m.http);
  return problems;
}
