import { createHash } from "node:crypto";
import type { NextFunction, Request, Response } from "express";
import { BcryptWorker, type Compare } from "./bcrypt-worker.js";
import { EqualCost } from "./equal-cost.js";

// bcrypt is slow by design, so verified credentials are remembered (by a hash of them, never in
// clear). Successes and failures are kept apart: a flood of wrong passwords fills only its own,
// small, share and can never push Prometheus's remembered success out, which would make every
// scrape pay bcrypt again.
const SUCCESS_LIMIT = 1000;
const FAILURE_LIMIT = 100;

export interface BasicAuthOptions {
  /**
   * bcrypt's compare (in a worker thread by default); replaceable so tests can count the calls. Logins
   * still take turns in the worker's queue, one whole login (hash and padding) per turn.
   */
  compare?: Compare;
}

/** Basic authentication against bcrypt hashes, as exporter-toolkit does. */
export function basicAuth(users: () => Map<string, string>, options: BasicAuthOptions = {}) {
  const worker = new BcryptWorker(64, options.compare);
  const successes = new Map<string, true>();
  const failures = new Map<string, true>();
  // What a wrong password costs, per users table (a reload may change the costs).
  const plans = new WeakMap<Map<string, string>, EqualCost>();
  const planFor = (table: Map<string, string>) => {
    let plan = plans.get(table);
    if (!plan) {
      plan = new EqualCost(table.values());
      plans.set(table, plan);
    }
    return plan;
  };
  /**
   * Whether the password is the user's; a wrong one, or an unknown user, costs the same for all. The
   * compare and its padding are one job: a failed login waits its turn in the queue once, whatever
   * the user's cost, rather than once per decoy.
   */
  const verify = (password: string, hash: string | undefined, plan: EqualCost) =>
    worker.check(password, hash, plan.padding(hash));

  return async (req: Request, res: Response, next: NextFunction) => {
    const table = users();
    if (table.size === 0) return next();
    const credentials = parseBasic(req.headers.authorization);
    if (credentials) {
      const hash = table.get(credentials.user);
      const key = createHash("sha256")
        .update(`${credentials.user}\0${credentials.password}\0${hash ?? ""}`)
        .digest("hex");
      if (successes.has(key)) return next();
      if (!failures.has(key)) {
        // Beyond a short queue a flood is turned away at once instead of piling up.
        if (worker.queued >= worker.queueLimit) {
          res.set("Retry-After", "1").status(429).type("text/plain").send("Too many authentication attempts.\n");
          return;
        }
        const ok = await verify(credentials.password, hash, planFor(table));
        remember(ok ? successes : failures, key, ok ? SUCCESS_LIMIT : FAILURE_LIMIT);
        if (ok) return next();
      }
    }
    res.set("WWW-Authenticate", 'Basic realm="prometheus-status-exporter"').status(401).type("text/plain");
    res.send("Unauthorized\n");
  };
}

/** Adds a key as the newest, dropping the oldest beyond the limit. */
function remember(cache: Map<string, true>, key: string, limit: number): void {
  cache.delete(key);
  cache.set(key, true);
  if (cache.size > limit) cache.delete(cache.keys().next().value as string);
}

function parseBasic(header: string | undefined): { user: string; password: string } | undefined {
  const match = /^Basic\s+(\S+)$/i.exec(header ?? "");
  if (!match) return undefined;
  const decoded = Buffer.from(match[1] as string, "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon < 0) return undefined;
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}
