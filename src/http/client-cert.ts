import type { TLSSocket } from "node:tls";
import type { NextFunction, Request, Response } from "express";
import type { ClientAuthType } from "./web-config.js";

/**
 * The part of client_auth_type Node's TLS options cannot express: "any certificate" and "verify it
 * if given" are checked per request on the socket (the handshake only requests the certificate).
 */
export function clientCertCheck(type: () => ClientAuthType | undefined) {
  return (req: Request, res: Response, next: NextFunction) => {
    const mode = type();
    if (mode !== "RequireAnyClientCert" && mode !== "VerifyClientCertIfGiven") return next();
    const socket = req.socket as TLSSocket;
    const cert = typeof socket.getPeerCertificate === "function" ? socket.getPeerCertificate() : undefined;
    const given = cert !== undefined && Object.keys(cert).length > 0;
    if (mode === "RequireAnyClientCert" && !given) {
      res.status(403).type("text/plain").send("A client certificate is required.\n");
      return;
    }
    if (mode === "VerifyClientCertIfGiven" && given && !socket.authorized) {
      res.status(403).type("text/plain").send("The client certificate could not be verified.\n");
      return;
    }
    next();
  };
}
