import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { TargetsRounds } from "../../scripts/bench/generate.js";
import { type FamilyLines, isPacked, type PackedLines } from "../../src/exposition/pack.js";
import { PackCache } from "../../src/exposition/pack-cache.js";
import { plainText } from "../../src/exposition/unpack.js";
import { writeValue } from "../../src/exposition/value-bytes.js";
import { LinesArena } from "../../src/lib/lines-arena.js";
import type { DecoderMemory } from "../../src/poll/decode-types.js";
import { AGAIN_SLOT_BYTES, type AgainState, LinesAgain } from "../../src/poll/lines-again.js";
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

/** Writing a family again, slot by slot (`slots` of `slotBytes`), until it is done or stopped. */
function writeAll(again: LinesAgain, hash: string, slots = 3) {
  const id = nextId++;
  const memory = new SharedArrayBuffer(slots * AGAIN_SLOT_BYTES);
  const pieces: Buffer[] = [];
  let state: AgainState = "more";
  for (let i = 0; state === "more"; i++) {
    const slot = i % slots;
    const filled = again.fill(id, hash, slot, i === 0 ? memory : undefined);
    pieces.push(Buffer.from(Buffer.from(memory, slot * AGAIN_SLOT_BYTES, filled.length)));
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
    const memory = new SharedArrayBuffer(AGAIN_SLOT_BYTES);
    expect(thread.again.fill(1_000_001, lastScrape.hash, 0, memory).state).toBe("more");

    // The next poll begins: the table is the poll's (values being replaced).
    const decoder = thread.open();
    expect(thread.again.fill(1_000_001, lastScrape.hash, 0)).toEqual({ length: 0, state: "stopped" });
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

  it("stops a writing it does not know (forgotten, or never begun) and one given a slot its memory lacks", () => {
    const thread = decoderThread();
    const families = thread.poll(new TargetsRounds(3000).answer(0));
    const up = packedOf(families, "promstatus_target_up");
    // A later request without the memory: the writing was forgotten here (or never begun); not begun again from line 0.
    expect(thread.again.fill(2_000_001, up.hash, 1)).toEqual({ length: 0, state: "stopped" });
    const memory = new SharedArrayBuffer(AGAIN_SLOT_BYTES);
    expect(thread.again.fill(2_000_002, up.hash, 1, memory)).toEqual({ length: 0, state: "stopped" });
    expect(thread.again.fill(2_000_003, up.hash, -1, memory)).toEqual({ length: 0, state: "stopped" });
    expect(thread.again.fill(2_000_004, "no such lines", 0, memory)).toEqual({ length: 0, state: "stopped" });
  });
});

describe("LinesArena.fill", () => {
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
            const out = new Uint8Array(room);
            const { next, length } = arena.fill(start, series.length, batch, writing.next, out, writeValue);
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
    const out = new Uint8Array(2 ** 20);
    let calls = 0;
    for (let next = 0; next < n; calls++) next = arena.fill(start, n, batch, next, out, writeValue).next;
    // Each call gathers from where it starts: at most a batch (4096 lines) more than it writes.
    expect(gathered).toBeLessThanOrEqual(n + calls * 4096);
  });
});
