import type { RequestHandler } from "express";
import type { ScrapeMetrics } from "../publish/scrape-metrics.js";

/**
 * Lets at most `max` requests through at once (0: no limit); one more is answered 503 at once, in
 * the words of client_golang's promhttp (prometheus/promhttp/http.go, v1.24.1), plus Retry-After.
 * A request holds its place until its response closes: written to the end (into the socket, not
 * just into its buffer) or its client gone. A client that stops reading keeps its place, so such
 * clients hold at most `max` responses' worth of memory.
 */
export function requestLimit(max: number, observer?: ScrapeMetrics): RequestHandler {
  let inFlight = 0;
  return (_req, res, next) => {
    // A response emits "close" once, after "finish" or when its connection went away: every path ends there.
    if (max > 0 && inFlight >= max) {
      res.once("close", () => observer?.answered(res.statusCode));
      res
        .status(503)
        .set("Retry-After", "1")
        .type("text/plain")
        .send(`Limit of concurrent requests reached (${max}), try again later.\n`);
      return;
    }
    inFlight += 1;
    observer?.inFlight(inFlight);
    res.once("close", () => {
      inFlight -= 1;
      observer?.inFlight(inFlight);
      observer?.answered(res.statusCode);
    });
    next();
  };
}
