import type { RequestHandler } from "express";

/**
 * What a path answers to a method it does not serve, as Prometheus and Alertmanager do (their router,
 * julienschmidt/httprouter: HandleMethodNotAllowed and HandleOPTIONS; measured on Debian's Prometheus
 * 2.42 and Alertmanager 0.25): OPTIONS 200 with no body, any other method 405 "Method Not Allowed";
 * both say in `Allow` what the path takes; `refusal` may say more than the status does. Registered
 * after the path's own handlers (`app.all`), so it only sees the methods they left (Express serves HEAD
 * with a GET handler).
 */
export function otherMethods(served: readonly string[], refusal = "Method Not Allowed\n"): RequestHandler {
  const allow = [...new Set([...served, "OPTIONS"])].sort().join(", ");
  return (req, res) => {
    res.set("Allow", allow);
    if (req.method === "OPTIONS") res.status(200).end();
    else res.status(405).type("text/plain").send(refusal);
  };
}
