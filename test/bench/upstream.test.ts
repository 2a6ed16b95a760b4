import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startUpstream } from "../../scripts/bench/processes.js";

// The benchmark's upstream answers /api/v1/targets as a real Prometheus does from one request to the
// next (scripts/bench/generate.ts says where in Prometheus's code): the same targets with the same
// bytes, pools sorted, each pool's targets in a new order, scrape times one interval later.

interface Target {
  discoveredLabels: Record<string, string>;
  labels: Record<string, string>;
  scrapePool: string;
  scrapeUrl: string;
  globalUrl: string;
  lastError: string;
  lastScrape: string;
  lastScrapeDuration: number;
  health: string;
  scrapeInterval: string;
  scrapeTimeout: string;
}

const TARGETS = 2000;
let upstream: Awaited<ReturnType<typeof startUpstream>>;
const answers: { encoding: string | null; transfer: string | null; targets: Target[] }[] = [];

beforeAll(async () => {
  upstream = await startUpstream(TARGETS);
  for (const encoding of ["gzip", "gzip", "identity"]) {
    const res = await fetch(`${upstream.url}/api/v1/targets`, { headers: { "accept-encoding": encoding } });
    const body = (await res.json()) as { data: { activeTargets: Target[] } };
    answers.push({
      encoding: res.headers.get("content-encoding"),
      transfer: res.headers.get("transfer-encoding"),
      targets: body.data.activeTargets,
    });
  }
}, 60_000);

afterAll(() => {
  upstream?.child.kill();
});

/** What never changes between answers, as the bytes the server writes (field and key order kept). */
const identity = (t: Target) =>
  JSON.stringify([t.discoveredLabels, t.labels, t.scrapePool, t.scrapeUrl, t.globalUrl, t.scrapeInterval]);
const pairs = () => [0, 1].map((k) => [answers[k]?.targets ?? [], answers[k + 1]?.targets ?? []] as const);

describe("bench upstream: /api/v1/targets over time", () => {
  it("sends gzip when asked and plain otherwise, chunked", () => {
    expect(answers.map((a) => [a.encoding, a.transfer])).toEqual([
      ["gzip", "chunked"],
      ["gzip", "chunked"],
      [null, "chunked"],
    ]);
  });

  it("sends plain in one chunk and gzip in 2048-byte chunks, as Prometheus 2.42 did (measured)", async () => {
    const plain = await chunkSizes(upstream.url, "identity");
    const gzip = await chunkSizes(upstream.url, "gzip");
    expect(plain.length).toBe(1);
    expect(gzip.length).toBeGreaterThan(10);
    expect(gzip.slice(0, -1).every((n) => n === 2048)).toBe(true);
    expect(gzip.at(-1)).toBeLessThanOrEqual(2048);
  });

  it("sends a small answer (tsdb) with a Content-Length, not chunked, as Prometheus 2.42 did (measured)", async () => {
    for (const encoding of ["gzip", "identity"]) {
      const res = await fetch(`${upstream.url}/api/v1/status/tsdb`, { headers: { "accept-encoding": encoding } });
      const body = Buffer.from(await res.arrayBuffer()); // gunzipped by fetch
      expect(res.headers.get("transfer-encoding")).toBeNull();
      const length = Number(res.headers.get("content-length"));
      expect(length).toBeGreaterThan(0);
      expect(length).toBeLessThanOrEqual(2048);
      if (encoding === "identity") expect(length).toBe(body.length);
    }
  });

  it("lists the same targets with the same labels, pool and URLs in consecutive answers", () => {
    for (const [a, b] of pairs()) {
      expect(a).toHaveLength(TARGETS);
      expect(new Set(b.map(identity))).toEqual(new Set(a.map(identity)));
      expect(new Set(a.map(identity)).size).toBe(TARGETS);
    }
  });

  it("lists pools sorted, each pool's targets together, label names sorted", () => {
    for (const { targets } of answers) {
      const runs = targets.map((t) => t.scrapePool).filter((p, i, all) => i === 0 || all[i - 1] !== p);
      expect(runs).toEqual([...new Set(runs)].sort());
      expect(runs.length).toBe(8);
      for (const t of targets.slice(0, 50))
        for (const labels of [t.discoveredLabels, t.labels])
          expect(Object.keys(labels)).toEqual(Object.keys(labels).sort());
    }
  });

  it("lists each pool's targets in a new order on every request", () => {
    for (const [a, b] of pairs()) {
      const kept = a.filter((t, i) => b[i]?.scrapeUrl === t.scrapeUrl).length;
      expect(kept).toBeLessThan(TARGETS * 0.05); // a random order keeps about one target per pool in place
      for (const pool of new Set(a.map((t) => t.scrapePool))) {
        const order = (list: Target[]) => list.filter((t) => t.scrapePool === pool).map((t) => t.scrapeUrl);
        expect(order(b)).not.toEqual(order(a));
      }
    }
  });

  it("moves every scraped target's lastScrape on by exactly its interval and changes its duration", () => {
    for (const [a, b] of pairs()) {
      const next = new Map(b.map((t) => [t.scrapeUrl, t]));
      let durationsChanged = 0;
      let scraped = 0;
      for (const t of a) {
        const later = next.get(t.scrapeUrl) as Target;
        expect([later.health, later.lastError]).toEqual([t.health, t.lastError]);
        if (t.health === "unknown") {
          expect([t.lastScrape, later.lastScrape, later.lastScrapeDuration]).toEqual([
            "0001-01-01T00:00:00Z",
            "0001-01-01T00:00:00Z",
            0,
          ]);
          continue;
        }
        scraped++;
        expect(Date.parse(later.lastScrape) - Date.parse(t.lastScrape)).toBe(30_000);
        expect(later.lastScrape.slice(19)).toBe(t.lastScrape.slice(19)); // the same nanoseconds: aligned
        if (later.lastScrapeDuration !== t.lastScrapeDuration) durationsChanged++;
      }
      expect(scraped).toBeGreaterThan(TARGETS * 0.9);
      expect(durationsChanged).toBeGreaterThan(scraped * 0.99);
    }
  });
});

/** The sizes of the HTTP chunks of one /api/v1/targets answer, read off the wire. */
async function chunkSizes(url: string, encoding: string): Promise<number[]> {
  const { hostname, port } = new URL(url);
  const raw = await new Promise<Buffer>((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const parts: Buffer[] = [];
    socket.on("data", (part) => parts.push(part));
    socket.on("end", () => resolve(Buffer.concat(parts)));
    socket.on("error", reject);
    socket.write(
      `GET /api/v1/targets HTTP/1.1\r\nHost: ${hostname}\r\nAccept-Encoding: ${encoding}\r\nConnection: close\r\n\r\n`,
    );
  });
  const sizes: number[] = [];
  let at = raw.indexOf("\r\n\r\n") + 4;
  for (;;) {
    const line = raw.indexOf("\r\n", at);
    const size = Number.parseInt(raw.subarray(at, line).toString("latin1"), 16);
    if (!(size > 0)) return sizes;
    sizes.push(size);
    at = line + 2 + size + 2;
  }
}
