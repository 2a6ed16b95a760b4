// Prometheus duration syntax (model.ParseDuration): units in decreasing order, each at most once.
const UNITS_MS = { y: 365 * 86_400_000, w: 7 * 86_400_000, d: 86_400_000, h: 3_600_000, m: 60_000, s: 1000, ms: 1 };
const DURATION = /^(?:(\d+)y)?(?:(\d+)w)?(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?(?:(\d+)ms)?$/;

/** Milliseconds for a Prometheus-style duration such as `500ms`, `10s` or `1m30s`; undefined if malformed. */
export function parseDuration(text: string): number | undefined {
  if (text === "" || text === "0") return text === "0" ? 0 : undefined;
  const match = DURATION.exec(text);
  if (!match) return undefined;
  const factors = Object.values(UNITS_MS);
  let total = 0;
  for (let i = 0; i < factors.length; i++) {
    const part = match[i + 1];
    if (part !== undefined) total += Number(part) * (factors[i] as number);
  }
  return total;
}
