import type { Worker } from "node:worker_threads";
import { describe, expect, it } from "vitest";
import { TargetsRounds } from "../../scripts/bench/generate.js";
import { isPacked, type PackedLines } from "../../src/exposition/pack.js";
import { type AgainPiece, type LinesWrittenAgain, plainText } from "../../src/exposition/unpack.js";
import type { DecoderRequest } from "../../src/poll/decoder-messages.js";
import { AGAIN_SLOT_BYTES, AGAIN_SLOTS } from "../../src/poll/lines-again.js";
import { AGAIN_WAIT_MS, LinesAgainClient } from "../../src/poll/lines-again-client.js";
import { StreamDecoder } from "../../src/poll/stream-decoder.js";
import { decodeOptions } from "../helpers/decode-options.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Reads a writing to its end, handing each piece back once copied; what it wrote, and how it ended. */
async function readAll(writing: LinesWrittenAgain) {
  const pieces: Buffer[] = [];
  let last: AgainPiece | null | undefined;
  for (;;) {
    last = await writing.next();
    if (!last) break;
    pieces.push(Buffer.from(last.bytes));
    last.written();
  }
  writing.close();
  return { bytes: Buffer.concat(pieces), pieces: pieces.length, end: last };
}

async function decodedFamilies(decoder: StreamDecoder, answer: Uint8Array) {
  const stream = decoder.openStream("targets", decodeOptions());
  expect(await stream.write(Buffer.from(answer))).toBe(true);
  const end = await stream.end(60_000);
  if (end.gaveUp || !end.result.ok) throw new Error("not decoded");
  return end.result.families.flatMap(([, lines]) => (isPacked(lines) ? [lines] : []));
}

describe("a packed family written again by the streaming thread", () => {
  it("gives the family's bytes through a few shared slots, each filled again once handed back", async () => {
    const decoder = new StreamDecoder(() => 320 * 2 ** 20);
    try {
      const rounds = new TargetsRounds(40_000);
      for (const round of [0, 1]) {
        const packed = await decodedFamilies(decoder, rounds.answer(round));
        expect(packed.length).toBeGreaterThanOrEqual(4);
        for (const family of packed) {
          const writing = decoder.writeAgain(family) as LinesWrittenAgain;
          const read = await readAll(writing);
          expect(read.end).toBeNull(); // all written, none left to the members
          expect(read.bytes.equals(await plainText([family]))).toBe(true);
        }
        // Larger than the slots together: they went round.
        const largest = packed.reduce((a, b) => (a.length > b.length ? a : b));
        expect(largest.length).toBeGreaterThan(AGAIN_SLOTS * AGAIN_SLOT_BYTES);
      }
      // A family the thread never packed (a probe's, or one replaced since): nothing, at once.
      const other: PackedLines = { members: [], sizes: [], length: 10, crc: 0, hash: "not this thread's" };
      expect(await (decoder.writeAgain(other) as LinesWrittenAgain).next()).toBeUndefined();
    } finally {
      await (decoder as unknown as { worker?: Worker }).worker?.terminate();
    }
  }, 60_000);

  it("writes nothing while the thread reads an answer (polls come first), and goes on once it is read", async () => {
    const decoder = new StreamDecoder(() => 320 * 2 ** 20);
    try {
      const [family] = await decodedFamilies(decoder, new TargetsRounds(5000).answer(0));
      // Another source's poll under way (its own table: this family's stays kept).
      const other = decoder.openStream("targets", decodeOptions({ labelPrefix: 'source="other"' }));
      expect(await other.write(Buffer.from(new TargetsRounds(3000).answer(0)).subarray(0, 100_000))).toBe(true);
      const during = await readAll(decoder.writeAgain(family as PackedLines) as LinesWrittenAgain);
      expect(during).toMatchObject({ pieces: 0, end: undefined });
      other.abort();
      const after = await readAll(decoder.writeAgain(family as PackedLines) as LinesWrittenAgain);
      expect(after.end).toBeNull();
      expect(after.bytes.equals(await plainText([family as PackedLines]))).toBe(true);
    } finally {
      await (decoder as unknown as { worker?: Worker }).worker?.terminate();
    }
  }, 60_000);

  it("stops a writing when its thread ends", async () => {
    const decoder = new StreamDecoder(() => 320 * 2 ** 20);
    const [family] = await decodedFamilies(decoder, new TargetsRounds(40_000).answer(0));
    const writing = decoder.writeAgain(family as PackedLines) as LinesWrittenAgain;
    const first = await writing.next();
    expect(first?.bytes.length).toBeGreaterThan(0);
    await (decoder as unknown as { worker: Worker }).worker.terminate();
    // The slots asked for before the end may have come; after them, nothing more.
    let next = await writing.next();
    for (let i = 0; next && i < AGAIN_SLOTS; i++) next = await writing.next();
    expect(next).toBeUndefined();
    expect(decoder.writeAgain(family as PackedLines)).toBeUndefined(); // no thread now
  }, 60_000);
});

/** A thread that only notes what it is asked (replies are given by the test). */
function notingWorker() {
  const requests: DecoderRequest[] = [];
  const worker = { postMessage: (message: DecoderRequest) => requests.push(message) } as unknown as Worker;
  const fills = () => requests.filter((r): r is Extract<DecoderRequest, { kind: "again" }> => r.kind === "again");
  const ends = () => requests.filter((r) => r.kind === "again-end").map((r) => (r as { id: number }).id);
  return { worker, requests, fills, ends };
}

/** The thread's memory, as a reply to a writing's first request gives it. */
const threadMemory = () => new SharedArrayBuffer(4 * AGAIN_SLOT_BYTES);

/** The thread's answers to a try of writing `id` when its table's writings are all under way: "full", its other slots stopped. */
function answerFull(client: LinesAgainClient, id: number): void {
  client.receive({ kind: "again", id, slot: 0, length: 0, state: "full", at: 0 });
  for (let slot = 1; slot < AGAIN_SLOTS; slot++)
    client.receive({ kind: "again", id, slot, length: 0, state: "stopped", at: 0 });
}

/** The thread's answers to writing `id`, begun there (its memory with the first) and written whole: `length` bytes, all in its first slot. */
function answerDone(client: LinesAgainClient, id: number, memory: SharedArrayBuffer, length = 0): void {
  client.receive({ kind: "again", id, slot: 0, length, state: "done", at: 0, memory });
  for (let slot = 1; slot < AGAIN_SLOTS; slot++)
    client.receive({ kind: "again", id, slot, length: 0, state: "done", at: 0 });
}

describe("LinesAgainClient", () => {
  it("asks for every slot at once, and for a slot again only once its piece was handed back", async () => {
    const { worker, fills } = notingWorker();
    const client = new LinesAgainClient();
    const writing = client.begin(worker, "h");
    expect(fills().map((f) => f.slot)).toEqual([...Array(AGAIN_SLOTS).keys()]);
    expect(fills().map((f) => f.first)).toEqual([true, ...Array(AGAIN_SLOTS - 1).fill(undefined)]);
    const id = fills()[0]?.id as number;
    const memory = threadMemory();
    // The thread's answers: in order, the first with its memory; slot 1's lines where it says.
    client.receive({ kind: "again", id, slot: 0, length: 2, state: "more", at: 10, memory });
    new Uint8Array(memory, 3 * AGAIN_SLOT_BYTES + 5, 3).set([0x61, 0x62, 0x0a]);
    client.receive({ kind: "again", id, slot: 1, length: 3, state: "more", at: 3 * AGAIN_SLOT_BYTES + 5 });
    const first = (await writing.next()) as AgainPiece;
    expect(first.bytes.byteOffset).toBe(10);
    const piece = (await writing.next()) as AgainPiece;
    expect(Buffer.from(piece.bytes).toString()).toBe("ab\n");
    expect(piece.bytes.buffer).toBe(memory); // read where the thread wrote it, not copied
    expect(fills()).toHaveLength(AGAIN_SLOTS);
    piece.written();
    piece.written(); // twice: once counts
    expect(fills()).toHaveLength(AGAIN_SLOTS + 1);
    expect(fills().at(-1)?.slot).toBe(1);
    expect(fills().at(-1)?.first).toBeUndefined();
    writing.close();
  });

  it("waits for the thread no longer than AGAIN_WAIT_MS, but as long as the response holds every slot", async () => {
    const { worker, fills } = notingWorker();
    const client = new LinesAgainClient();
    const slow = client.begin(worker, "h");
    const asked = Date.now();
    expect(await slow.next()).toBeUndefined(); // the thread said nothing: the rest from the members
    expect(Date.now() - asked).toBeGreaterThanOrEqual(AGAIN_WAIT_MS - 5);
    slow.close();

    const held = client.begin(worker, "h");
    const id = fills().at(-1)?.id as number;
    const memory = threadMemory();
    const pieces: AgainPiece[] = [];
    for (let slot = 0; slot < AGAIN_SLOTS; slot++) {
      const at = slot * AGAIN_SLOT_BYTES;
      client.receive({ kind: "again", id, slot, length: 1, state: "more", at, ...(slot === 0 ? { memory } : {}) });
      pieces.push((await held.next()) as AgainPiece);
    }
    // Every slot with the response (a client reading slowly): the next lines wait for it, whatever the time.
    let next: AgainPiece | null | undefined | "waiting" = "waiting";
    void held.next().then((piece) => {
      next = piece;
    });
    await sleep(AGAIN_WAIT_MS * 2);
    expect(next).toBe("waiting");
    (pieces[0] as AgainPiece).written();
    client.receive({ kind: "again", id, slot: 0, length: 2, state: "done", at: 0 });
    await sleep(10);
    expect((next as unknown as AgainPiece).bytes.length).toBe(2);
    expect(await held.next()).toBeNull();
    held.close();
  });

  it("tells the thread a writing ended only once no slot of it is held or being filled, and only once", async () => {
    const { worker, fills, ends } = notingWorker();
    const client = new LinesAgainClient();
    const writing = client.begin(worker, "h");
    const id = fills()[0]?.id as number;
    client.receive({ kind: "again", id, slot: 0, length: 1, state: "more", at: 0, memory: threadMemory() });
    const held = (await writing.next()) as AgainPiece;
    writing.close(); // the response still writes slot 0; slots 1 and 2 are being filled
    writing.close();
    expect(ends()).toEqual([]);
    client.receive({ kind: "again", id, slot: 1, length: 5, state: "more", at: AGAIN_SLOT_BYTES });
    client.receive({ kind: "again", id, slot: 2, length: 5, state: "more", at: 2 * AGAIN_SLOT_BYTES });
    expect(ends()).toEqual([]); // slot 0 is still the response's
    held.written(); // the last use of it
    expect(ends()).toEqual([id]);
    held.written();
    expect(ends()).toEqual([id]);
    // Not begun there (no memory in its first answer): stopped, and ended alike.
    const other = client.begin(worker, "h");
    const otherId = fills().at(-1)?.id as number;
    for (let slot = 0; slot < AGAIN_SLOTS; slot++)
      client.receive({ kind: "again", id: otherId, slot, length: 0, state: "stopped", at: 0 });
    expect(await other.next()).toBeUndefined();
    other.close();
    expect(ends()).toEqual([id, otherId]);
  });

  it("says nothing more to a thread that ended, and forgets its writing once the response took what it holds", async () => {
    const { worker, fills, requests } = notingWorker();
    const client = new LinesAgainClient();
    const writing = client.begin(worker, "h");
    const id = fills()[0]?.id as number;
    client.receive({ kind: "again", id, slot: 0, length: 1, state: "more", at: 0, memory: threadMemory() });
    const held = (await writing.next()) as AgainPiece;
    const said = requests.length;
    client.lost(worker);
    expect(await writing.next()).toBeUndefined();
    held.written();
    expect(requests).toHaveLength(said); // no fill, no end
    // Forgotten: a late answer of it is nobody's.
    client.receive({ kind: "again", id, slot: 1, length: 1, state: "more", at: 0 });
    expect(await writing.next()).toBeUndefined();
  });

  it("asks again once another writing with the thread ended, when the table's writings were all under way", async () => {
    const { worker, fills, ends, requests } = notingWorker();
    const client = new LinesAgainClient();
    const before = client.begin(worker, "h");
    const beforeId = fills()[0]?.id as number;
    const memory = threadMemory();
    answerDone(client, beforeId, memory, 1);
    const held = (await before.next()) as AgainPiece; // its last piece, still in the socket

    const waiting = client.begin(worker, "h");
    const firstTry = fills().at(-AGAIN_SLOTS)?.id as number;
    client.receive({ kind: "again", id: firstTry, slot: 0, length: 0, state: "full", at: 0 });
    let next: AgainPiece | null | undefined | "waiting" = "waiting";
    void waiting.next().then((piece) => {
      next = piece;
    });
    for (let slot = 1; slot < AGAIN_SLOTS; slot++)
      client.receive({ kind: "again", id: firstTry, slot, length: 0, state: "stopped", at: 0 });
    await sleep(20);
    expect(next).toBe("waiting"); // not stopped by the first try's other answers
    const asked = fills().length;
    before.close();
    held.written(); // the writing before ends: the thread frees its slots, then is asked again
    expect(ends()).toEqual([beforeId]);
    await sleep(5);
    expect(fills()).toHaveLength(asked + AGAIN_SLOTS);
    const again = fills().slice(asked);
    expect(again.map((f) => f.first)).toEqual([true, ...Array(AGAIN_SLOTS - 1).fill(undefined)]);
    const secondTry = again[0]?.id as number;
    expect(secondTry).not.toBe(firstTry);
    // Asked after the end was said, so the thread has the slots free by then.
    const endSaid = requests.findIndex((r) => r.kind === "again-end");
    expect(requests.findIndex((r) => r.kind === "again" && r.id === secondTry)).toBeGreaterThan(endSaid);
    // A late answer to the first try is nobody's; the second try's lines come through.
    client.receive({ kind: "again", id: firstTry, slot: 0, length: 7, state: "more", at: 0 });
    client.receive({ kind: "again", id: secondTry, slot: 0, length: 3, state: "done", at: 5, memory });
    await sleep(10);
    expect((next as unknown as AgainPiece).bytes).toMatchObject({ length: 3, byteOffset: 5 });
    expect(await waiting.next()).toBeNull();
  });

  it("lets one waiting writing ask again for each writing that ended, the longest waiting first", async () => {
    const { worker, fills } = notingWorker();
    const client = new LinesAgainClient();
    const full = (writing: LinesWrittenAgain) => {
      answerFull(client, fills().at(-AGAIN_SLOTS)?.id as number);
      return writing.next();
    };
    const running = client.begin(worker, "h");
    const runningId = fills()[0]?.id as number;
    const waiting = Array.from({ length: 5 }, () => full(client.begin(worker, "h")));
    await sleep(5);
    const asked = fills().length;
    // The running writing (begun there: its first answer gives the memory) ends, its slots answered and
    // then closed: one waiting writing asks again.
    answerDone(client, runningId, threadMemory());
    running.close();
    await sleep(5);
    expect(fills()).toHaveLength(asked + AGAIN_SLOTS);
    expect(fills().at(-AGAIN_SLOTS)?.first).toBe(true);
    // And the thread ending wakes every one of them, to give up, not to ask it again.
    const lostAt = Date.now();
    client.lost(worker);
    expect(await Promise.all(waiting)).toEqual(Array(5).fill(undefined));
    expect(Date.now() - lostAt).toBeLessThan(AGAIN_WAIT_MS / 2);
    expect(fills()).toHaveLength(asked + AGAIN_SLOTS);
  });

  it("wakes no waiting writing when one that never held slots there ends (told full, or stopped)", async () => {
    const { worker, fills } = notingWorker();
    const client = new LinesAgainClient();
    const full = (writing: LinesWrittenAgain) => {
      answerFull(client, fills().at(-AGAIN_SLOTS)?.id as number);
      return writing.next();
    };
    client.begin(worker, "h"); // holds the thread's slots, and does not end here
    const first = full(client.begin(worker, "h"));
    const second = client.begin(worker, "h");
    const secondNext = full(second);
    await sleep(5);
    const asked = fills().length;
    second.close(); // its client went away: it never held slots
    expect(await secondNext).toBeUndefined();
    await sleep(5);
    expect(fills()).toHaveLength(asked); // the first was not woken to ask the thread again
    client.lost(worker);
    expect(await first).toBeUndefined();
  });

  it("asks again at once when a writing ended between its request and the thread's answer full", async () => {
    const { worker, fills } = notingWorker();
    const client = new LinesAgainClient();
    const memory = threadMemory();
    const running = client.begin(worker, "h");
    const runningId = fills()[0]?.id as number;
    answerDone(client, runningId, memory, 1);
    const held = (await running.next()) as AgainPiece;
    const waiting = client.begin(worker, "h"); // the thread answers it "full" before it hears of the end below
    const waitingId = fills().at(-AGAIN_SLOTS)?.id as number;
    running.close();
    held.written(); // the end is said: the thread frees the slots
    answerFull(client, waitingId);
    const asked = fills().length;
    const next = waiting.next();
    await sleep(20);
    expect(fills()).toHaveLength(asked + AGAIN_SLOTS);
    waiting.close();
    expect(await next).toBeUndefined();
  });

  it("gives up asking again after AGAIN_WAIT_MS, or at once when closed, and the thread is told of neither try", async () => {
    const { worker, fills, ends } = notingWorker();
    const client = new LinesAgainClient();
    const full = (writing: LinesWrittenAgain) => {
      answerFull(client, fills().at(-AGAIN_SLOTS)?.id as number);
      return writing.next();
    };
    const started = Date.now();
    const late = client.begin(worker, "h");
    expect(await full(late)).toBeUndefined(); // nothing ended: the rest from the members
    expect(Date.now() - started).toBeGreaterThanOrEqual(AGAIN_WAIT_MS - 5);
    late.close();
    const closed = client.begin(worker, "h");
    const asked = fills().length;
    const gone = full(closed);
    await sleep(10);
    const closedAt = Date.now();
    closed.close(); // its client went away
    expect(await gone).toBeUndefined();
    expect(Date.now() - closedAt).toBeLessThan(AGAIN_WAIT_MS / 2);
    expect(fills()).toHaveLength(asked); // not asked again
    // Neither try began a writing, but each is ended once answered, as any writing is (ends free nothing there).
    expect(ends()).toHaveLength(2);
  });

  it("ends the writings of a thread that ended, a next() waiting on it at once", async () => {
    const { worker } = notingWorker();
    const other = notingWorker().worker;
    const client = new LinesAgainClient();
    const writing = client.begin(worker, "h");
    const elsewhere = client.begin(other, "h");
    const waiting = writing.next();
    client.lost(worker);
    expect(await waiting).toBeUndefined();
    expect(await writing.next()).toBeUndefined();
    // Another thread's writing goes on (it times out here only because that fake says nothing).
    const started = Date.now();
    expect(await elsewhere.next()).toBeUndefined();
    expect(Date.now() - started).toBeGreaterThanOrEqual(AGAIN_WAIT_MS - 5);
  });
});
