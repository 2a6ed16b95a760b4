// pino's JSON lines rewritten as logfmt, the format of Prometheus's own tools (go-kit/slog):
// `ts=… level=info msg="…" key=value`. Pure: one JSON line in, one logfmt line out. Whatever pino's
// serializers and redaction left out of the JSON line is not in the logfmt one either.

const LEVELS: Record<number, string> = { 10: "trace", 20: "debug", 30: "info", 40: "warn", 50: "error", 60: "fatal" };

/** A value as logfmt writes it: bare when it can be, else quoted with `"`, `\` and control characters escaped. */
export function logfmtValue(value: unknown): string {
  const text = typeof value === "string" ? value : value === undefined ? "" : JSON.stringify(value);
  if (text !== "" && !/[\s"=\\\p{Cc}]/u.test(text)) return text;
  return JSON.stringify(text);
}

/** Adds `key=value` pairs of `value` to `out`, nested objects as dotted keys (`address.port=9816`). */
function pairs(out: string[], key: string, value: unknown): void {
  if (value !== null && typeof value === "object" && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value)) pairs(out, key ? `${key}.${k}` : k, v);
    return;
  }
  out.push(`${key}=${logfmtValue(value)}`);
}

/** One of pino's JSON lines as a logfmt line (a line that is not JSON is passed as it is). */
export function toLogfmt(line: string): string {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  const { time, level, msg, ...rest } = record;
  const out: string[] = [];
  if (time !== undefined) pairs(out, "ts", time);
  pairs(out, "level", typeof level === "number" ? (LEVELS[level] ?? level) : level);
  if (msg !== undefined) pairs(out, "msg", msg);
  for (const [key, value] of Object.entries(rest)) pairs(out, key, value);
  return `${out.join(" ")}\n`;
}
