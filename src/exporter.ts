import type { Server } from "node:http";
import type { Logger } from "pino";
import type { Flags } from "./cli/flags.js";
import type { ExporterConfig } from "./config/types.js";
import { createApp } from "./http/app.js";
import { createProcessRegistry } from "./publish/process-metrics.js";
import { SourceStore } from "./publish/store.js";
import { Scheduler } from "./schedule/scheduler.js";
import { VERSION } from "./version.js";

export interface RunningExporter {
  server: Server;
  /** Stops polling, closes the server; resolves when both are done. */
  stop(): Promise<void>;
}

/** Wires config → schedule → upstream → convert → publish → http and starts serving. */
export async function startExporter(config: ExporterConfig, flags: Flags, log: Logger): Promise<RunningExporter> {
  const store = new SourceStore(config.sources);
  const scheduler = new Scheduler(config.sources, store, log);
  const app = createApp({
    log,
    telemetryPath: flags.telemetryPath,
    processRegistry: createProcessRegistry(VERSION),
    sourcesExposition: () => store.exposition(),
    isReady: () => scheduler.ready,
    landing: { version: VERSION, telemetryPath: flags.telemetryPath, sources: config.sources },
  });

  const server = await new Promise<Server>((resolve, reject) => {
    const s = app.listen(flags.listen.port, flags.listen.host ?? "", (err?: Error) => (err ? reject(err) : resolve(s)));
  });
  log.info({ address: server.address() }, "listening");
  scheduler.start();

  return {
    server,
    async stop() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      await scheduler.stop();
      server.closeAllConnections();
      await closed;
    },
  };
}
