import { describe, expect, it } from "vitest";
import { labelPairs } from "../../src/convert/label-pairs.js";
import { targetLabels } from "../../src/convert/targets.js";
import { HashIndex } from "../../src/lib/hash-index.js";
import { decodeAnswer } from "../../src/poll/decode.js";
import { TargetsDecoder } from "../../src/poll/targets-fast-path.js";
import { decodeOptions } from "../helpers/decode-options.js";

// Hash flooding by a hostile upstream. A target's identity hash (src/convert/identity-hash.ts, the same
// function in assembly/targets-scan.ts) starts from a fixed seed, and each of its steps,
// h' = (rotl(h, 5) ^ word) * K with K odd, can be run backwards: whoever reads the source can choose
// the last four bytes of a span so that any prefix ends on any state. An answer whose instances all
// hash alike makes every lookup in the target table (src/convert/target-table.ts, src/lib/hash-index.ts)
// walk every identity before it: n targets, n²/2 probes. Measured on this machine (TargetsDecoder,
// one answer, 8-byte instances): 10k colliding targets 1.9 s of CPU, 20k 7 s, 40k 31 s, against
// 0.05-0.3 s for the same counts of ordinary instances; the streaming thread is shared by every source.

// What the attacker knows: the published constants (not imported, so a seed that changes stays unknown).
const K = 0x9e3779b1 | 0;
const PUBLISHED_SEED = 0x2545f491;
let K_INVERSE = K; // K's inverse mod 2^32, by Newton's iteration
for (let i = 0; i < 5; i++) K_INVERSE = Math.imul(K_INVERSE, 2 - Math.imul(K, K_INVERSE));
const rotl5 = (h: number) => (h << 5) | (h >>> 27);
const step = (h: number, word: number) => Math.imul(rotl5(h) ^ word, K);
/** A byte that stands raw in a JSON string and keeps the target plain (printable ASCII, no quote or backslash). */
const plainByte = (c: number) => c >= 0x20 && c <= 0x7e && c !== 0x22 && c !== 0x5c;
/** A short span's state after the published function: its full words, then its tail and length. */
function spanState(h: number, text: string): number {
  const b = Buffer.from(text, "latin1");
  let p = 0;
  for (; p + 4 <= b.length; p += 4) h = step(h, b.readUInt32LE(p));
  let word = (0x80 | (b.length - p)) << 24;
  for (let i = 0; p + i < b.length; i++) word |= (b[p + i] as number) << (8 * i);
  return step(h, word);
}

/** `n` distinct 8-byte instances whose identities (pool, job, instance) have the same published hash. */
function collidingInstances(n: number, pool: string, job: string): string[] {
  const before = spanState(spanState(PUBLISHED_SEED, pool), job);
  const wanted = Math.imul(step(step(before, 0x41414141), 0x41414141), K_INVERSE);
  const found = new Set<string>();
  for (let i = 0; found.size < n; i++) {
    // The first word plain bytes (i in base 57), the second the one that reaches the wanted state.
    const first = [0, 1, 2, 3].map((d) => 0x23 + (Math.floor(i / 57 ** d) % 57)); // '#'..'[' : never " or \
    const w1 = Buffer.from(first).readUInt32LE(0);
    const w2 = (rotl5(step(before, w1)) ^ wanted) >>> 0;
    const second = [0, 8, 16, 24].map((s) => (w2 >>> s) & 0xff);
    if (second.every(plainByte)) found.add(Buffer.from([...first, ...second]).toString("latin1"));
  }
  return [...found];
}

// The table's other index, of series by their rendered labels (src/convert/target-table.ts seriesOf),
// hashes them with FNV-1a from its fixed offset (src/convert/series-order.ts hashBytes), as the identity
// index did before 26e701f. Its multicollisions are found by birthday, a pair of 4-byte blocks from a
// state at a time: k pairs, 2^k instances that leave it in one state.
const FNV_PRIME = 0x01000193;
const fnv = (h: number, text: string) => {
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), FNV_PRIME);
  return h;
};
function fnvCollidingInstances(k: number, before: number): string[] {
  let h = before;
  let found = [""];
  for (let j = 0; j < k; j++) {
    const seen = new Map<number, string>();
    for (let i = 0; ; i++) {
      const block = [0, 1, 2, 3].map((d) => String.fromCharCode(0x23 + (Math.floor(i / 57 ** d) % 57))).join("");
      const state = fnv(h, block);
      const other = seen.get(state);
      if (other !== undefined) {
        found = found.flatMap((prefix) => [prefix + other, prefix + block]);
        h = state;
        break;
      }
      seen.set(state, block);
    }
  }
  return found;
}
/** The FNV-1a state of a series' rendered labels just before its instance's value. */
function renderedBefore(): number {
  const rendered = labelPairs(targetLabels({ scrapePool: "a", labels: { job: "j", instance: "@MARK@" } }, []));
  return fnv(0x811c9dc5 | 0, rendered.slice(0, rendered.indexOf("@MARK@")));
}

function answer(instances: readonly string[]): Buffer {
  const targets = instances.map(
    (instance) =>
      `{"discoveredLabels":{"__address__":"h"},"labels":{"job":"j","instance":"${instance}"},"scrapePool":"a",` +
      `"health":"up","lastError":"","lastScrape":"2026-11-21T05:00:00Z","lastScrapeDuration":1,` +
      `"scrapeInterval":"15s","scrapeTimeout":"10s"}`,
  );
  return Buffer.from(`{"status":"success","data":{"activeTargets":[${targets.join(",")}],"droppedTargets":[]}}`);
}

/** Decodes an answer as the streaming thread does (64 KiB chunks), counting the hash indexes' probe steps. */
function decodeCountingProbes(body: Buffer) {
  const next = HashIndex.prototype.next;
  let probes = 0;
  HashIndex.prototype.next = function (this: HashIndex, at: number) {
    probes++;
    return next.call(this, at);
  };
  try {
    const decoder = new TargetsDecoder(decodeOptions());
    for (let p = 0; p < body.length; p += 65536) if (!decoder.write(body.subarray(p, p + 65536))) break;
    const result = decoder.finishPacked(
      (lines) => lines,
      () => undefined,
      (pieces) => Buffer.concat([...pieces]),
    );
    return { probes, series: result?.series };
  } finally {
    HashIndex.prototype.next = next;
  }
}

const N = 2000;

/** An answer of these instances: decoded in a few probes a target and as the reference decodes it, or given up. */
function expectFewProbesOrGivenUp(instances: readonly string[]): void {
  const body = answer(instances);
  const { probes, series } = decodeCountingProbes(body);
  if (series !== undefined) {
    const reference = decodeAnswer(
      { endpoint: "targets", body, encoding: undefined, options: decodeOptions() },
      { reference: true },
    );
    expect(reference.ok && reference.series).toBe(series);
  }
  expect(probes).toBeLessThan(64 * instances.length);
}

describe("target identities built to collide (hash flooding)", () => {
  it("are built right: distinct plain instances, all of one published hash", () => {
    const instances = collidingInstances(50, "a", "j");
    expect(new Set(instances).size).toBe(50);
    const states = new Set(instances.map((i) => spanState(spanState(spanState(PUBLISHED_SEED, "a"), "j"), i)));
    expect(states.size).toBe(1);
  });

  it("ordinary instances: a few probes a target (the bound below is not too tight)", () => {
    const instances = Array.from({ length: N }, (_, i) => `host-${i}:9100`);
    const { probes, series } = decodeCountingProbes(answer(instances));
    expect(series).toBeGreaterThan(N);
    expect(probes).toBeLessThan(64 * N);
  });

  // Before 36c8019 the table walked every identity of the same hash (~N²/2 = 2,000,000 probes); now no
  // lookup walks more than 256 slots (lib/hash-index.ts) and the reader gives the answer up to the
  // reference path, whose Map keys V8 hashes with a random seed.
  it("cost no more probes than ordinary ones, or the answer is given up", () => {
    expectFewProbesOrGivenUp(collidingInstances(N, "a", "j"));
  });

  // The series index's FNV-1a has a fixed offset too (a random seed for the identity hash alone would not
  // pass this); the same bound holds it.
  it("by their rendered labels cost no more probes than ordinary ones, or the answer is given up", () => {
    expectFewProbesOrGivenUp(fnvCollidingInstances(11, renderedBefore())); // 2048
  });
});
