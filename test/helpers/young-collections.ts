import { constants, type PerformanceEntry, PerformanceObserver } from "node:perf_hooks";

/** The young-generation collections (scavenges or minor mark-sweeps) run while `work` runs (awaited). */
export async function youngCollections(work: () => unknown): Promise<number> {
  const entries: PerformanceEntry[] = [];
  const observer = new PerformanceObserver((list) => entries.push(...list.getEntries()));
  observer.observe({ entryTypes: ["gc"] });
  const young = (e: PerformanceEntry) => {
    const kind = (e as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind ?? 0;
    return kind === constants.NODE_PERFORMANCE_GC_MINOR || kind === 2; // 2: V8's minor mark-sweep
  };
  const before = entries.filter(young).length;
  await work();
  // gc entries are delivered after the collection, on a later tick
  await new Promise((resolve) => setTimeout(resolve, 50));
  observer.disconnect();
  return entries.filter(young).length - before;
}
