// A model of Prometheus 3.x's `GET /api/v1/targets`, for behaviour Debian's Prometheus 2.42 cannot show.
// Follows prometheus/prometheus web/api/v1/api.go at v3.5.0 (func (api *API) targets, and the
// Target / DroppedTarget / TargetDiscovery types; the same logic since v2.47.0):
// - `state` is lower-cased; "" and "any" show active and dropped, "active" only active, "dropped"
//   only dropped; anything else shows neither.
// - droppedTargetCounts is set only when dropped targets are shown, from TargetsDroppedCounts(),
//   which has every scrape pool (zeros included) and counts all dropped targets, also those that
//   keep_dropped_targets leaves out of the list (scrape/scrape.go, droppedTargetsCount). When not
//   shown it stays nil: JSON null.
// - A list that is not shown is an empty array, never null.
// - Active targets carry scrapeInterval and scrapeTimeout (Go durations, e.g. "15s").
// - `scrapePool` filters both lists, but not the counts.

export interface ModelTarget {
  scrapePool: string;
  labels: Record<string, string>;
  health: "up" | "down" | "unknown";
  lastError?: string;
  lastScrapeDuration?: number;
  scrapeInterval?: string;
  scrapeTimeout?: string;
}

export interface ModelPool {
  name: string;
  /** Dropped targets kept in memory (at most keep_dropped_targets of them). */
  keptDropped: Record<string, string>[];
  /** All dropped targets of the pool, kept or not. */
  droppedCount: number;
}

export interface ModelServer {
  active: ModelTarget[];
  pools: ModelPool[];
}

export function prometheus3Targets(server: ModelServer, query: URLSearchParams): string {
  const state = (query.get("state") ?? "").toLowerCase();
  const scrapePool = query.get("scrapePool") ?? "";
  const showActive = state === "" || state === "any" || state === "active";
  const showDropped = state === "" || state === "any" || state === "dropped";
  const inPool = (pool: string) => scrapePool === "" || pool === scrapePool;
  const activeTargets = showActive
    ? [...server.active]
        .sort((a, b) => (a.scrapePool < b.scrapePool ? -1 : a.scrapePool > b.scrapePool ? 1 : 0))
        .filter((t) => inPool(t.scrapePool))
        .map((t) => ({
          discoveredLabels: { __address__: t.labels.instance ?? "", job: t.scrapePool },
          labels: t.labels,
          scrapePool: t.scrapePool,
          scrapeUrl: `http://${t.labels.instance ?? ""}/metrics`,
          globalUrl: `http://${t.labels.instance ?? ""}/metrics`,
          lastError: t.lastError ?? "",
          lastScrape: "2026-11-22T10:00:00.123456789Z",
          lastScrapeDuration: t.lastScrapeDuration ?? 0.01,
          health: t.health,
          scrapeInterval: t.scrapeInterval ?? "15s",
          scrapeTimeout: t.scrapeTimeout ?? "10s",
        }))
    : [];
  const droppedTargets = showDropped
    ? server.pools
        .filter((p) => inPool(p.name))
        .flatMap((p) => p.keptDropped.map((discoveredLabels) => ({ discoveredLabels, scrapePool: p.name })))
    : [];
  const droppedTargetCounts = showDropped
    ? Object.fromEntries(server.pools.map((p) => [p.name, p.droppedCount]))
    : null;
  return JSON.stringify({ status: "success", data: { activeTargets, droppedTargets, droppedTargetCounts } });
}
