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

/** Starts listening; resolves once bound. */
export function listen(server: Server, port: number, host: string | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
}
