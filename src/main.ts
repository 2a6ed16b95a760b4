#!/usr/bin/env node
// biome-ignore assist/source/organizeImports: must be evaluated before the other modules load
import "./cli/heap-growth.js";
import { onSighup } from "./cli/early-sighup.js";
import { checkConfig } from "./cli/config-check.js";
import { FlagError, type Flags, parseFlags, USAGE } from "./cli/flags.js";
import { ConfigError } from "./config/config-error.js";
import { redactUrl } from "./config/redact-url.js";
import { Exporter, type LoadedConfig, loadAll } from "./exporter.js";
import { ListenError } from "./http/server.js";
import { createLogger } from "./log.js";
import { VERSION } from "./version.js";

const SHUTDOWN_GRACE_MS = 4000;

async function main(): Promise<number | undefined> {
  let flags: Flags;
  try {
    flags = parseFlags(process.argv.slice(2));
  } catch (err) {
    if (!(err instanceof FlagError)) throw err;
    // As Prometheus's flags say it: the problem, and where the flags are listed (not all of them here).
    process.stderr.write(`error: ${err.message}, try --help\n`);
    return 1;
  }
  if (flags.help || flags.version) {
    process.stdout.write(flags.help ? USAGE : `prometheus-status-exporter ${VERSION} (node ${process.version})\n`);
    return 0;
  }
  if (flags.configCheck) return checkConfig(flags, process.stdout);

  const log = createLogger(flags.logLevel, flags.logFormat);

  log.info(
    { version: VERSION, node: process.version, config_file: flags.configFile },
    "starting prometheus-status-exporter",
  );
  let loaded: LoadedConfig;
  try {
    loaded = await loadAll(flags);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    log.error({ problems: err.message.split("\n") }, "invalid configuration");
    process.stderr.write(`invalid configuration:\n${err.message}\n`);
    return 1;
  }
  for (const s of loaded.config.sources) {
    log.info(
      {
        source: s.name,
        kind: s.kind,
        ...(s.group === undefined ? {} : { group: s.group }),
        url: redactUrl(s.url),
        ...(typeof s.schedule === "string" ? { schedule: s.schedule } : { interval: s.schedule.interval }),
        timeout_ms: s.timeoutMs,
      },
      "source loaded",
    );
  }
  log.info(
    { modules: [...loaded.config.modules.keys()], scheduled_sources: loaded.config.sources.length },
    loaded.config.sources.length === 0 ? "no scheduled source: answering /probe only" : "probe modules loaded",
  );

  let running: Exporter;
  try {
    running = await Exporter.start(loaded, flags, log);
  } catch (err) {
    if (!(err instanceof ListenError)) throw err;
    log.error({ address: err.address, code: err.code }, err.message);
    return 1;
  }
  onSighup(() => {
    log.info("SIGHUP: reloading the config");
    running.reload().catch((err: unknown) => log.error({ err }, "config reload failed"));
  });
  const shutdown = (signal: string) => {
    log.info({ signal }, "shutting down");
    setTimeout(() => {
      log.warn("shutdown took too long; exiting anyway");
      process.exit(0);
    }, SHUTDOWN_GRACE_MS).unref();
    running.stop().then(
      () => {
        log.info("shutdown complete");
        process.exit(0);
      },
      (err: unknown) => {
        log.error({ err }, "error during shutdown");
        process.exit(1);
      },
    );
  };
  process.once("SIGTERM", () => shutdown("SIGTERM"));
  process.once("SIGINT", () => shutdown("SIGINT"));
  return undefined;
}

main().then(
  (code) => {
    if (code !== undefined) process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`fatal: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);
