import { type ParseArgsConfig, parseArgs } from "node:util";
import { DEFAULT_CONFIG_FILE, DEFAULT_DECODER_MEMORY_LIMIT, DEFAULT_PROBE_MAX_CONCURRENT } from "../config/defaults.js";
import { parseDuration } from "../config/duration.js";
import { parseSize } from "../config/size.js";

export const LOG_LEVELS = ["debug", "info", "warn", "error"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
/** JSON by default: the exporter's own tests and most log pipelines read its lines as JSON; logfmt as Prometheus writes. */
export const LOG_FORMATS = ["json", "logfmt"] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export interface Flags {
  configFile: string;
  /** Validate the config (and web config) and exit. */
  configCheck: boolean;
  webConfigFile: string | undefined;
  listen: { host: string | undefined; port: number };
  listenAddress: string;
  telemetryPath: string;
  /** POST /-/reload is served only with --web.enable-lifecycle, as in Prometheus and Alertmanager. */
  enableLifecycle: boolean;
  /** Heap of each decoder thread; an answer needing more fails its poll as too_large. */
  decoderMemoryLimitBytes: number;
  /** Subtracted from Prometheus's scrape timeout to get a probe's budget (--probe.timeout-offset). */
  probeTimeoutOffsetMs: number;
  /** Probes that may poll upstreams at once; more are answered 503 (--probe.max-concurrent). */
  probeMaxConcurrent: number;
  /** Requests of the telemetry path served at once, 0 for no limit; more are answered 503 (--web.max-requests). */
  webMaxRequests: number;
  /** A response of the telemetry path that makes no progress for this long is closed; 0: never (--web.stall-timeout). */
  webStallTimeoutMs: number;
  logLevel: LogLevel;
  logFormat: LogFormat;
  help: boolean;
  version: boolean;
}

export const DEFAULT_LISTEN_ADDRESS = ":9816";
// As node_exporter's --web.max-requests (node_exporter.go, v1.12.1).
export const DEFAULT_WEB_MAX_REQUESTS = 40;
// Far longer than any scrape's timeout: a scraper that reads nothing for this long has gone.
export const DEFAULT_WEB_STALL_TIMEOUT = "1m";
const MAX_TIMER_MS = 2 ** 31 - 1;

export const USAGE = `Usage: prometheus-status-exporter [flags]

Flags:
  --config.file=PATH            exporter config file (default ${DEFAULT_CONFIG_FILE})
  --config.check                validate the config file (and --web.config.file) and exit 0 or 1
  --web.config.file=PATH        TLS and basic auth for the exporter's own endpoints (exporter-toolkit format)
  --web.listen-address=ADDR     address to serve on, [host]:port (default ${DEFAULT_LISTEN_ADDRESS})
  --web.telemetry-path=PATH     path of the metrics (default /metrics)
  --web.max-requests=N          requests of the metrics path served at once; more are answered 503
                                (0: no limit; default ${DEFAULT_WEB_MAX_REQUESTS})
  --web.stall-timeout=DUR       close a response of the metrics path that makes no progress for this long
                                (a write of about 1 MiB, plain or gzipped, not taken), freeing
                                its place (at most 24d; 0s: never; default ${DEFAULT_WEB_STALL_TIMEOUT})
  --web.enable-lifecycle        allow reloading the config with POST /-/reload (SIGHUP always works)
  --decoder.memory-limit=SIZE   heap of each thread that parses answers; answers over a quarter of it, or
                                whose parse it could not hold (estimated first), are refused as too_large
                                before parsing (default ${DEFAULT_DECODER_MEMORY_LIMIT / 2 ** 20}MiB)
  --probe.timeout-offset=DUR    subtracted from Prometheus's scrape timeout for a /probe (default 500ms)
  --probe.max-concurrent=N      probes polling upstreams at once; more are answered 503 (default 8 per CPU,
                                ${DEFAULT_PROBE_MAX_CONCURRENT} here)
  --log.level=LEVEL             ${LOG_LEVELS.join(", ")} (default info)
  --log.format=FORMAT           ${LOG_FORMATS.join(" or ")} (default json)
  --version                     print the version and exit
  -h, --help                    print this help and exit
`;

// A decoder thread itself needs a few MB; below this it could not parse even a modest answer.
const MIN_DECODER_MEMORY = 32 * 2 ** 20;

export class FlagError extends Error {
  override name = "FlagError";
}

const OPTIONS = {
  "config.file": { type: "string", default: DEFAULT_CONFIG_FILE },
  "config.check": { type: "boolean", default: false },
  "web.config.file": { type: "string" },
  "web.listen-address": { type: "string", default: DEFAULT_LISTEN_ADDRESS },
  "web.telemetry-path": { type: "string", default: "/metrics" },
  "web.max-requests": { type: "string", default: String(DEFAULT_WEB_MAX_REQUESTS) },
  "web.stall-timeout": { type: "string", default: DEFAULT_WEB_STALL_TIMEOUT },
  "web.enable-lifecycle": { type: "boolean", default: false },
  "decoder.memory-limit": { type: "string", default: `${DEFAULT_DECODER_MEMORY_LIMIT / 2 ** 20}MiB` },
  "probe.timeout-offset": { type: "string", default: "500ms" },
  "probe.max-concurrent": { type: "string", default: String(DEFAULT_PROBE_MAX_CONCURRENT) },
  "log.level": { type: "string", default: "info" },
  "log.format": { type: "string", default: "json" },
  version: { type: "boolean", default: false },
  help: { type: "boolean", short: "h", default: false },
} satisfies NonNullable<ParseArgsConfig["options"]>;
const FLAG_NAMES = Object.keys(OPTIONS);

const BOOLEAN_FLAGS = new Set(FLAG_NAMES.filter((name) => OPTIONS[name as keyof typeof OPTIONS].type === "boolean"));

/**
 * One argument as node:util's parseArgs takes it. `--flag=true` and `--flag=false` for a boolean flag are
 * taken (kingpin, which Prometheus's flags use, takes them); a long flag with one dash (`-config.file=x`,
 * Go's flag package style) would be read as a cluster of short flags (`-c`, `-o`, ...): it is named.
 */
function asParsed(arg: string): string[] {
  const bool = /^--([a-z.-]+)=(true|false)$/.exec(arg);
  if (bool && BOOLEAN_FLAGS.has(bool[1] as string)) return bool[2] === "true" ? [`--${bool[1]}`] : [];
  const oneDash = /^-([a-z][a-z-]*\.[a-z.-]+|version|help)(=.*)?$/.exec(arg);
  if (oneDash) throw new FlagError(`${arg}: flags take two dashes: --${oneDash[1]}${oneDash[2] ?? ""}`);
  return [arg];
}

/** The known flag nearest to a misspelt one (at most two letters off), for the message. */
function nearestFlag(name: string): string | undefined {
  let best: string | undefined;
  let bestDistance = 3;
  for (const flag of FLAG_NAMES) {
    const d = editDistance(name, flag);
    if (d < bestDistance) [best, bestDistance] = [flag, d];
  }
  return best;
}

/** Levenshtein distance: letters added, removed or changed to make one word the other. */
function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++)
      next[j] = Math.min(
        (row[j] as number) + 1,
        (next[j - 1] as number) + 1,
        (row[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    row = next;
  }
  return row[b.length] as number;
}

/**
 * The paths the HTTP app (src/http/app.ts) serves besides the metrics, with what each is: a telemetry
 * path on one of them would hide it, or be hidden by it.
 */
const OTHER_ENDPOINTS = new Map([
  ["/", "the status page"],
  ["/probe", "the probe endpoint"],
  ["/logs", "the probe logs"],
  ["/-/healthy", "the health check"],
  ["/-/ready", "the readiness check"],
  ["/-/reload", "the reload endpoint"],
]);

/** Express reads these in a route's path as a pattern, not as themselves (`/:name` matches every one-segment path). */
const ROUTE_PATTERN = /[:*?+()[\]{}!\\]/;

/**
 * A path of the metrics' own. Express matches a route regardless of case and of trailing slashes
 * (`/Probe/` is `/probe`), so the other endpoints are compared the same way.
 */
function checkTelemetryPath(path: string): void {
  const flag = "--web.telemetry-path";
  if (!path.startsWith("/")) throw new FlagError(`${flag}: must start with /, got "${path}"`);
  const special = ROUTE_PATTERN.exec(path)?.[0];
  if (special) {
    throw new FlagError(
      `${flag}: "${special}" is not allowed (Express would read the path as a pattern), got "${path}"`,
    );
  }
  const matched = path.toLowerCase().replace(/\/+$/, "") || "/";
  const other = OTHER_ENDPOINTS.get(matched);
  if (other) {
    const why = path === matched ? "" : " (paths match regardless of case and trailing slashes)";
    throw new FlagError(`${flag}: "${path}" clashes with ${matched}, ${other}${why}; choose another path`);
  }
}

/** Parses command-line flags in the Prometheus style (`--config.file=...`). Throws FlagError. */
export function parseFlags(argv: readonly string[]): Flags {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv.flatMap(asParsed),
      strict: true,
      allowPositionals: false,
      options: OPTIONS,
    }));
  } catch (err) {
    const message = (err as Error).message;
    const unknown = /^Unknown option '--([^']+)'/.exec(message)?.[1];
    const near = unknown === undefined ? undefined : nearestFlag(unknown.split("=")[0] as string);
    throw new FlagError(near ? `${message} (did you mean --${near}?)` : message);
  }
  const logLevel = values["log.level"] as string;
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) {
    throw new FlagError(`--log.level: must be one of ${LOG_LEVELS.join(", ")}, got "${logLevel}"`);
  }
  const logFormat = values["log.format"] as string;
  if (!(LOG_FORMATS as readonly string[]).includes(logFormat)) {
    throw new FlagError(`--log.format: must be one of ${LOG_FORMATS.join(", ")}, got "${logFormat}"`);
  }
  const telemetryPath = values["web.telemetry-path"] as string;
  checkTelemetryPath(telemetryPath);
  const listenAddress = values["web.listen-address"] as string;
  const memoryLimit = values["decoder.memory-limit"] as string;
  const decoderMemoryLimitBytes = parseSize(memoryLimit);
  if (decoderMemoryLimitBytes === undefined || decoderMemoryLimitBytes < MIN_DECODER_MEMORY) {
    throw new FlagError(
      `--decoder.memory-limit: expected a size of at least 32MiB such as 384MiB or 1GiB, got "${memoryLimit}"`,
    );
  }
  const offset = values["probe.timeout-offset"] as string;
  const probeTimeoutOffsetMs = parseDuration(offset);
  if (probeTimeoutOffsetMs === undefined) {
    throw new FlagError(`--probe.timeout-offset: expected a duration such as 500ms or 1s, got "${offset}"`);
  }
  const maxConcurrent = values["probe.max-concurrent"] as string;
  const probeMaxConcurrent = /^\d{1,9}$/.test(maxConcurrent) ? Number(maxConcurrent) : 0;
  if (probeMaxConcurrent < 1) {
    throw new FlagError(
      `--probe.max-concurrent: expected a whole number of at least 1 such as 16, got "${maxConcurrent}"`,
    );
  }
  const maxRequests = values["web.max-requests"] as string;
  if (!/^\d{1,9}$/.test(maxRequests)) {
    throw new FlagError(
      `--web.max-requests: expected a whole number such as 40 (0 for no limit), got "${maxRequests}"`,
    );
  }
  const stall = values["web.stall-timeout"] as string;
  const webStallTimeoutMs = parseDuration(stall);
  if (webStallTimeoutMs === undefined) {
    throw new FlagError(`--web.stall-timeout: expected a duration such as 1m or 30s (0s: never), got "${stall}"`);
  }
  // Node's timers hold 2^31-1 ms (~24.8 days): more was cut to that with a TimeoutOverflowWarning on stderr per scrape.
  if (webStallTimeoutMs > MAX_TIMER_MS) {
    throw new FlagError(`--web.stall-timeout: at most 24d (0s: never), got "${stall}"`);
  }
  return {
    configFile: values["config.file"] as string,
    configCheck: values["config.check"] === true,
    webConfigFile: (values["web.config.file"] as string | undefined) || undefined,
    listen: parseListenAddress(listenAddress),
    listenAddress,
    telemetryPath,
    enableLifecycle: values["web.enable-lifecycle"] === true,
    decoderMemoryLimitBytes,
    probeTimeoutOffsetMs,
    probeMaxConcurrent,
    webMaxRequests: Number(maxRequests),
    webStallTimeoutMs,
    logLevel: logLevel as LogLevel,
    logFormat: logFormat as LogFormat,
    help: values.help === true,
    version: values.version === true,
  };
}

/** `[host]:port`, `host:port` or `[::1]:port`; an empty host listens on every interface. */
export function parseListenAddress(address: string): { host: string | undefined; port: number } {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(address);
  const port = Number(match?.[3]);
  if (!match || port > 65535) {
    throw new FlagError(`--web.listen-address: expected [host]:port such as :9816 or 127.0.0.1:9816, got "${address}"`);
  }
  const host = match[1] ?? match[2];
  return { host: host ? host : undefined, port };
}
