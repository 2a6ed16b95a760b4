import { type DestinationStream, type Logger, pino } from "pino";
import type { LogFormat, LogLevel } from "./cli/flags.js";
import { toLogfmt } from "./logfmt.js";

/** Log lines on stdout, as container platforms collect them: JSON, or logfmt as Prometheus's own tools write. */
export function createLogger(level: LogLevel, format: LogFormat = "json"): Logger {
  const options = { level, base: { app: "prometheus-status-exporter" }, timestamp: pino.stdTimeFunctions.isoTime };
  if (format === "json") return pino(options);
  const stdout = pino.destination({ dest: 1, sync: true });
  const logfmt: DestinationStream = { write: (line: string) => stdout.write(toLogfmt(line)) };
  return pino(options, logfmt);
}
