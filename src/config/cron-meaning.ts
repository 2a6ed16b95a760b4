const FIELDS = "5 fields: minute hour day month weekday";
const USE_INTERVAL = "for every few seconds use interval, e.g. interval: 30s";

// node-cron reads 5 fields from minutes: "*/30 * * * *" runs every 30 minutes, easily taken for every
// 30 seconds, the way Prometheus users think of a poll.

/** What a 5-field cron schedule means, said as a warning; undefined for 6 fields (seconds first). */
export function fiveFieldCronWarning(expression: string): string | undefined {
  const fields = expression.trim().split(/\s+/);
  if (fields.length !== 5) return undefined;
  const [minute = "", ...rest] = fields;
  const quoted = `schedule "${expression}"`;
  if (rest.every((f) => f === "*")) {
    if (minute === "*") return `${quoted} runs every minute (${FIELDS}); ${USE_INTERVAL}`;
    const step = /^\*\/(\d+)$/.exec(minute);
    const n = Number(step?.[1]);
    if (step && n >= 1 && n <= 59) {
      const minutes = Array.from({ length: Math.ceil(60 / n) }, (_, i) => i * n);
      const when =
        n === 1
          ? "every minute"
          : 60 % n === 0
            ? `every ${n} minutes`
            : `at minutes ${minutes.join(", ")} of each hour`;
      return `${quoted} runs ${when} (${FIELDS}); for every ${n} second${n === 1 ? "" : "s"} use interval: ${n}s`;
    }
    if (/^\d+$/.test(minute) && Number(minute) <= 59)
      return `${quoted} runs once an hour, at minute ${Number(minute)} (${FIELDS}); ${USE_INTERVAL}`;
  }
  return `${quoted} has 5 fields: the first is minutes (minute hour day month weekday); ${USE_INTERVAL}`;
}
