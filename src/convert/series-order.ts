// A real Prometheus lists its pools sorted but each pool's targets in Go map order, new on every
// request (web/api/v1/api.go, targets(), over scrapePool.ActiveTargets(); 2.42 to 3.x). Series written
// in the answer's order would change every family on every poll, so nothing rendered or compressed
// for the last poll could be kept. They are written in an order of the exporter's own instead: pool by
// name, then by a hash of the series' labels (a sort of 100k numbers, not of 100k long strings whose
// first 40 characters are mostly the same), labels themselves deciding the rare equal hashes.

/** 32-bit FNV-1a over the UTF-16 code units of a string. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

// hash × 2^21 + index stays an exact integer in a double: up to 2M series per pool.
const INDEX_BITS = 2 ** 21;

/** What is ordered: a series' rendered labels, and its pool. */
interface Ordered {
  pairs: string;
  labels: { scrape_pool?: string };
}

/** The series in a stable order, whatever the order they were met in. */
export function stableOrder<T extends Ordered>(series: readonly T[]): T[] {
  const byPool = new Map<string, T[]>();
  for (const s of series) {
    const pool = s.labels.scrape_pool ?? "";
    const list = byPool.get(pool);
    if (list) list.push(s);
    else byPool.set(pool, [s]);
  }
  const out: T[] = [];
  for (const pool of [...byPool.keys()].sort()) out.push(...inHashOrder(byPool.get(pool) as T[]));
  return out;
}

function inHashOrder<T extends Ordered>(list: readonly T[]): T[] {
  if (list.length >= INDEX_BITS) return [...list].sort((a, b) => compare(a.pairs, b.pairs));
  const hashes = new Uint32Array(list.length);
  const keys = new Float64Array(list.length);
  for (let i = 0; i < list.length; i++) {
    hashes[i] = hash((list[i] as T).pairs);
    keys[i] = (hashes[i] as number) * INDEX_BITS + i;
  }
  keys.sort();
  const out: T[] = [];
  for (let i = 0; i < keys.length; ) {
    // A run of equal hashes (rare) is ordered by the labels themselves.
    let end = i + 1;
    const h = hashes[(keys[i] as number) % INDEX_BITS] as number;
    while (end < keys.length && hashes[(keys[end] as number) % INDEX_BITS] === h) end++;
    const run: T[] = [];
    for (let k = i; k < end; k++) run.push(list[(keys[k] as number) % INDEX_BITS] as T);
    if (run.length > 1) run.sort((a, b) => compare(a.pairs, b.pairs));
    for (const s of run) out.push(s);
    i = end;
  }
  return out;
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
