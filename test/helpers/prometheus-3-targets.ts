import { rng } from "../../scripts/bench/generate.js";

// A model of Prometheus 3.x's `GET /api/v1/targets`, for behaviour Debian's Prometheus 2.42 cannot show.
// Follows prometheus/prometheus web/api/v1/api.go at v3.5.0 (func (api *API) targets, and the
// Target / DroppedTarget / TargetDiscovery types; the same logic since v2.47.0, and at v3.14.0):
// - `state` is lower-cased; "" and "any" show active and dropped, "active" only active, "dropped"
//   only dropped; anything else shows neither.
// - droppedTargetCounts is set only when dropped targets are shown, from TargetsDroppedCounts(),
//   which has every scrape pool (zeros included) and counts all dropped targets, also those that
//   keep_dropped_targets leaves out of the list (scrape/scrape.go, droppedTargetsCount). When not
//   shown it stays nil: JSON null.
// - A list that is not shown is an empty array, never null. Dropped targets come by pool, pools
//   sorted, each pool's in its list's order; droppedTargetCounts is a map (keys sorted).
// - Active targets carry scrapeInterval and scrapeTimeout (Go durations, e.g. "15s").
// - `scrapePool` filters both lists, but not the counts.
// And over time, as the server answers one request after another (the same at v2.42.0 and v3.14.0):
// - Active pools are listed sorted by name; a pool's targets in Go map iteration order, a new random
//   order on every request (scrape/manager.go TargetsActive, scrape/scrape.go
//   (*scrapePool).ActiveTargets: `range sp.activeTargets`, a map[uint64]*Target). Debian's 2.42
//   shows it too: between two answers, no target of 300 kept its index.
// - A target's labels, pool and URLs are the same bytes in every answer; label names come sorted
//   (Go's JSON of a map). Its lastScrape moves by exactly one scrape interval per interval (scrape
//   times are aligned: scrape/scrape.go (*scrapeLoop).run, scrape/target.go (*Target).Report), and
//   here each request is one interval after the one before; its lastScrapeDuration changes with each
//   scrape (here when the model does not fix it). A target never scraped ("unknown") has Go's zero
//   time and a duration of 0.
// Every call of prometheus3Targets is one request to `server`: the model counts them (per object).

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

const requests = new WeakMap<ModelServer, number>();
const FIRST_SCRAPE_MS = Date.parse("2026-11-22T10:00:00.123Z");
const NANOS = 456_789; // within the ms: Go times carry nanoseconds
const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** A Prometheus duration ("15s", "1m30s", "500ms") in ms. */
function durationMs(text: string): number {
  let ms = 0;
  for (const [, n, unit] of text.matchAll(/(\d+)(ms|s|m|h|d)/g)) ms += Number(n) * (UNITS[unit as string] as number);
  return ms;
}

/** Go's JSON of a time.Time in UTC: RFC 3339, nanoseconds with trailing zeros cut. */
function goTime(ms: number): string {
  const fraction = String((ms % 1000) * 1_000_000 + NANOS)
    .padStart(9, "0")
    .replace(/0+$/, "");
  return `${new Date(ms).toISOString().slice(0, 19)}.${fraction}Z`;
}

/** A small hash, for a target's fixed phase in its interval and the orders of one request. */
function hash(text: string, seed = 0): number {
  let h = 2166136261 ^ seed;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

const sortedKeys = (labels: Record<string, string>) =>
  Object.fromEntries(Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

export function prometheus3Targets(server: ModelServer, query: URLSearchParams): string {
  const request = requests.get(server) ?? 0;
  requests.set(server, request + 1);
  const state = (query.get("state") ?? "").toLowerCase();
  const scrapePool = query.get("scrapePool") ?? "";
  const showActive = state === "" || state === "any" || state === "active";
  const showDropped = state === "" || state === "any" || state === "dropped";
  const inPool = (pool: string) => scrapePool === "" || pool === scrapePool;
  const byPool = new Map<string, ModelTarget[]>();
  for (const t of server.active) {
    const members = byPool.get(t.scrapePool) ?? [];
    members.push(t);
    byPool.set(t.scrapePool, members);
  }
  const pools = [...server.pools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const activeTargets = showActive
    ? [...byPool.keys()]
        .sort()
        .filter(inPool)
        .flatMap((pool) => {
          // This request's map iteration order: a shuffle seeded by the request and the pool.
          const random = rng(hash(pool, request));
          const order = [...(byPool.get(pool) as ModelTarget[])];
          for (let k = order.length - 1; k > 0; k--) {
            const j = Math.floor(random() * (k + 1));
            [order[k], order[j]] = [order[j] as ModelTarget, order[k] as ModelTarget];
          }
          return order;
        })
        .map((t) => {
          const interval = t.scrapeInterval ?? "15s";
          const intervalMs = Math.max(1, durationMs(interval));
          const identity = JSON.stringify([t.scrapePool, sortedKeys(t.labels)]);
          const never = t.health === "unknown";
          const phaseMs = hash(identity) % intervalMs;
          const jitter = rng(hash(identity, request))();
          return {
            discoveredLabels: { __address__: t.labels.instance ?? "", job: t.scrapePool },
            labels: sortedKeys(t.labels),
            scrapePool: t.scrapePool,
            scrapeUrl: `http://${t.labels.instance ?? ""}/metrics`,
            globalUrl: `http://${t.labels.instance ?? ""}/metrics`,
            lastError: t.lastError ?? "",
            lastScrape: never ? "0001-01-01T00:00:00Z" : goTime(FIRST_SCRAPE_MS + phaseMs + request * intervalMs),
            lastScrapeDuration: never ? 0 : (t.lastScrapeDuration ?? Math.round((0.008 + jitter * 0.004) * 1e9) / 1e9),
            health: t.health,
            scrapeInterval: interval,
            scrapeTimeout: t.scrapeTimeout ?? "10s",
          };
        })
    : [];
  const droppedTargets = showDropped
    ? pools
        .filter((p) => inPool(p.name))
        .flatMap((p) => p.keptDropped.map((labels) => ({ discoveredLabels: sortedKeys(labels), scrapePool: p.name })))
    : [];
  const droppedTargetCounts = showDropped ? Object.fromEntries(pools.map((p) => [p.name, p.droppedCount])) : null;
  return JSON.stringify({ status: "success", data: { activeTargets, droppedTargets, droppedTargetCounts } });
}
