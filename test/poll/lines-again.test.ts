import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { TargetsRounds } from "../../scripts/bench/generate.js";
import { TargetTable } from "../../src/convert/target-table.js";
import { PER_TARGET_FAMILIES } from "../../src/convert/targets.js";
import { type FamilyLines, isPacked, type PackedLines } from "../../src/exposition/pack.js";
import { PackCache } from "../../src/exposition/pack-cache.js";
import { plainText } from "../../src/exposition/unpack.js";
import { writeValue } from "../../src/exposition/value-bytes.js";
import { LinesArena, OUT_SLOTS, slotPlace } from "../../src/lib/lines-arena.js";
import type { DecoderMemory } from "../../src/poll/decode-types.js";
import {
  AGAIN_SLOT_BYTES,
  AGAIN_SLOTS,
  AGAIN_WRITINGS,
  type AgainState,
  LinesAgain,
} from "../../src/poll/lines-again.js";
import { TargetsDecoder } from "../../src/poll/targets-fast-path.js";
import { decodeOptions } from "../helpers/decode-options.js";

// A plain scrape's per-target families written again by the decoder thread (lines-again.ts): the
// bytes of the packed family, or nothing where they could differ (a poll began, the family is gone).

/** A decoder thread's memory and pack cache, and its polls of one source, as decode-worker.ts runs them. */
function decoderThread() {
  const kept = new Map<string, unknown>();
  const memory: DecoderMemory = {
    take(key) {
      const value = kept.get(key);
      kept.delete(key);
      return value;
    },
    keep: (key, value) => kept.set(key, value),
  };
  const cache = new PackCache();
  const options = decodeOptions();
  let names = 0;
  const open = () => new TargetsDecoder(options, memory);
  const finish = (decoder: TargetsDecoder) => {
    const key = (family: string) => `${options.labelPrefix}\n${family}`;
    const result = decoder.finishPacked(
      (lines, family, newName) =>
        isPacked(lines) || lines.byteLength < 65536 ? lines : cache.pack(key(family), lines, newName),
      (family, hash) => cache.again(key(family), hash),
      (pieces, family) => cache.packPieces(key(family), pieces, `test/${++names}`),
    );
    if (!result) throw new Error("the answer was not decoded");
    return new Map(result.families);
  };
  const poll = (answer: Uint8Array) => {
    const decoder = open();
    decoder.write(answer);
    return finish(decoder);
  };
  const again = new LinesAgain(() => kept.values());
  return { kept, open, finish, poll, again };
}

let nextId = 1;

/** Writing a family again, slot by slot, until it is done or stopped. */
function writeAll(again: LinesAgain, hash: string) {
  const id = nextId++;
  let memory: SharedArrayBuffer | undefined;
  const pieces: Buffer[] = [];
  let state: AgainState = "more";
  for (let i = 0; state === "more"; i++) {
    const filled = again.fill(id, hash, i % AGAIN_SLOTS, i === 0);
    memory ??= filled.memory;
    if (filled.length > 0) pieces.push(Buffer.from(Buffer.from(memory as SharedArrayBuffer, filled.at, filled.length)));
    state = filled.state;
  }
  again.end(id);
  return { bytes: Buffer.concat(pieces), state, pieces: pieces.length };
}

const packedOf = (families: Map<string, FamilyLines>, name: string) => families.get(name) as PackedLines;

describe("writing a packed per-target family again", () => {
  it("writes the family's very bytes, a slot at a time, for every family the poll packed", async () => {
    const thread = decoderThread();
    const families = thread.poll(new TargetsRounds(12_000).answer(0));
    const packed = [...families.values()].filter(isPacked);
    expect(packed.length).toBeGreaterThanOrEqual(4);
    for (const family of packed) {
      const written = writeAll(thread.again, family.hash);
      expect(written.state).toBe("done");
      expect(written.bytes.equals(await plainText([family]))).toBe(true);
    }
    // A family of more than a slot: several slots, each whole lines.
    const largest = packed.reduce((a, b) => (a.length > b.length ? a : b));
    expect(largest.length).toBeGreaterThan(AGAIN_SLOT_BYTES);
    expect(writeAll(thread.again, largest.hash).pieces).toBeGreaterThan(1);
  });

  it("stops once the table's next poll began, and finds nothing of it until that poll is done", async () => {
    const thread = decoderThread();
    const rounds = new TargetsRounds(12_000);
    const first = thread.poll(rounds.answer(0));
    const lastScrape = packedOf(first, "promstatus_target_last_scrape_timestamp_seconds");
    const interval = packedOf(first, "promstatus_target_scrape_interval_seconds");
    expect(thread.again.fill(1_000_001, lastScrape.hash, 0, true).state).toBe("more");

    // The next poll begins: the table is the poll's (values being replaced).
    const decoder = thread.open();
    expect(thread.again.fill(1_000_001, lastScrape.hash, 0)).toEqual({ length: 0, state: "stopped", at: 0 });
    expect(writeAll(thread.again, interval.hash)).toMatchObject({ state: "stopped", bytes: Buffer.alloc(0) });

    decoder.write(rounds.answer(1));
    const second = thread.finish(decoder);
    // The last scrape moved: its old lines are nobody's now. The interval did not: the same lines, the same name.
    expect(writeAll(thread.again, lastScrape.hash).state).toBe("stopped");
    const moved = packedOf(second, "promstatus_target_last_scrape_timestamp_seconds");
    expect(moved.hash).not.toBe(lastScrape.hash);
    expect(writeAll(thread.again, moved.hash).bytes.equals(await plainText([moved]))).toBe(true);
    expect(packedOf(second, "promstatus_target_scrape_interval_seconds").hash).toBe(interval.hash);
    expect(writeAll(thread.again, interval.hash).bytes.equals(await plainText([interval]))).toBe(true);
  });

  it("never writes a family the last answer did not have from that answer's values", async () => {
    const thread = decoderThread();
    const rounds = new TargetsRounds(3000);
    const first = thread.poll(rounds.answer(0));
    const lastScrape = packedOf(first, "promstatus_target_last_scrape_timestamp_seconds");
    expect(writeAll(thread.again, lastScrape.hash).state).toBe("done");
    // Every target never scraped: no last-scrape family in the next answer.
    const unscraped = Buffer.from(
      Buffer.from(rounds.answer(1))
        .toString("latin1")
        .replace(/"lastScrape":"[^"]*"/g, '"lastScrape":"0001-01-01T00:00:00Z"'),
      "latin1",
    );
    const second = thread.poll(unscraped);
    expect(second.has("promstatus_target_last_scrape_timestamp_seconds")).toBe(false);
    expect(writeAll(thread.again, lastScrape.hash)).toMatchObject({ state: "stopped", bytes: Buffer.alloc(0) });
  });

  it("stops a writing it does not know (ended, or never begun) and one asked for a slot it does not have", () => {
    const thread = decoderThread();
    const families = thread.poll(new TargetsRounds(3000).answer(0));
    const up = packedOf(families, "promstatus_target_up");
    // A later request of a writing not begun here (or ended): not begun again from line 0.
    expect(thread.again.fill(2_000_001, up.hash, 1)).toEqual({ length: 0, state: "stopped", at: 0 });
    expect(thread.again.fill(2_000_002, up.hash, AGAIN_SLOTS, true)).toMatchObject({ length: 0, state: "stopped" });
    expect(thread.again.fill(2_000_003, up.hash, -1, true)).toMatchObject({ length: 0, state: "stopped" });
    expect(thread.again.fill(2_000_004, "no such lines", 0, true)).toEqual({ length: 0, state: "stopped", at: 0 });
  });

  it("gives each writing slots of its own in the shared memory, AGAIN_WRITINGS of a table at most, free again once ended", () => {
    const thread = decoderThread();
    const families = thread.poll(new TargetsRounds(12_000).answer(0));
    const family = packedOf(families, "promstatus_target_scrape_interval_seconds");
    const begun = Array.from({ length: AGAIN_WRITINGS }, (_, i) => {
      const filled = thread.again.fill(3_000_000 + i, family.hash, 0, true);
      expect(filled).toMatchObject({ state: "more" });
      expect(filled.memory).toBeInstanceOf(SharedArrayBuffer);
      return filled;
    });
    // The same memory (the table's), and no two writings' slots in the same place.
    expect(new Set(begun.map((f) => f.memory)).size).toBe(1);
    // Each writing's first lines in the first of its slots, each group of slots its own.
    const groups = Array.from({ length: AGAIN_WRITINGS }, (_, g) => {
      const first = slotPlace(g * AGAIN_SLOTS);
      const last = slotPlace(g * AGAIN_SLOTS + AGAIN_SLOTS - 1);
      return { at: first.at, end: last.at + last.bytes };
    });
    expect(begun.map((f) => f.at).sort((a, b) => a - b)).toEqual(groups.map((g) => g.at));
    for (let g = 1; g < groups.length; g++) expect(groups[g]?.at).toBeGreaterThanOrEqual(groups[g - 1]?.end as number);
    // None free: the next writing is told so at once (its scrape asks again once one ended), and begins
    // nothing: its other slots' requests are stopped.
    expect(thread.again.fill(3_000_100, family.hash, 0, true)).toEqual({ length: 0, state: "full", at: 0 });
    expect(thread.again.fill(3_000_100, family.hash, 1)).toEqual({ length: 0, state: "stopped", at: 0 });
    thread.again.end(3_000_001);
    const again = thread.again.fill(3_000_101, family.hash, 0, true);
    expect(again).toMatchObject({ state: "more", at: begun[1]?.at });
    for (const id of [3_000_000, 3_000_002, 3_000_003, 3_000_101]) thread.again.end(id);
  });

  it("never writes over a slot the main thread may still read: not another slot's lines, not the table's next poll", async () => {
    const thread = decoderThread();
    const rounds = new TargetsRounds(30_000); // lines for more than three slots
    const first = thread.poll(rounds.answer(0));
    const lastScrape = packedOf(first, "promstatus_target_last_scrape_timestamp_seconds");
    expect(lastScrape.length).toBeGreaterThan(AGAIN_SLOTS * AGAIN_SLOT_BYTES);
    const held = thread.again.fill(4_000_001, lastScrape.hash, 1, true);
    expect(held.state).toBe("more");
    const memory = held.memory as SharedArrayBuffer;
    const view = () => Buffer.from(memory, held.at, AGAIN_SLOT_BYTES);
    const before = Buffer.from(view());
    // Its other slots filled, another writing's, and the next poll laying the table out anew.
    expect(thread.again.fill(4_000_001, lastScrape.hash, 0).length).toBeGreaterThan(0);
    expect(thread.again.fill(4_000_001, lastScrape.hash, 2).length).toBeGreaterThan(0);
    expect(writeAll(thread.again, lastScrape.hash).state).toBe("done");
    const second = thread.poll(rounds.answer(1));
    expect(view().equals(before)).toBe(true);
    // The slot's lines are the first poll's, though the table now has the second's.
    const text = before.subarray(0, held.length).toString();
    expect((await plainText([lastScrape])).toString()).toContain(text);
    const moved = packedOf(second, "promstatus_target_last_scrape_timestamp_seconds");
    expect((await plainText([moved])).toString()).not.toContain(text);
    thread.again.end(4_000_001);
  });
});

describe("values' text kept from one writing of a family to the next", () => {
  const LAST_SCRAPE = "promstatus_target_last_scrape_timestamp_seconds";

  /** The table's memory where a family's values' text is kept, and a writer of garbage over it. */
  function keptTexts(thread: ReturnType<typeof decoderThread>, name: string) {
    const table = [...thread.kept.values()].find((t): t is TargetTable => t instanceof TargetTable) as TargetTable;
    const v = PER_TARGET_FAMILIES.indexOf(name as (typeof PER_TARGET_FAMILIES)[number]);
    const arena = table.linesArena as LinesArena;
    const start = (table.packedAs[v] as { start: Uint8Array }).start;
    const at = arena.textsPlace(v, table.order.length, start) as number;
    // Each series' kept text made "7777777" (its last byte: the length).
    const spoil = () => {
      const kept = new Uint8Array(arena.shared, at, table.order.length * 16);
      for (let k = 0; k < table.order.length; k++)
        kept.fill(0x37, k * 16, k * 16 + 7).fill(7, k * 16 + 15, k * 16 + 16);
    };
    return { spoil };
  }

  it("writes the same bytes keeping them, taking them, and after the next poll, and takes them from where they are kept", async () => {
    const thread = decoderThread();
    const rounds = new TargetsRounds(12_000);
    const family = packedOf(thread.poll(rounds.answer(0)), LAST_SCRAPE);
    const expected = await plainText([family]);
    expect(writeAll(thread.again, family.hash).bytes.equals(expected)).toBe(true); // keeps them
    expect(writeAll(thread.again, family.hash).bytes.equals(expected)).toBe(true); // takes them
    // Taken from the kept bytes: spoiled there, the lines change.
    keptTexts(thread, LAST_SCRAPE).spoil();
    const spoiled = writeAll(thread.again, family.hash).bytes;
    expect(spoiled.equals(expected)).toBe(false);
    expect(spoiled.toString()).toMatch(/^promstatus_target_last_scrape_timestamp_seconds\{[^\n]*\} 7777777\n/);
    // The next poll: kept texts are the last poll's; none is taken, the new ones kept and taken again.
    const next = packedOf(thread.poll(rounds.answer(1)), LAST_SCRAPE);
    keptTexts(thread, LAST_SCRAPE).spoil();
    const nextExpected = await plainText([next]);
    expect(writeAll(thread.again, next.hash).bytes.equals(nextExpected)).toBe(true);
    expect(writeAll(thread.again, next.hash).bytes.equals(nextExpected)).toBe(true);
  });

  it("keeps none for a family of one value, and keeps them again after a writing that ended part-way", async () => {
    const thread = decoderThread();
    const families = thread.poll(new TargetsRounds(30_000).answer(0));
    // One value for every series: nothing kept, so nothing taken from there.
    const interval = packedOf(families, "promstatus_target_scrape_interval_seconds");
    writeAll(thread.again, interval.hash);
    keptTexts(thread, "promstatus_target_scrape_interval_seconds").spoil();
    expect(writeAll(thread.again, interval.hash).bytes.equals(await plainText([interval]))).toBe(true);
    // A writing ended after one slot (its client went away) kept only the texts of its lines so far.
    const lastScrape = packedOf(families, LAST_SCRAPE);
    expect(thread.again.fill(5_000_001, lastScrape.hash, 0, true).state).toBe("more");
    // Meanwhile another writing neither keeps nor takes them, and writes the same bytes.
    const expected = await plainText([lastScrape]);
    expect(writeAll(thread.again, lastScrape.hash).bytes.equals(expected)).toBe(true);
    thread.again.end(5_000_001);
    keptTexts(thread, LAST_SCRAPE).spoil();
    expect(writeAll(thread.again, lastScrape.hash).bytes.equals(expected)).toBe(true); // keeps them again
    expect(writeAll(thread.again, lastScrape.hash).bytes.equals(expected)).toBe(true); // takes them
  });
});

describe("LinesArena.fillSlot", () => {
  const label = fc.stringMatching(/^[a-z]{1,8}="[^"\\\n]{0,40}"$/);
  const value = fc.oneof(
    fc.constantFrom(0, 1, -0, 30, 1e-7, 1e21, 5e-324, Number.NaN, Number.POSITIVE_INFINITY, 0.1 + 0.2),
    fc.double({ noNaN: false }),
    fc.integer({ min: 1_600_000_000_000, max: 1_900_000_000_000 }).map((ms) => ms / 1000),
  );

  it("writes the lines pieces() writes, whole lines a call, whatever the room and however calls interleave", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.array(label, { minLength: 1, maxLength: 4 }), value), { minLength: 1, maxLength: 200 }),
        fc.integer({ min: 64, max: 4096 }),
        (series, room) => {
          const arena = LinesArena.create() as LinesArena;
          const offsets = new Int32Array(series.length);
          const lengths = new Int32Array(series.length);
          const values = new Float64Array(series.length);
          series.forEach(([labels, v], k) => {
            const block = Buffer.from(labels.join(","));
            const at = arena.reserve(block.length);
            block.copy(arena.bytes, at);
            offsets[k] = at;
            lengths[k] = block.length;
            values[k] = v;
          });
          const start = Buffer.from('promstatus_target_up{source="é",');
          const family = { start, offsets, lengths, values };
          const expected = Buffer.concat([...arena.pieces(family, 2 ** 20, writeValue)].map((p) => Buffer.from(p)));
          const batch = (first: number, n: number, o: Int32Array, l: Int32Array, v: Float64Array) => {
            o.set(offsets.subarray(first, first + n));
            l.set(lengths.subarray(first, first + n));
            v.set(values.subarray(first, first + n));
          };
          // Two writings of the same lines taking turns (nothing is kept between calls).
          const writings = [0, 1].map(() => ({ next: 0, out: [] as Buffer[], stuck: false }));
          for (let turn = 0; writings.some((w) => w.next < series.length && !w.stuck); turn++) {
            const writing = writings[turn % 2] as (typeof writings)[number];
            if (writing.next >= series.length || writing.stuck) continue;
            const slot = turn % 2;
            const { next, at, length } = arena.fillSlot(start, series.length, batch, writing.next, slot, writeValue, {
              room,
            });
            const out = new Uint8Array(arena.shared, at, length);
            if (length === 0 && next < series.length) {
              // Only ever for a line longer than the room.
              const k = next;
              expect(start.length + (lengths[k] as number) + 3).toBeGreaterThan(room - 32);
              writing.stuck = true;
              continue;
            }
            const text = Buffer.from(out.subarray(0, length));
            expect(length === 0 || text[length - 1] === 0x0a).toBe(true); // whole lines
            writing.out.push(text);
            writing.next = next;
          }
          for (const writing of writings) {
            const got = Buffer.concat(writing.out);
            if (writing.stuck) expect(expected.subarray(0, got.length).equals(got)).toBe(true);
            else expect(got.equals(expected)).toBe(true);
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it("gathers about as many lines as fill the slot, not a whole batch a call", () => {
    const arena = LinesArena.create() as LinesArena;
    const n = 100_000;
    const blocks = Array.from({ length: 64 }, (_, i) => {
      const block = Buffer.from(`instance="10.0.${i}.${i * 3}:9100",job="node${"e".repeat(i % 40)}"`);
      const at = arena.reserve(block.length);
      block.copy(arena.bytes, at);
      return { at, length: block.length };
    });
    let gathered = 0;
    const batch = (first: number, count: number, o: Int32Array, l: Int32Array, v: Float64Array) => {
      gathered += count;
      for (let j = 0; j < count; j++) {
        const block = blocks[(first + j) % blocks.length] as { at: number; length: number };
        o[j] = block.at;
        l[j] = block.length;
        v[j] = (first + j) % 7 === 0 ? 0 : 1;
      }
    };
    const start = Buffer.from('promstatus_target_up{source="s",');
    let calls = 0;
    // A large slot and a small one in turn (a writing's slots), lines of 70-110 bytes (an up family's).
    for (let next = 0; next < n; calls++) {
      const slot = calls % 2 === 0 ? 0 : OUT_SLOTS - 1;
      next = arena.fillSlot(start, n, batch, next, slot, writeValue).next;
    }
    expect(calls).toBeGreaterThan(10);
    expect(gathered).toBeLessThanOrEqual(n + calls * 64);
  });

  it("gathers each batch of lines once, however many of them JavaScript writes", () => {
    // Every value needs JavaScript's formatting (an exponent): each line stops the WebAssembly writer.
    const arena = LinesArena.create() as LinesArena;
    const n = 20_000;
    const block = Buffer.from('instance="host"');
    const at = arena.reserve(block.length);
    block.copy(arena.bytes, at);
    let gathered = 0;
    const batch = (first: number, count: number, o: Int32Array, l: Int32Array, v: Float64Array) => {
      gathered += count;
      o.fill(at, 0, count);
      l.fill(block.length, 0, count);
      v.fill(1e-7 * (first + 1), 0, count);
    };
    const start = Buffer.from("promstatus_target_scrape_duration_seconds{");
    let calls = 0;
    for (let next = 0; next < n; calls++) next = arena.fillSlot(start, n, batch, next, 0, writeValue).next;
    // Each call gathers from where it starts: at most a batch (4096 lines) more than it writes.
    expect(gathered).toBeLessThanOrEqual(n + calls * 4096);
  });
});
