import express, { type Express, type NextFunction, type Request, type Response } from "express";
import type { Logger } from "pino";
import type { Registry } from "prom-client";
import { basicAuth } from "./basic-auth.js";
import { clientCertCheck } from "./client-cert.js";
import { type LandingPageInfo, landingPage } from "./landing-page.js";
import type { WebConfig } from "./web-config.js";

export interface AppDeps {
  log: Logger;
  telemetryPath: string;
  processRegistry: Registry;
  /** Exposition of the source-derived metrics (cached between changes). */
  sourcesExposition: () => Promise<string>;
  isReady: () => boolean;
  /** Reloads the config; resolves with an error message when the new config was refused. */
  reload: () => Promise<string | undefined>;
  landing: () => LandingPageInfo;
  /** The web config in force (it can change on reload). */
  webConfig: () => WebConfig;
}

/** The exporter's HTTP surface. It only reads published state; it never calls an upstream. */
export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable("x-powered-by");
  app.disable("etag");
  app.use(clientCertCheck(() => deps.webConfig().tls?.clientAuthType));
  app.use(basicAuth(() => deps.webConfig().users));

  app.get(deps.telemetryPath, async (_req, res, next) => {
    try {
      const [processText, sourcesText] = await Promise.all([deps.processRegistry.metrics(), deps.sourcesExposition()]);
      res.type(deps.processRegistry.contentType).send(processText + sourcesText);
    } catch (err) {
      next(err);
    }
  });
  app.get("/-/healthy", (_req, res) => {
    res.type("text/plain").send("Healthy.\n");
  });
  app.get("/-/ready", (_req, res) => {
    if (deps.isReady()) res.type("text/plain").send("Ready.\n");
    else res.status(503).type("text/plain").send("Not ready: waiting for the first poll of every source.\n");
  });
  app.post("/-/reload", async (_req, res, next) => {
    try {
      const error = await deps.reload();
      if (error === undefined) res.type("text/plain").send("Reloaded.\n");
      else res.status(500).type("text/plain").send(`Failed to reload config:\n${error}\n`);
    } catch (err) {
      next(err);
    }
  });
  app.all("/-/reload", (_req, res) => {
    res.set("Allow", "POST").status(405).type("text/plain").send("Use POST to reload the config.\n");
  });
  app.get("/", (_req, res) => {
    res.type("html").send(landingPage(deps.landing()));
  });
  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    deps.log.error({ err, path: req.path }, "request failed");
    res.status(500).type("text/plain").send("Internal error; see the exporter's log.\n");
  });
  return app;
}
