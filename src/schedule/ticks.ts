import { createTask } from "node-cron";
import type { Logger } from "pino";
import type { PollSchedule } from "../config/types.js";

/** A running schedule; once `stop` resolves it calls back no more. */
export interface Ticks {
  stop(): Promise<void>;
}

/**
 * Calls `tick` at the times a cron expression names, or every `intervalMs` from now. An interval is a
 * timer, not a cron expression: a cron step restarts each minute (a 45-second step fires at :00 and
 * :45) and cannot say 1m30s.
 */
export function startTicks(schedule: PollSchedule, tick: () => void, name: string, log: Logger): Ticks {
  if (typeof schedule !== "string") {
    const timer = setInterval(tick, schedule.intervalMs);
    return { stop: async () => clearInterval(timer) };
  }
  const task = createTask(schedule, tick, { name, logger: cronLogger(log) });
  void task.start();
  return {
    stop: async () => {
      await task.destroy();
    },
  };
}

function cronLogger(log: Logger) {
  const text = (m: string | Error) => (m instanceof Error ? m.message : m);
  return {
    info: (m: string) => log.debug({ component: "node-cron" }, m),
    warn: (m: string) => log.warn({ component: "node-cron" }, m),
    error: (m: string | Error) => log.error({ component: "node-cron" }, text(m)),
    debug: (m: string | Error) => log.debug({ component: "node-cron" }, text(m)),
  };
}
