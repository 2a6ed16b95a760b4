import type { Server } from "node:http";
import type { Server as HttpsServer } from "node:https";
import { isDeepStrictEqual } from "node:util";
import type { Logger } from "pino";
import type { Flags } from "./cli/flags.js";
import { ConfigError } from "./config/config-error.js";
import { loadConfig } from "./config/load.js";
import { sameSource } from "./config/same-source.js";
import { type ExporterConfig, endpointsOf } from "./config/types.js";
import { createApp } from "./http/app.js";
import { createServer, listen, tlsOptions } from "./http/server.js";
import { loadWebConfig, NO_WEB_CONFIG, type WebConfig } from "./http/web-config.js";
import { decodedByWorker, decodePool, probeDecodePool } from "./poll/decode-pool.js";
import { Prober } from "./probe/prober.js";
import { groupTables } from "./publish/groups.js";
import { createProbeMetrics } from "./publish/probe-metrics.js";
import { ProcessMetrics } from "./publish/process-metrics.js";
import { createReloadMetrics } from "./publish/reload-metrics.js";
import { createScrapeMetrics } from "./publish/scrape-metrics.js";
import { sourceStatuses } from "./publish/source-status.js";
import { SourceStore } from "./publish/store.js";
import { Scheduler } from "./schedule/scheduler.js";
import { VERSION } from "./version.js";

export interface LoadedConfig {
  config: ExporterConfig;
  webConfig: WebConfig;
}

/** Loads the config file and, if given, the web config file. Throws ConfigError. */
export async function loadAll(flags: Flags): Promise<LoadedConfig> {
  const [config, webConfig] = await Promise.all([
    loadConfig(flags.configFile),
    flags.webConfigFile ? loadWebConfig(flags.webConfigFile) : NO_WEB_CONFIG,
  ]);
  return { config, webConfig };
}

/**
 * The running exporter: wires config → schedule → upstream → convert → publish → http, and
 * swaps in a new config on reload without dropping the series of unchanged sources.
 */
export class Exporter {
  private config: ExporterConfig;
  private webConfig: WebConfig;
  private readonly store = new SourceStore();
  private readonly scheduler: Scheduler;
  private readonly prober: Prober;
  private readonly reloadMetrics;
  private reloading: Promise<string | undefined> = Promise.resolve(undefined);
  /** The last reload, when it was refused: shown on the status page until a reload succeeds. */
  private refusedReload: { atSeconds: number; problems: number } | undefined;
  readonly server: Server | HttpsServer;

  private constructor(
    loaded: LoadedConfig,
    private readonly flags: Flags,
    private readonly log: Logger,
  ) {
    this.config = loaded.config;
    this.webConfig = loaded.webConfig;
    this.scheduler = new Scheduler(this.store, log);
    const processMetrics = new ProcessMetrics(VERSION);
    this.reloadMetrics = createReloadMetrics(processMetrics.registry);
    const probeMetrics = createProbeMetrics(processMetrics.registry, {
      pollsInFlight: () => this.prober.pollsInFlight,
      modules: () => this.config.modules.keys(),
    });
    this.prober = new Prober(
      () => this.config.modules,
      flags.probeTimeoutOffsetMs,
      log,
      { maxConcurrent: flags.probeMaxConcurrent },
      probeMetrics,
    );
    this.store.takeProbedMembers(this.prober.groupMembers((groups) => this.store.regroupProbed(groups)));
    const app = createApp({
      log,
      telemetryPath: flags.telemetryPath,
      maxRequests: flags.webMaxRequests,
      stallTimeoutMs: flags.webStallTimeoutMs,
      scrapeMetrics: createScrapeMetrics(processMetrics.registry),
      enableLifecycle: flags.enableLifecycle,
      processMetrics,
      sourcesExposition: () => this.store.exposition(),
      writeAgain: decodePool.writeAgain,
      isReady: () => this.scheduler.ready,
      reload: () => this.reload(),
      landing: () => ({
        version: VERSION,
        telemetryPath: flags.telemetryPath,
        sources: sourceStatuses(this.store.states()),
        groups: groupTables(this.store.groupViews().values()),
        probes: this.prober.history(),
        refusedReload: this.refusedReload,
        lifecycle: flags.enableLifecycle,
      }),
      webConfig: () => this.webConfig,
      probe: (request) => this.prober.probe(request),
      probeAccount: (id) => this.prober.account(id),
    });
    this.server = createServer(app, loaded.webConfig.tls);
  }

  static async start(loaded: LoadedConfig, flags: Flags, log: Logger): Promise<Exporter> {
    // Before the first poll starts a worker.
    for (const pool of [decodePool, probeDecodePool]) pool.memoryLimitBytes = flags.decoderMemoryLimitBytes;
    const { sources } = loaded.config;
    if (sources.length > 0) decodePool.warm(sources.some((s) => endpointsOf(s).some(decodedByWorker)));
    const exporter = new Exporter(loaded, flags, log);
    await listen(exporter.server, flags.listen.port, flags.listen.host);
    log.info(
      {
        address: exporter.server.address(),
        tls: loaded.webConfig.tls !== undefined,
        basic_auth: loaded.webConfig.users.size > 0,
      },
      "listening",
    );
    exporter.apply(loaded.config);
    exporter.reloadMetrics.succeeded();
    return exporter;
  }

  /** Re-reads the config files; resolves with the problems if they were refused (the old config stays). */
  reload(): Promise<string | undefined> {
    // One reload at a time; a crashed reload must not block the next one.
    this.reloading = this.reloading.catch(() => undefined).then(() => this.reloadOnce());
    return this.reloading;
  }

  /** Stops polling and closes the server; resolves when both are done. */
  async stop(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeIdleConnections();
    await this.scheduler.stop();
    this.prober.close();
    this.server.closeAllConnections();
    await closed;
  }

  private apply(config: ExporterConfig): void {
    // Once per load, at start and at each reload: the config is used as it is.
    for (const { file, line, field, message } of config.warnings) this.log.warn({ file, line, field }, message);
    this.config = config;
    this.store.apply(config.sources);
    this.scheduler.apply(config.sources);
  }

  private async reloadOnce(): Promise<string | undefined> {
    let loaded: LoadedConfig;
    try {
      loaded = await loadAll(this.flags);
      this.applyWebConfig(loaded.webConfig);
    } catch (err) {
      // Every refusal says why and is counted, whatever threw.
      const message = err instanceof ConfigError ? err.message : `reload failed: ${(err as Error).message ?? err}`;
      this.reloadMetrics.failed();
      this.refusedReload = { atSeconds: Date.now() / 1000, problems: message.split("\n").length };
      this.log.error({ problems: message.split("\n") }, "config reload refused; the running config stays");
      return message;
    }
    const previous = new Map(this.config.sources.map((s) => [s.name, s]));
    const before = new Set(previous.keys());
    this.apply(loaded.config);
    this.reloadMetrics.succeeded();
    this.refusedReload = undefined;
    const after = loaded.config.sources.map((s) => s.name);
    this.log.info(
      {
        sources: after,
        added: after.filter((n) => !before.has(n)),
        removed: [...before].filter((n) => !after.includes(n)),
        // Restarted with an immediate poll (URL, schedule, labels, auth, ... changed).
        changed: loaded.config.sources
          .filter((s) => previous.has(s.name) && !sameSource(previous.get(s.name), s))
          .map((s) => s.name),
      },
      "config reloaded",
    );
    return undefined;
  }

  /** New certificates and users take effect at once; switching TLS on or off needs a restart. */
  private applyWebConfig(next: WebConfig): void {
    const current = this.webConfig.tls;
    if ((current === undefined) !== (next.tls === undefined)) {
      throw new ConfigError(this.flags.webConfigFile ?? "(web config)", [
        { field: "tls_server_config", message: "cannot be added or removed by a reload; restart the exporter" },
      ]);
    }
    if (current && next.tls) {
      const { requestCert: a, rejectUnauthorized: b } = tlsOptions(current);
      const { requestCert: c, rejectUnauthorized: d } = tlsOptions(next.tls);
      if (!isDeepStrictEqual([a, b], [c, d])) {
        throw new ConfigError(this.flags.webConfigFile ?? "(web config)", [
          {
            field: "tls_server_config.client_auth_type",
            message: "cannot be changed by a reload; restart the exporter",
          },
        ]);
      }
      try {
        (this.server as HttpsServer).setSecureContext(tlsOptions(next.tls));
      } catch (err) {
        throw new ConfigError(this.flags.webConfigFile ?? "(web config)", [
          { field: "tls_server_config", message: `cannot be used: ${(err as Error).message}` },
        ]);
      }
    }
    this.webConfig = next;
  }
}
