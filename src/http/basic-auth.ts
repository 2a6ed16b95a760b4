import { createHash } from "node:crypto";
import bcrypt from "bcryptjs";
import type { NextFunction, Request, Response } from "express";

// Compared against when the user is unknown, so that timing does not tell which users exist.
const DUMMY_HASH = "$2b$10$L7COPCDqbF/42V.AgXha8uX5xjYsIS3h0A1u2MKwddPFgK4fYL/G6";
const CACHE_LIMIT = 1000;

/**
 * Basic authentication against bcrypt hashes, as exporter-toolkit does. bcrypt is slow by design,
 * so verified credentials are cached (by a hash of them, never in clear) to keep scrapes cheap.
 */
export function basicAuth(users: () => Map<string, string>) {
  const verified = new Map<string, boolean>();
  return async (req: Request, res: Response, next: NextFunction) => {
    const table = users();
    if (table.size === 0) return next();
    const credentials = parseBasic(req.headers.authorization);
    if (credentials) {
      const hash = table.get(credentials.user);
      const key = createHash("sha256")
        .update(`${credentials.user}\0${credentials.password}\0${hash ?? ""}`)
        .digest("hex");
      let ok = verified.get(key);
      if (ok === undefined) {
        ok = (await bcrypt.compare(credentials.password, hash ?? DUMMY_HASH)) && hash !== undefined;
        if (verified.size >= CACHE_LIMIT) verified.clear();
        verified.set(key, ok);
      }
      if (ok) return next();
    }
    res.set("WWW-Authenticate", 'Basic realm="prometheus-status-exporter"').status(401).type("text/plain");
    res.send("Unauthorized\n");
  };
}

function parseBasic(header: string | undefined): { user: string; password: string } | undefined {
  const match = /^Basic\s+(\S+)$/i.exec(header ?? "");
  if (!match) return undefined;
  const decoded = Buffer.from(match[1] as string, "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon < 0) return undefined;
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}
