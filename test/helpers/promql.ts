export interface InstantSample {
  metric: Record<string, string>;
  value: [number, string];
}

/** An instant PromQL query against a real Prometheus. */
export async function instantQuery(prometheusUrl: string, expr: string): Promise<InstantSample[]> {
  const res = await fetch(`${prometheusUrl}/api/v1/query?query=${encodeURIComponent(expr)}`);
  if (!res.ok) throw new Error(`query ${expr}: HTTP ${res.status} ${await res.text()}`);
  return ((await res.json()) as { data: { result: InstantSample[] } }).data.result;
}
