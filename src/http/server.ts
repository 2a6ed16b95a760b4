import { createServer as createHttpServer, type RequestListener, type Server } from "node:http";
import { createServer as createHttpsServer, type Server as HttpsServer } from "node:https";
import type { SecureContextOptions } from "node:tls";
import type { WebTlsConfig } from "./web-config.js";

/** Node TLS options for a web config's tls_server_config. */
export function tlsOptions(
  tls: WebTlsConfig,
): SecureContextOptions & { requestCert: boolean; rejectUnauthorized: boolean } {
  const verify = tls.clientAuthType === "RequireAndVerifyClientCert";
  return {
    cert: tls.cert,
    key: tls.key,
    ca: tls.clientCa,
    minVersion: tls.minVersion,
    maxVersion: tls.maxVersion,
    requestCert: tls.clientAuthType !== "NoClientCert",
    rejectUnauthorized: verify,
  };
}

/** A plain HTTP server, or HTTPS when the web config has tls_server_config. */
export function createServer(app: RequestListener, tls: WebTlsConfig | undefined): Server | HttpsServer {
  return tls ? createHttpsServer(tlsOptions(tls), app) : createHttpServer(app);
}

/** The address could not be bound: said in one line, naming it (no stack trace is worth showing). */
export class ListenError extends Error {
  override name = "ListenError";

  constructor(
    /** As --web.listen-address writes it: `host:port`, `[::1]:port`, or `:port` for every interface. */
    readonly address: string,
    readonly code: string,
    why: string,
  ) {
    super(`cannot listen on ${address}: ${why}`);
  }
}

// What a failed bind means, in the words an operator acts on.
const BIND_FAILURES: Readonly<Record<string, string>> = {
  EADDRINUSE: "the address is already in use (another process listens on it; choose another --web.listen-address)",
  EACCES: "permission denied (a port below 1024 needs privileges)",
  EADDRNOTAVAIL: "no network interface of this machine has that address",
};

/** Starts listening; resolves once bound, rejects with a ListenError. */
export function listen(server: Server, port: number, host: string | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const failed = (error: NodeJS.ErrnoException) => {
      const address = `${host?.includes(":") ? `[${host}]` : (host ?? "")}:${port}`;
      const code = error.code ?? "";
      reject(new ListenError(address, code, BIND_FAILURES[code] ?? error.message));
    };
    server.once("error", failed);
    server.listen(port, host, () => {
      server.off("error", failed);
      resolve();
    });
  });
}
