import { type Logger, pino } from "pino";
import type { LogLevel } from "./cli/flags.js";

/** JSON lines on stdout, as container platforms collect them. */
export function createLogger(level: LogLevel): Logger {
  return pino({ level, base: { app: "prometheus-status-exporter" }, timestamp: pino.stdTimeFunctions.isoTime });
}
