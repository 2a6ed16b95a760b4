import type { RequestHandler } from "express";
import type { ScrapeMetrics } from "../publish/scrape-metrics.js";
import { alreadyEnded, onceEnded } from "./once-ended.js";

/**
 * Lets at most `max` requests through at once (0: no limit); one more is answered 503 at once, in
 * the words of client_golang's promhttp (prometheus/promhttp/http.go, v1.24.1), plus Retry-After.
 * A request holds its place until its response closes: written to the end (into the socket, not
 * just into its buffer) or its client gone. A client that stops reading keeps its place, so such
 * clients hold at most `max` responses' worth of memory.
 */
export function requestLimit(max: number, observer?: ScrapeMetrics): RequestHandler {
  let inFlight = 0;
  return (req, res, next) => {
    // Nobody to answer (its client hung up while basic auth checked its password): no place taken, nothing counted.
    if (alreadyEnded(req, res)) return;
    if (max > 0 && inFlight >= max) {
      onceEnded(req, res, () => observer?.answered(res.statusCode));
      res
        .status(503)
        .set("Retry-After", "1")
        .type("text/plain")
        .send(`Limit of concurrent requests reached (${max}), try again later.\n`);
      return;
    }
    inFlight += 1;
    observer?.inFlight(inFlight);
    onceEnded(req, res, () => {
      inFlight -= 1;
      observer?.inFlight(inFlight);
      observer?.answered(res.statusCode);
    });
    next();
  };
}
