// A real Prometheus lists its pools sorted but each pool's targets in Go map order, new on every
// request (web/api/v1/api.go, targets(), over scrapePool.ActiveTargets(); 2.42 to 3.x). Series written
// in the answer's order would change every family on every poll, so nothing rendered or compressed
// for the last poll could be kept. They are written in an order of the exporter's own instead: pool by
// name (as written), then by a hash of the series' rendered labels (a sort of 100k numbers, not of
// 100k long strings whose first 40 characters are mostly the same), the labels' bytes deciding the
// rare equal hashes. Hash and tie-break are over the UTF-8 bytes a line carries, so a converter that
// keeps labels as bytes (target-table.ts) and one that keeps them as strings order alike.

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** 32-bit FNV-1a of bytes [start, end), continuing from `h`. */
export function hashBytes(bytes: Uint8Array, start: number, end: number, h = FNV_OFFSET): number {
  for (let i = start; i < end; i++) h = Math.imul(h ^ (bytes[i] as number), FNV_PRIME);
  return h >>> 0;
}

/** What series are ordered by: their pool's name as written, a hash and a comparison of their rendered labels. */
export interface OrderKeys {
  pool(i: number): string;
  /** hashBytes of the series' rendered labels (UTF-8). */
  hash(i: number): number;
  /** The series' rendered labels compared byte by byte. */
  compare(a: number, b: number): number;
}

// hash × 2^21 + index stays an exact integer in a double: up to 2M series per pool.
const INDEX_BITS = 2 ** 21;

const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The series `members` (indices) in a stable order, whatever order they were met in. */
export function orderSeries(members: ArrayLike<number>, keys: OrderKeys): Uint32Array {
  const byPool = new Map<string, number[]>();
  for (let k = 0; k < members.length; k++) {
    const i = members[k] as number;
    const pool = keys.pool(i);
    const list = byPool.get(pool);
    if (list) list.push(i);
    else byPool.set(pool, [i]);
  }
  const out = new Uint32Array(members.length);
  let at = 0;
  for (const pool of [...byPool.keys()].sort(compareText)) {
    for (const i of inHashOrder(byPool.get(pool) as number[], keys)) out[at++] = i;
  }
  return out;
}

/**
 * The indices of series in a stable order: `pairs[i]` is series i's rendered labels, `pools[i]` its
 * pool's name as written.
 */
export function stableOrder(pairs: readonly string[], pools: readonly string[]): Uint32Array {
  const bytes = pairs.map((p) => Buffer.from(p, "utf8"));
  const members = Uint32Array.from(pairs, (_, i) => i);
  return orderSeries(members, {
    pool: (i) => pools[i] as string,
    hash: (i) => hashBytes(bytes[i] as Buffer, 0, (bytes[i] as Buffer).length),
    compare: (a, b) => Buffer.compare(bytes[a] as Buffer, bytes[b] as Buffer),
  });
}

function inHashOrder(list: readonly number[], keys: OrderKeys): number[] {
  const byLabels = (a: number, b: number) => keys.compare(a, b);
  if (list.length >= INDEX_BITS) return [...list].sort(byLabels);
  const hashes = new Uint32Array(list.length);
  const sortKeys = new Float64Array(list.length);
  for (let k = 0; k < list.length; k++) {
    hashes[k] = keys.hash(list[k] as number);
    sortKeys[k] = (hashes[k] as number) * INDEX_BITS + k;
  }
  sortKeys.sort();
  const out: number[] = [];
  for (let i = 0; i < sortKeys.length; ) {
    // A run of equal hashes (rare) is ordered by the labels themselves.
    const h = hashes[(sortKeys[i] as number) % INDEX_BITS] as number;
    let end = i + 1;
    while (end < sortKeys.length && hashes[(sortKeys[end] as number) % INDEX_BITS] === h) end++;
    const run: number[] = [];
    for (let k = i; k < end; k++) run.push(list[(sortKeys[k] as number) % INDEX_BITS] as number);
    if (run.length > 1) run.sort(byLabels);
    for (const s of run) out.push(s);
    i = end;
  }
  return out;
}
