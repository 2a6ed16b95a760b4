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

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The indices of series in a stable order, whatever the order they were met in: `pairs[i]` is series
 * i's rendered labels, `pools[i]` its pool.
 */
export function stableOrder(pairs: readonly string[], pools: readonly string[]): Uint32Array {
  const byPool = new Map<string, number[]>();
  for (let i = 0; i < pairs.length; i++) {
    const pool = pools[i] as string;
    const list = byPool.get(pool);
    if (list) list.push(i);
    else byPool.set(pool, [i]);
  }
  const out = new Uint32Array(pairs.length);
  let at = 0;
  for (const pool of [...byPool.keys()].sort(compare)) {
    for (const i of inHashOrder(byPool.get(pool) as number[], pairs)) out[at++] = i;
  }
  return out;
}

function inHashOrder(list: readonly number[], pairs: readonly string[]): number[] {
  const byLabels = (a: number, b: number) => compare(pairs[a] as string, pairs[b] as string);
  if (list.length >= INDEX_BITS) return [...list].sort(byLabels);
  const hashes = new Uint32Array(list.length);
  const keys = new Float64Array(list.length);
  for (let k = 0; k < list.length; k++) {
    hashes[k] = hash(pairs[list[k] as number] as string);
    keys[k] = (hashes[k] as number) * INDEX_BITS + k;
  }
  keys.sort();
  const out: number[] = [];
  for (let i = 0; i < keys.length; ) {
    // A run of equal hashes (rare) is ordered by the labels themselves.
    const h = hashes[(keys[i] as number) % INDEX_BITS] as number;
    let end = i + 1;
    while (end < keys.length && hashes[(keys[end] as number) % INDEX_BITS] === h) end++;
    const run: number[] = [];
    for (let k = i; k < end; k++) run.push(list[(keys[k] as number) % INDEX_BITS] as number);
    if (run.length > 1) run.sort(byLabels);
    for (const s of run) out.push(s);
    i = end;
  }
  return out;
}
