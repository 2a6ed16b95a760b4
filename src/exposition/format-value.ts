/** A sample value's text: the shortest that reads back as the number, or the text format's +Inf, -Inf, NaN. */
export function formatValue(value: number): string {
  if (Number.isFinite(value)) return String(value);
  return value > 0 ? "+Inf" : value < 0 ? "-Inf" : "NaN";
}
