// Realistic upstream answers for the benchmark: targets shaped as Prometheus 2.4x returns them
// (discovered labels with Kubernetes meta labels, relabelled labels, lastError on some, mixed health),
// listed as a real server lists them from one request to the next.
//
// What a real Prometheus does, and TargetsRounds follows, read in prometheus/prometheus at v2.42.0 and
// v3.14.0 (the same at both):
// - web/api/v1/api.go `func (api *API) targets`: scrape pools are listed sorted by name (slices.Sort of
//   the keys of TargetsActive()); each pool's targets in the order its slice has.
// - scrape/manager.go `(*Manager).TargetsActive` fills a map of pool name to `sp.ActiveTargets()`;
//   scrape/scrape.go `(*scrapePool).ActiveTargets` appends `range sp.activeTargets`, a
//   map[uint64]*Target: Go map iteration order, random again on every request.
// - Labels are maps, written by jsoniter's ConfigCompatibleWithStandardLibrary (api.go `respond`):
//   keys sorted. globalUrl differs from scrapeUrl only for a loopback host (api.go `getGlobalURL`).
// - scrape/target.go `(*Target).Report` sets lastScrape to the scrape's append time, which
//   scrape/scrape.go `(*scrapeLoop).run` aligns to the loop's first scrape plus whole intervals
//   (within --scrape.timestamp-tolerance, 2 ms): lastScrape moves by exactly one interval per
//   interval, nanoseconds kept; lastScrapeDuration changes with every scrape. JSON of a Go time.Time:
//   RFC 3339 with nanoseconds, trailing zeros cut; a target never scraped ("unknown") has Go's zero
//   time and a duration of 0.
// Debian's Prometheus 2.42 (300 file_sd targets in 3 pools configured unsorted, scraped every 1 s):
// between two answers, no target kept its index, every target's labels, pool and URLs were the same
// bytes, lastScrape had moved by exactly 1 s, pools came sorted; big answers are sent chunked.
// Health and lastError of a generated target do not change between rounds (a real one's change when
// a scrape's outcome does).

/** A small deterministic PRNG (mulberry32) so every run measures the same answers. */
export function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

const POOLS = ["node", "kubelet", "cadvisor", "kube-state-metrics", "app-frontend", "app-backend", "postgres", "redis"];
const INTERVAL_MS = 30_000;
const START_MS = Date.parse("2026-11-21T05:00:00Z");
const HEALTH = ["up", "down", "unknown"] as const;
const UNKNOWN = 2;

const ascii = (s: string) => Uint8Array.from(Buffer.from(s, "latin1"));
const OPEN = ascii('{"status":"success","data":{"activeTargets":[');
const CLOSE = ascii('],"droppedTargets":[]}}');
const DURATION = ascii('","lastScrapeDuration":');
const TAIL = HEALTH.map((h) => ascii(`,"health":"${h}","scrapeInterval":"30s","scrapeTimeout":"10s"}`));
const NEVER = ascii(
  `0001-01-01T00:00:00Z","lastScrapeDuration":0,"health":"unknown","scrapeInterval":"30s","scrapeTimeout":"10s"}`,
);
/** The most a target's moving fields take: the comma before it, time, duration, the rest. */
const MOVING_MAX = 1 + 30 + DURATION.length + 11 + Math.max(...TAIL.map((t) => t.length), NEVER.length);

/** Copies a few bytes: a loop beats a native call at this size. */
function put(out: Uint8Array, at: number, bytes: Uint8Array): number {
  for (let k = 0; k < bytes.length; k++) out[at + k] = bytes[k] as number;
  return at + bytes.length;
}

/** ".ddddddddd" for nanoseconds 1..999,999,999, trailing zeros cut (Go's RFC3339Nano, strconv 'f' -1). */
function putFraction(out: Uint8Array, at: number, ns: number): number {
  if (ns === 0) return at;
  let digits = 9;
  while (ns % 10 === 0) {
    ns /= 10;
    digits--;
  }
  out[at] = 0x2e; // .
  for (let k = digits; k > 0; k--) {
    out[at + k] = 0x30 + (ns % 10);
    ns = Math.floor(ns / 10);
  }
  return at + 1 + digits;
}

/**
 * A generated server's targets, answering `/api/v1/targets` round after round as a real Prometheus
 * does: the bytes that never change are built once, each answer is assembled from them in a fresh
 * order within each pool, with the times of its round. Round `r` is the answer a poll gets r scrape
 * intervals after round 0; the same (count, round) gives the same bytes.
 */
export class TargetsRounds {
  readonly count: number;
  /** Every target's bytes up to the value of its lastScrape, in generation order. */
  private readonly heads: Uint8Array;
  /** Target i's head is heads[starts[i], starts[i + 1]). */
  private readonly starts: Uint32Array;
  private readonly health: Uint8Array;
  /**
   * When in its interval a target is scraped: ms before the round's time, and nanoseconds. Fixed, as a
   * scrape loop's offset is, and its scrape times are aligned to it (so lastScrape moves by exactly the
   * interval).
   */
  private readonly phaseMs: Uint16Array;
  private readonly nanos: Uint32Array;
  /** A target's typical scrape duration, ns. */
  private readonly durationNs: Float64Array;
  /** Target indices of each pool, pools sorted by name. */
  private readonly pools: Uint32Array[];

  constructor(count: number) {
    this.count = count;
    const random = rng(count);
    this.starts = new Uint32Array(count + 1);
    this.health = new Uint8Array(count);
    this.phaseMs = new Uint16Array(count);
    this.nanos = new Uint32Array(count);
    this.durationNs = new Float64Array(count);
    let heads = Buffer.allocUnsafe(Math.max(1024, count * 800));
    let at = 0;
    const members = new Map<string, number[]>();
    const q = JSON.stringify;
    for (let i = 0; i < count; i++) {
      const pool = POOLS[i % POOLS.length] as string;
      const ip = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
      const address = `${ip}:${9100 + (i % 7)}`;
      const namespace = `team-${i % 97}`;
      const pod = `${pool}-${(i * 2654435761) % 999983}-${i % 10000}`;
      const r = random();
      const health = r < 0.9 ? 0 : r < 0.97 ? 1 : UNKNOWN;
      const url = q(`http://${address}/metrics`);
      const lastError =
        health === 1 ? `Get "http://${address}/metrics": dial tcp ${address}: connect: connection refused` : "";
      // Label names in byte order, as Go's encoder writes a map (checked by the tests).
      const head =
        `{"discoveredLabels":{"__address__":${q(address)},"__meta_kubernetes_namespace":${q(namespace)},` +
        `"__meta_kubernetes_pod_ip":${q(ip)},"__meta_kubernetes_pod_name":${q(pod)},` +
        `"__meta_kubernetes_pod_node_name":"node-${i % 500}","__meta_kubernetes_pod_ready":"true",` +
        `"__metrics_path__":"/metrics","__scheme__":"http","__scrape_interval__":"30s","__scrape_timeout__":"10s",` +
        `"job":${q(pool)}},"labels":{"instance":${q(address)},"job":${q(pool)},"namespace":${q(namespace)},` +
        `"pod":${q(pod)}},"scrapePool":${q(pool)},"scrapeUrl":${url},"globalUrl":${url},` +
        `"lastError":${q(lastError)},"lastScrape":"`;
      const length = Buffer.byteLength(head);
      if (at + length > heads.length) {
        const grown = Buffer.allocUnsafe(Math.max(heads.length * 2, at + length));
        heads.copy(grown, 0, 0, at);
        heads = grown;
      }
      at += heads.write(head, at, "utf8");
      if (at >= 2 ** 32) throw new Error("TargetsRounds: over 4 GiB of targets");
      this.starts[i + 1] = at;
      this.health[i] = health;
      this.phaseMs[i] = Math.floor(random() * INTERVAL_MS);
      this.nanos[i] = Math.floor(random() * 1_000_000);
      this.durationNs[i] = Math.round((health === 1 ? 0.0002 + random() * 0.002 : 0.002 + random() * 0.2) * 1e9);
      const list = members.get(pool) ?? [];
      list.push(i);
      members.set(pool, list);
    }
    this.heads = new Uint8Array(heads.buffer, heads.byteOffset, at);
    this.pools = [...members.keys()].sort().map((pool) => Uint32Array.from(members.get(pool) as number[]));
  }

  /** The answer of round `round` (0, 1, 2, ...): new times, and each pool's targets in a new order. */
  answer(round: number): Buffer {
    const random = rng(Math.imul(this.count, 0x9e3779b1) ^ Math.imul(round + 1, 0x85ebca6b));
    const out = Buffer.allocUnsafe(OPEN.length + this.heads.length + this.count * MOVING_MAX + CLOSE.length);
    const { heads, starts, health, phaseMs, nanos, durationNs } = this;
    let at = put(out, 0, OPEN);
    const seconds = new Map<number, Uint8Array>();
    const roundMs = START_MS + round * INTERVAL_MS;
    let first = true;
    for (const members of this.pools) {
      const order = members.slice();
      for (let k = order.length - 1; k > 0; k--) {
        const j = Math.floor(random() * (k + 1));
        const t = order[k] as number;
        order[k] = order[j] as number;
        order[j] = t;
      }
      for (let n = 0; n < order.length; n++) {
        const i = order[n] as number;
        if (!first) out[at++] = 0x2c; // ,
        first = false;
        const start = starts[i] as number;
        const end = starts[i + 1] as number;
        out.set(heads.subarray(start, end), at);
        at += end - start;
        const h = health[i] as number;
        if (h === UNKNOWN) {
          at = put(out, at, NEVER);
          continue;
        }
        // Scraped at its phase of the round's interval; the duration varies by ±25%.
        const ms = roundMs - (phaseMs[i] as number);
        const second = Math.floor(ms / 1000);
        let prefix = seconds.get(second);
        if (!prefix) {
          prefix = ascii(new Date(second * 1000).toISOString().slice(0, 19));
          seconds.set(second, prefix);
        }
        at = put(out, at, prefix);
        at = putFraction(out, at, (ms - second * 1000) * 1_000_000 + (nanos[i] as number));
        out[at++] = 0x5a; // Z
        at = put(out, at, DURATION);
        out[at++] = 0x30; // 0: every duration is under a second
        at = putFraction(
          out,
          at,
          Math.min(999_999_999, Math.round((durationNs[i] as number) * (0.75 + random() * 0.5))),
        );
        at = put(out, at, TAIL[h] as Uint8Array);
      }
    }
    at = put(out, at, CLOSE);
    return out.subarray(0, at);
  }
}

/** Round `round` of a generated server with `count` targets, as a string. */
export function targetsAnswer(count: number, round = 0): string {
  return new TargetsRounds(count).answer(round).toString("utf8");
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
