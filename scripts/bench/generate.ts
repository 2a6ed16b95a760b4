// Realistic upstream answers for the benchmark: targets shaped as Prometheus 2.4x returns them
// (discovered labels with Kubernetes meta labels, relabelled labels, lastError on some, mixed health).

/** A small deterministic PRNG so every run measures the same answers. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const POOLS = ["node", "kubelet", "cadvisor", "kube-state-metrics", "app-frontend", "app-backend", "postgres", "redis"];

/**
 * `round` moves what changes between two polls of a real server (last scrape times, scrape durations),
 * keeping the targets and their health, so consecutive polls do not publish identical lines.
 */
export function targetsAnswer(count: number, round = 0): string {
  const random = rng(count);
  const timing = rng(count * 31 + round + 1);
  const activeTargets = new Array(count);
  const now = Date.parse("2026-11-21T05:00:00Z") + round * 30_000;
  for (let i = 0; i < count; i++) {
    const pool = POOLS[i % POOLS.length] as string;
    const ip = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
    const address = `${ip}:${9100 + (i % 7)}`;
    const namespace = `team-${i % 97}`;
    const pod = `${pool}-${(i * 2654435761) % 999983}-${i % 10000}`;
    const r = random();
    const health = r < 0.9 ? "up" : r < 0.97 ? "down" : "unknown";
    activeTargets[i] = {
      discoveredLabels: {
        __address__: address,
        __meta_kubernetes_namespace: namespace,
        __meta_kubernetes_pod_name: pod,
        __meta_kubernetes_pod_ip: ip,
        __meta_kubernetes_pod_node_name: `node-${i % 500}`,
        __meta_kubernetes_pod_ready: "true",
        __metrics_path__: "/metrics",
        __scheme__: "http",
        __scrape_interval__: "30s",
        __scrape_timeout__: "10s",
        job: pool,
      },
      labels: { instance: address, job: pool, namespace, pod },
      scrapePool: pool,
      scrapeUrl: `http://${address}/metrics`,
      globalUrl: `http://${pod}:${9100 + (i % 7)}/metrics`,
      lastError:
        health === "down" ? `Get "http://${address}/metrics": dial tcp ${address}: connect: connection refused` : "",
      lastScrape: health === "unknown" ? "0001-01-01T00:00:00Z" : new Date(now - timing() * 30_000).toISOString(),
      lastScrapeDuration: health === "unknown" ? 0 : timing() * 0.2,
      health,
      scrapeInterval: "30s",
      scrapeTimeout: "10s",
    };
  }
  return JSON.stringify({ status: "success", data: { activeTargets, droppedTargets: [] } });
}

/** Targets with only the fields Prometheus always sends: little JSON, many series per byte to convert. */
export function leanTargetsAnswer(count: number): string {
  const activeTargets = Array.from({ length: count }, (_, i) => ({
    labels: { job: "j", instance: `i${i}` },
    scrapePool: "j",
    health: "up",
    lastScrape: "2026-11-21T05:00:00Z",
    lastScrapeDuration: 0.1,
    lastError: "",
    scrapeInterval: "30s",
    scrapeTimeout: "10s",
  }));
  return JSON.stringify({ status: "success", data: { activeTargets, droppedTargets: [] } });
}

/**
 * A lean answer whose last target names a field twice: valid JSON (the last value wins) that the fast
 * path leaves to the reference path, JSON.parse and the schema, with the memory they take.
 */
export function referencePathTargetsAnswer(count: number): string {
  const text = leanTargetsAnswer(count);
  const at = text.lastIndexOf('"health":"up"');
  return `${text.slice(0, at)}"health":"up",${text.slice(at)}`;
}

export function tsdbAnswer(limit: number): string {
  const list = (prefix: string, n: number, value: (i: number) => number) =>
    Array.from({ length: n }, (_, i) => ({ name: `${prefix}${i}`, value: value(i) }));
  return JSON.stringify({
    status: "success",
    data: {
      headStats: {
        numSeries: 12_345_678,
        numLabelPairs: 456_789,
        chunkCount: 23_456_789,
        minTime: 1795230000000,
        maxTime: 1795237200000,
      },
      seriesCountByMetricName: list("metric_name_", limit, (i) => 1_000_000 - i),
      labelValueCountByLabelName: list("label_", limit, (i) => 500_000 - i),
      memoryInBytesByLabelName: list("label_", limit, (i) => 90_000_000 - i),
      seriesCountByLabelValuePair: list("pair_label=value_", limit, (i) => 800_000 - i),
    },
  });
}
