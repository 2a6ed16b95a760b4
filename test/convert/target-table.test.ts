import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { TargetsRounds } from "../../scripts/bench/generate.js";
import { identityHash } from "../../src/convert/identity-hash.js";
import type { TargetTable } from "../../src/convert/target-table.js";
import { PER_TARGET_FAMILIES } from "../../src/convert/targets.js";
import type { FamilyLines } from "../../src/exposition/pack.js";
import { PackCache } from "../../src/exposition/pack-cache.js";
import { plainText } from "../../src/exposition/unpack.js";
import { type DecodeOptions, decodeAnswer } from "../../src/poll/decode.js";
import type { DecoderMemory } from "../../src/poll/decode-types.js";
import { TargetsDecoder } from "../../src/poll/targets-fast-path.js";

// A source's series are kept by its decoder from one answer to the next (src/convert/target-table.ts):
// known targets are found by the bytes that spell them, their rendered labels reused, and a family
// whose values did not move is given again as packed last time. Whatever the answers before it, each
// answer must give exactly what the reference path gives for it alone.

const options = (targetLabels: DecodeOptions["targetLabels"] = []): DecodeOptions => ({
  replicaFacts: false,
  perTarget: true,
  limit: undefined,
  targetLabels,
  labelPrefix: 'source="s"',
  maxBytes: 2 ** 28,
});

/** A decoder thread's memory and packing, as decode-worker.ts gives them (every family packed, however small). */
function decoderThread() {
  const kept = new Map<string, unknown>();
  const memory: DecoderMemory = {
    take: (key) => {
      const value = kept.get(key);
      kept.delete(key);
      return value;
    },
    keep: (key, value) => kept.set(key, value),
  };
  const cache = new PackCache();
  /** Families of the last answer: written and packed, or given again. */
  const packed: string[] = [];
  const again: string[] = [];
  const inPieces: string[] = [];
  return {
    inPieces,
    memory,
    kept,
    packed,
    again,
    /** `cuts`: where the answer is cut into the pieces written (each piece, as the stream's, read once). */
    async decode(text: string, opts: DecodeOptions, cuts: readonly number[] = []) {
      const decoder = new TargetsDecoder(opts, memory);
      const bytes = Buffer.from(text);
      let from = 0;
      for (const cut of [...cuts.map((c) => Math.min(c, bytes.length)).sort((a, b) => a - b), bytes.length]) {
        // Each piece a buffer of its own, written over once read: a target kept past its piece shows.
        const piece = Buffer.from(bytes.subarray(from, cut));
        decoder.write(piece);
        piece.fill(0x20);
        from = cut;
      }
      packed.length = 0;
      again.length = 0;
      inPieces.length = 0;
      const result = decoder.finishPacked(
        (lines, family, newName) => {
          packed.push(family);
          return lines instanceof Uint8Array ? cache.pack(family, lines, newName) : lines;
        },
        (family, hash) => {
          const lines = cache.again(family, hash);
          if (lines) again.push(family);
          return lines;
        },
        (pieces, family, newName) => {
          packed.push(family);
          inPieces.push(family);
          return cache.packPieces(family, pieces, newName);
        },
      );
      if (!result) return undefined;
      const families = await Promise.all(
        result.families.map(async ([name, lines]) => [name, (await plainText([lines as FamilyLines])).toString()]),
      );
      return { families, series: result.series };
    },
  };
}

function reference(text: string, opts: DecodeOptions) {
  const result = decodeAnswer(
    { endpoint: "targets", body: Buffer.from(text), encoding: undefined, options: opts },
    { reference: true },
  );
  if (!result.ok) throw new Error(result.message);
  return {
    families: result.families.map(([name, lines]) => [name, Buffer.from(lines).toString()]),
    series: result.series,
  };
}

// Raw JSON spellings, several of which decode (or are written) alike: an escape, a lone surrogate and
// U+FFFD, a quote and a backslash that the text format escapes.
const POOLS = ["a", "\\u0061", "b", "\\ud800", "\\ufffd", "\uFFFD"];
const VALUES = ["x", "\\u0078", "y", 'q\\"', "\\\\", "é", "\\u00e9", ""];
const HEALTHS = ["up", "down", "unknown", "u\\u0070"];

interface Target {
  pool: string;
  job: string | undefined;
  instance: string;
  namespace: string | undefined;
}
const target: fc.Arbitrary<Target> = fc.record({
  pool: fc.constantFrom(...POOLS),
  job: fc.option(fc.constantFrom(...VALUES), { nil: undefined }),
  instance: fc.constantFrom(...VALUES),
  namespace: fc.option(fc.constantFrom(...VALUES), { nil: undefined }),
});

interface Moving {
  health: string;
  lastScrape: string;
  duration: number;
  interval: string;
  /** A down target with no error (with a time at or before the epoch: not scraped yet, VictoriaMetrics). */
  quiet?: boolean;
}
const moving: fc.Arbitrary<Moving> = fc.record({
  health: fc.constantFrom(...HEALTHS),
  lastScrape: fc.constantFrom(
    "2026-11-21T05:00:00Z",
    "2026-11-21T05:00:15.5Z",
    "0001-01-01T00:00:00Z",
    "1970-01-01T00:00:00Z",
    "1970-01-01T01:00:00+01:00",
    "bad",
  ),
  duration: fc.constantFrom(0, 0.25, 1.5e-7, 3),
  interval: fc.constantFrom("15s", "1m", "30s"),
  quiet: fc.boolean(),
});

function answer(listed: { t: Target; m: Moving }[]): string {
  const targets = listed.map(({ t, m }) => {
    const labels = [
      ...(t.job === undefined ? [] : [`"job":"${t.job}"`]),
      `"instance":"${t.instance}"`,
      ...(t.namespace === undefined ? [] : [`"namespace":"${t.namespace}"`]),
    ].join(",");
    return (
      `{"discoveredLabels":{"__address__":"h"},"labels":{${labels}},"scrapePool":"${t.pool}",` +
      `"health":"${m.health}","lastError":"${m.health === "down" && !m.quiet ? "EOF" : ""}","lastScrape":"${m.lastScrape}",` +
      `"lastScrapeDuration":${m.duration},"scrapeInterval":"${m.interval}","scrapeTimeout":"10s"}`
    );
  });
  return `{"status":"success","data":{"activeTargets":[${targets.join(",")}],"droppedTargets":[]}}`;
}

/** Polls of one source: each lists some of the targets, in any order, their values moved or not. */
const polls = fc
  .uniqueArray(target, { minLength: 1, maxLength: 10, selector: (t) => JSON.stringify(t) })
  .chain((universe) =>
    fc
      .array(
        fc.tuple(
          fc.shuffledSubarray(universe.map((_, i) => i)),
          fc.array(moving, { minLength: universe.length, maxLength: universe.length }),
          fc.boolean(),
        ),
        { minLength: 2, maxLength: 6 },
      )
      .map((rounds) => ({ universe, rounds })),
  );

describe("a source's series kept between answers", () => {
  it("gives each answer what the reference path gives it, whatever answers came before", async () => {
    await fc.assert(
      fc.asyncProperty(
        polls,
        fc.boolean(),
        fc.boolean(),
        fc.array(fc.nat(3000), { maxLength: 12 }),
        async ({ universe, rounds }, extra, vm, cuts) => {
          const opts = options(extra ? [{ from: "namespace", to: "ns" }] : []);
          // VictoriaMetrics: no dropped counts on either path.
          if (vm) opts.flavor = "victoriametrics";
          const thread = decoderThread();
          let last: Moving[] | undefined;
          for (const [listed, values, keepValues] of rounds) {
            // Sometimes the same values as the answer before: the same families, in a new order.
            const now = keepValues && last ? last : values;
            last = now;
            const text = answer(listed.map((i) => ({ t: universe[i] as Target, m: now[i] as Moving })));
            // Cut anywhere: values carried over from one piece to the next, and read from the carry.
            expect(await thread.decode(text, opts, cuts)).toEqual(reference(text, opts));
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it("gives what the reference path gives for answers larger than the reader's window, in one piece or many", async () => {
    // The reader goes through a piece a window (256 KiB) at a time, and writes the window over with the next:
    // targets are added to the table only after their bytes were read, and never after that.
    const opts = options();
    const thread = decoderThread();
    const rounds = new TargetsRounds(3000);
    for (const round of [0, 1, 2]) {
      const text = rounds.answer(round).toString();
      expect(text.length).toBeGreaterThan(3 * 256 * 1024);
      const cuts = round === 1 ? Array.from({ length: 40 }, (_, i) => 1 + i * 61_111) : [];
      expect(await thread.decode(text, opts, cuts)).toEqual(reference(text, opts));
    }
  });

  it("finds its known targets by their bytes after it numbered its series anew, whatever order they come in", async () => {
    // A poll that meets a new set of series lays them out and numbers them in the exporter's order; the
    // indices that find a target's series must follow, or each known target is decoded and rendered
    // again (the output the same, the cost that of a first poll).
    const opts = options();
    const thread = decoderThread();
    const all = Array.from({ length: 300 }, (_, i) => ({
      t: { pool: `p${i % 3}`, job: "j", instance: `10.0.${i >> 8}.${i & 255}:9100`, namespace: undefined },
      m: { health: "up", lastScrape: "2026-11-21T05:00:00Z", duration: 0.25, interval: "15s" },
    }));
    const shuffled = (list: typeof all, seed: number) =>
      list
        .map((x, i) => ({ x, key: (i * 7919 + seed * 104729) % 1009 }))
        .sort((a, b) => a.key - b.key)
        .map(({ x }) => x);
    const table = () => thread.kept.values().next().value as TargetTable;
    for (const [round, listed] of [all, all.filter((_, i) => i % 4 !== 0), all].entries()) {
      const text = answer(shuffled(listed, round));
      const before = round === 0 ? 0 : table().rendered;
      expect(await thread.decode(text, opts)).toEqual(reference(text, opts));
      // The first answer renders every target once; the later ones, targets it knew, none.
      expect(table().rendered - before).toBe(round === 0 ? all.length : 0);
    }
  });

  it("gives what the reference path gives for more targets with escaped or non-ASCII labels than its first arrays hold", async () => {
    // Such targets are known by identities of their own (not their rendered labels); the arrays of those
    // start at 1024 and grow. The 1025th once took the series of an array already replaced: undefined,
    // and /metrics lines with their labels out of place.
    const opts = options();
    const thread = decoderThread();
    const spelled = (i: number) => (i % 2 === 0 ? `\u00e9-${i}` : `é-${i}`);
    for (const count of [1025, 1100, 2500]) {
      const text = answer(
        Array.from({ length: count }, (_, i) => ({
          t: { pool: "p", job: "j", instance: spelled(i), namespace: undefined },
          m: { health: "up", lastScrape: "2026-11-21T05:00:00Z", duration: 0.25, interval: "15s" },
        })),
      );
      expect(await thread.decode(text, opts)).toEqual(reference(text, opts));
    }
  });

  it("gives a family whose values did not move as packed last time, without writing it again", async () => {
    const rounds = new TargetsRounds(2000);
    const opts = options([{ from: "namespace", to: "namespace" }]);
    const thread = decoderThread();
    const first = rounds.answer(0).toString();
    expect(await thread.decode(first, opts)).toEqual(reference(first, opts));
    expect(thread.again).toEqual([]);
    // Every per-target family is large enough to be packed as it is written, never whole.
    expect(thread.inPieces).toEqual(PER_TARGET_FAMILIES.filter((f) => f !== "promstatus_target_collisions"));
    // The next round: every pool's targets in a new order, scrape times and durations moved; up,
    // interval and timeout the same bytes.
    const next = rounds.answer(1).toString();
    expect(next).not.toBe(first);
    expect(await thread.decode(next, opts)).toEqual(reference(next, opts));
    const steady = [
      "promstatus_target_up",
      "promstatus_target_scrape_interval_seconds",
      "promstatus_target_scrape_timeout_seconds",
    ];
    expect(thread.again).toEqual(steady);
    expect(thread.packed.filter((f) => (PER_TARGET_FAMILIES as readonly string[]).includes(f))).toEqual([
      "promstatus_target_scrape_duration_seconds",
      "promstatus_target_last_scrape_timestamp_seconds",
    ]);
    // The table is kept for the source, and a new source starts with none.
    expect([...thread.kept.keys()]).toEqual([`source="s"\n${JSON.stringify(opts.targetLabels)}`]);
  });

  it("writes a family again when merged targets moved, even where the first of them did not", async () => {
    // Two spellings of one pool: one series, the largest scrape duration of the two.
    const opts = options();
    const thread = decoderThread();
    const poll = (first: number, second: number) =>
      answer(
        [
          { pool: "a", duration: first },
          { pool: "\\u0061", duration: second },
        ].map(({ pool, duration }) => ({
          t: { pool, job: "j", instance: "i", namespace: undefined },
          m: { health: "up", lastScrape: "2026-11-21T05:00:00Z", duration, interval: "15s" },
        })),
      );
    for (const text of [poll(1, 3), poll(3, 5), poll(3, 5)]) {
      expect(await thread.decode(text, opts)).toEqual(reference(text, opts));
    }
  });

  // Plain ASCII identities are told apart by their series' labels, others (an escape) by bytes kept apart.
  it.each([
    ["plain", ""],
    ["escaped", "\\u0069"],
  ])("tells apart %s targets whose identities hash alike", async (_kind, spelling) => {
    // Two instances whose identities (pool, job, instance) have the same hash as the table keys it
    // (convert/identity-hash.ts), found by brute force.
    const hashOf = (instance: string) => {
      const bytes = Buffer.from(`aj${instance}`);
      return identityHash(bytes, 0, 1, Int32Array.of(1, 2), Int32Array.of(2, bytes.length));
    };
    const seen = new Map<number, string>();
    let pair: [string, string] | undefined;
    for (let i = 0; !pair; i++) {
      const instance = `${spelling}i${i}`;
      const other = seen.get(hashOf(instance));
      if (other !== undefined) pair = [other, instance];
      else seen.set(hashOf(instance), instance);
    }
    const opts = options();
    const thread = decoderThread();
    const listed = (order: string[], health: string) =>
      answer(
        order.map((instance) => ({
          t: { pool: "a", job: "j", instance, namespace: undefined },
          m: { health, lastScrape: "2026-11-21T05:00:00Z", duration: 1, interval: "15s" },
        })),
      );
    for (const text of [listed(pair, "up"), listed([...pair].reverse(), "down"), listed([pair[1]], "up")]) {
      const result = await thread.decode(text, opts);
      expect(result).toEqual(reference(text, opts));
    }
  });

  it("is not kept when most of its series are gone, and the next answer is decoded afresh", async () => {
    const opts = options();
    const thread = decoderThread();
    const many = new TargetsRounds(3000).answer(0).toString();
    expect(await thread.decode(many, opts)).toEqual(reference(many, opts));
    expect(thread.kept.size).toBe(1);
    const few = new TargetsRounds(10).answer(0).toString();
    expect(await thread.decode(few, opts)).toEqual(reference(few, opts));
    expect(thread.kept.size).toBe(0);
    expect(await thread.decode(few, opts)).toEqual(reference(few, opts));
    expect(thread.kept.size).toBe(1);
  });
});
