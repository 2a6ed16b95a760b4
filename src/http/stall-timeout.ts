import type { ServerResponse } from "node:http";
import type { RequestHandler } from "express";
import type { Logger } from "pino";

// --web.stall-timeout: a scrape whose client stopped reading would otherwise keep its place (and what its
// response holds) for good. Node has no timeout of a response's own, only the connection's idle timeout,
// which counts a write as progress once it is taken whole: so this is the time each write may take (about
// 1 MiB, plain or gzipped: exposition-body.ts).

/**
 * Arms the stall timeout for a scrape's response: once its connection has been idle that long while it is
 * answered, the response is destroyed (its place and holds are freed by their close listeners).
 */
export function closeWhenStalled(res: ServerResponse, ms: number, log: Logger): void {
  if (ms <= 0) return;
  res.setTimeout(ms, () => {
    log.debug({ remote: res.socket?.remoteAddress, stallMs: ms }, "closed a scrape its client stopped reading");
    res.destroy();
  });
}

/**
 * A response queued behind a scrape on the same connection (pipelined) would inherit the scrape's timeout
 * when it takes the connection, and a slow /probe was cut by it: it gets Node's own back (none, as
 * server.timeout is never set here). Used before every route, so that a queued scrape's own timeout, set
 * by its handler on the same event, comes after this.
 */
export const resetInheritedTimeout: RequestHandler = (_req, res, next) => {
  if (!res.socket) res.once("socket", (socket) => socket.setTimeout(0));
  next();
};
