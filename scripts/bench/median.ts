/** The middle value (the upper of the two middle ones for an even count); NaN for none. */
export function median(xs: readonly number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted.length ? (sorted[Math.floor(sorted.length / 2)] as number) : Number.NaN;
}
