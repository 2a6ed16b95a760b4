import express, { type Express, type NextFunction, type Request, type RequestHandler, type Response } from "express";
import type { Logger } from "pino";
import { gzipMember } from "../exposition/gzip-stream.js";
import { packedMembers, readMembers } from "../exposition/member-readers.js";
import type { WriteAgain } from "../exposition/unpack.js";
import type { ProbeRequest } from "../probe/probe.js";
import type { ProbeResponse } from "../probe/prober.js";
import type { OwnMetrics } from "../publish/process-metrics.js";
import type { ScrapeMetrics } from "../publish/scrape-metrics.js";
import type { Exposition } from "../publish/store.js";
import { otherMethods } from "./allowed-methods.js";
import { AnswerBytes, PROBE_ANSWER_BYTES_IN_FLIGHT } from "./answer-bytes.js";
import { basicAuth } from "./basic-auth.js";
import { clientCertCheck } from "./client-cert.js";
import { sendBuffers, sendPlain } from "./exposition-body.js";
import { headPart, lastHeadPart } from "./head-part.js";
import { type LandingPageInfo, landingPage } from "./landing-page.js";
import { alreadyEnded, onceEnded } from "./once-ended.js";
import { requestLimit } from "./request-limit.js";
import { closeWhenStalled, resetInheritedTimeout } from "./stall-timeout.js";
import type { WebConfig } from "./web-config.js";

export interface AppDeps {
  log: Logger;
  telemetryPath: string;
  /** Requests of the telemetry path served at once (--web.max-requests); absent or 0: no limit. */
  maxRequests?: number;
  /** A telemetry response that makes no progress for this long is closed (--web.stall-timeout); absent or 0: never. */
  stallTimeoutMs?: number;
  /** Bytes of /probe answers written at once (AnswerBytes); PROBE_ANSWER_BYTES_IN_FLIGHT unless set. */
  probeAnswerBytes?: number;
  /** Where the telemetry path's requests are counted; absent: not counted. */
  scrapeMetrics?: ScrapeMetrics;
  /** Whether POST /-/reload is allowed (--web.enable-lifecycle). */
  enableLifecycle: boolean;
  /** The exporter's own metrics (process, Node.js, build info, reloads). */
  processMetrics: OwnMetrics;
  /** Per-target families' plain lines written again by the decoder thread that packed them; absent: inflated. */
  writeAgain?: WriteAgain;
  /** Exposition of the source-derived metrics, assembled (and gzipped) once per change. */
  sourcesExposition: () => Exposition;
  isReady: () => boolean;
  /** Reloads the config; resolves with an error message when the new config was refused. */
  reload: () => Promise<string | undefined>;
  landing: () => LandingPageInfo;
  /** The web config in force (it can change on reload). */
  webConfig: () => WebConfig;
  /** Polls the target a /probe request names (multi-target mode). */
  probe: (request: ProbeRequest & { debug: boolean }) => Promise<ProbeResponse>;
  /** The debug account of a recent probe, by the id the status page links to. */
  probeAccount: (id: number) => string | undefined;
}

/** The exporter's HTTP surface. It only reads published state; it never calls an upstream. */
export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable("x-powered-by");
  app.disable("etag");
  // Probe accounts and /logs carry words a probe's target chose: no browser may sniff them into HTML.
  // Set first, so refusals (403, 401, 429) and errors carry it too.
  app.use((_req, res, next) => {
    res.set("X-Content-Type-Options", "nosniff");
    next();
  });
  // Only POST and PUT (/-/reload) may carry a body, and it is not read. A GET's body trickled a byte at a
  // time would count as activity on the connection and keep an unread answer past --web.stall-timeout.
  app.use((req, res, next) => {
    const body = (req.headers["content-length"] ?? "0") !== "0" || req.headers["transfer-encoding"] !== undefined;
    if (!body || req.method === "POST" || req.method === "PUT") return next();
    res.set("Connection", "close").status(400).type("text/plain").send(`A ${req.method} request takes no body.\n`);
  });
  // `OPTIONS *` asks about the server, not a path: 200 with no body, before any path's handler or
  // credentials; any other method on `*` is 400 and the connection closed. So Go's net/http answers for
  // Prometheus and Alertmanager (globalOptionsHandler, ServeMux; measured on Debian's Prometheus 2.42).
  app.use((req, res, next) => {
    if (req.url !== "*") next();
    else if (req.method === "OPTIONS") res.status(200).set("Content-Length", "0").end();
    else res.set("Connection", "close").status(400).end();
  });
  if ((deps.stallTimeoutMs ?? 0) > 0) app.use(resetInheritedTimeout);
  app.use(clientCertCheck(() => deps.webConfig().tls?.clientAuthType));
  // Health and readiness say nothing worth protecting, and Kubernetes probes carry no credentials:
  // they answer without basic auth (unlike exporter-toolkit, which guards every path). TLS still applies.
  app.get("/-/healthy", (_req, res) => {
    res.type("text/plain").send("Healthy.\n");
  });
  app.get("/-/ready", (_req, res) => {
    if (deps.isReady()) res.type("text/plain").send("Ready.\n");
    else res.status(503).type("text/plain").send("Not ready: waiting for the first poll of every source.\n");
  });
  const readOnly = otherMethods(["GET", "HEAD"]);
  app.all("/-/healthy", readOnly);
  app.all("/-/ready", readOnly);
  app.use(basicAuth(() => deps.webConfig().users));
  const runtimePart = lastHeadPart();

  // After basic auth: a client that may not scrape cannot take a scrape's place.
  app.get(deps.telemetryPath, requestLimit(deps.maxRequests ?? 0, deps.scrapeMetrics), async (req, res, next) => {
    try {
      closeWhenStalled(res, deps.stallTimeoutMs ?? 0, deps.log);
      // The exporter's own metrics (a few KB) come first; the sources' part is served as cached.
      const [runtimeText, ownText] = await deps.processMetrics.metrics();
      const runtime = runtimePart(runtimeText);
      const own = headPart(ownText);
      const sources = deps.sourcesExposition();
      // The sources' members are not freed while this response may still write them.
      onceEnded(req, res, readMembers(packedMembers(sources.parts)));
      res.vary("Accept-Encoding").status(200).type(deps.processMetrics.contentType);
      if (sources.gzip && req.acceptsEncodings("gzip") === "gzip") {
        // One gzip member: the runtime's and the exporter's own parts (stored, head-part.ts),
        // the sources' members as kept (exposition/gzip-stream.ts).
        const body = gzipMember([
          runtime.deflated(),
          own.deflated(),
          { segments: sources.gzip.members, crc: sources.gzip.crc, length: sources.length },
        ]);
        const length = body.reduce((n, piece) => n + piece.length, 0);
        res.set("Content-Encoding", "gzip").set("Content-Length", String(length));
        sendBuffers(res, req.method === "HEAD" ? [] : body);
        return;
      }
      // Plain: large families are inflated as the response streams (never whole), to a known length.
      res.set("Content-Length", String(runtime.bytes.length + own.bytes.length + sources.length));
      if (req.method === "HEAD") res.end();
      else await sendPlain(res, [runtime.bytes, own.bytes], sources.parts, deps.writeAgain);
    } catch (err) {
      next(err);
    }
  });
  app.all(deps.telemetryPath, readOnly);
  const probeAnswers = new AnswerBytes(deps.probeAnswerBytes ?? PROBE_ANSWER_BYTES_IN_FLIGHT);
  app.get("/probe", async (req, res, next) => {
    try {
      const answer = await deps.probe({
        target: req.query.target,
        module: req.query.module,
        scrapeTimeoutSeconds: req.get("X-Prometheus-Scrape-Timeout-Seconds"),
        debug: req.query.debug === "true",
      });
      if (alreadyEnded(req, res)) return;
      if (!probeAnswers.take(req, res, Buffer.byteLength(answer.body))) {
        res
          .status(503)
          .set("Retry-After", "1")
          .type("text/plain")
          .send(
            `Too many probe answers still being read: ${probeAnswers.bytes} bytes, the most the exporter holds at once; try again later.\n`,
          );
        return;
      }
      // Armed once the answer is ready: the probe's poll may take its time, its client may not.
      closeWhenStalled(res, deps.stallTimeoutMs ?? 0, deps.log);
      if (answer.status === 503) res.set("Retry-After", String(answer.retryAfterSeconds));
      res
        .status(answer.status)
        .type(answer.type === "metrics" ? deps.processMetrics.contentType : "text/plain")
        .send(answer.body);
    } catch (err) {
      next(err);
    }
  });
  app.all("/probe", readOnly);
  app.get("/logs", (req, res) => {
    const account = deps.probeAccount(Number(req.query.id));
    if (account === undefined) res.status(404).type("text/plain").send("No such probe in the recent history.\n");
    else res.type("text/plain").send(account);
  });
  app.all("/logs", readOnly);
  // POST or PUT, as Prometheus takes them (web/web.go; Debian's 2.42 answers both 200, Alertmanager POST only).
  const reload: RequestHandler = async (_req, res, next) => {
    // Anyone who reaches the port (or a browser tricked into a cross-site form post) could reload.
    if (!deps.enableLifecycle) {
      res.status(403).type("text/plain").send("Lifecycle API is not enabled (start with --web.enable-lifecycle).\n");
      return;
    }
    try {
      const error = await deps.reload();
      if (error === undefined) res.type("text/plain").send("Reloaded.\n");
      else res.status(500).type("text/plain").send(`Failed to reload config:\n${error}\n`);
    } catch (err) {
      next(err);
    }
  };
  app.post("/-/reload", reload);
  app.put("/-/reload", reload);
  app.all("/-/reload", otherMethods(["POST", "PUT"], "Use POST (or PUT) to reload the config.\n"));
  app.get("/", (_req, res) => {
    res.type("html").send(landingPage(deps.landing()));
  });
  app.all("/", readOnly);
  // Any other path: plain text, as Go's router answers (not Express's HTML page).
  app.use((_req, res) => {
    res.status(404).type("text/plain").send("404 page not found\n");
  });
  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    deps.log.error({ err, path: req.path }, "request failed");
    // A body cut short after its headers (a streamed exposition): closing tells the client it is incomplete.
    if (res.headersSent) res.destroy();
    else res.status(500).type("text/plain").send("Internal error; see the exporter's log.\n");
  });
  return app;
}
