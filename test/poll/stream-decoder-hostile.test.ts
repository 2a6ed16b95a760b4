import type { Worker } from "node:worker_threads";
import { describe, expect, it } from "vitest";
import { targetsAnswer } from "../../scripts/bench/generate.js";
import { type FamilyLines, isPacked } from "../../src/exposition/pack.js";
import { plainText } from "../../src/exposition/unpack.js";
import { StreamDecoder, type StreamEnd } from "../../src/poll/stream-decoder.js";
import { decodeTargetsFast } from "../../src/poll/targets-fast-path.js";
import { MAX_VALUE_BYTES } from "../../src/upstream/targets/answer-reader.js";
import { decodeOptions } from "../helpers/decode-options.js";

// The chunks of a streamed answer go to the decoder thread in groups, sent at the event-loop turn's end
// or once 512 KiB are waiting (src/poll/stream-decoder.ts, 3704e33). Against a hostile upstream: the
// order of chunks across groups, an answer forgotten or ended while a group waits, the thread lost
// while one waits, and a bad answer given up before much more of it is handed over.

const options = decodeOptions();
const turnEnd = () => new Promise((resolve) => setImmediate(resolve));

/** The thread's messages, as the decoder posts them (kind and stream id). */
function recordMessages(decoder: StreamDecoder): { kind: string; id?: number }[] {
  const worker = (decoder as unknown as { worker: Worker }).worker;
  const posted: { kind: string; id?: number }[] = [];
  const post = worker.postMessage.bind(worker);
  worker.postMessage = (message: { kind: string; id?: number }, transfer?: readonly ArrayBuffer[]) => {
    posted.push({ kind: message.kind, id: message.id });
    post(message, transfer);
  };
  return posted;
}

const plain = async (lines: FamilyLines) => (isPacked(lines) ? plainText([lines]) : Buffer.from(lines));
async function familiesOf(end: StreamEnd): Promise<[string, string][]> {
  if (end.gaveUp || !end.result.ok) throw new Error(`not decoded: ${JSON.stringify(end)}`);
  return Promise.all(end.result.families.map(async ([name, lines]) => [name, (await plain(lines)).toString()]));
}
async function expected(text: Buffer): Promise<[string, string][]> {
  const decoded = decodeTargetsFast(text, options);
  if (!decoded) throw new Error("the reference reader gave up");
  return Promise.all(decoded.families.map(async ([name, lines]) => [name, (await plain(lines)).toString()]));
}

/** Pieces of `text` of the sizes given in turn (cycled). */
function cut(text: Buffer, sizes: readonly number[]): Buffer[] {
  const out: Buffer[] = [];
  for (let at = 0, i = 0; at < text.length; i++) {
    const size = sizes[i % sizes.length] as number;
    out.push(Buffer.from(text.subarray(at, at + size)));
    at += size;
  }
  return out;
}

describe("StreamDecoder against a hostile upstream", () => {
  it("keeps the chunks' order across groups: many in one turn, sizes that cross 512 KiB anywhere", async () => {
    const text = Buffer.from(targetsAnswer(6000)); // ~4.6 MB: several groups, the high-water mark reached
    const decoder = new StreamDecoder(() => 320 * 2 ** 20);
    // Odd sizes, some tiny, one larger than a group: every chunk handed over without waiting for a turn.
    const pieces = cut(text, [1, 70_001, 3, 524_289, 65_536, 17, 200_000]);
    const stream = decoder.openStream("targets", options);
    for (const piece of pieces) expect(await stream.write(piece)).toBe(true);
    expect(await familiesOf(await stream.end(60_000))).toEqual(await expected(text));
  });

  it("ends an answer whose last group was not sent yet with every chunk read (end sends it first)", async () => {
    const text = Buffer.from(targetsAnswer(300));
    const decoder = new StreamDecoder(() => 320 * 2 ** 20);
    const stream = decoder.openStream("targets", options);
    for (const piece of cut(text, [4096])) void stream.write(piece);
    // No turn has ended: every chunk is still in the group.
    expect(await familiesOf(await stream.end(60_000))).toEqual(await expected(text));
  });

  it("sends nothing of a forgotten answer: its waiting group is dropped with it", async () => {
    const text = Buffer.from(targetsAnswer(300));
    const decoder = new StreamDecoder(() => 320 * 2 ** 20);
    decoder.warm();
    const posted = recordMessages(decoder);
    const stream = decoder.openStream("targets", options);
    for (const piece of cut(text, [4096])) void stream.write(piece);
    stream.abort();
    await turnEnd();
    await turnEnd();
    expect(posted.map((m) => m.kind)).toEqual(["open", "drop"]);
    expect(await stream.write(Buffer.from("x"))).toBe(false);
    // The next answer is read as if the forgotten one never was.
    const next = decoder.openStream("targets", options);
    expect(await next.write(Buffer.from(text))).toBe(true);
    expect(await familiesOf(await next.end(60_000))).toEqual(await expected(text));
  });

  it("fails an answer whose thread ended while a group waited, and reads the next on a new thread", async () => {
    const text = Buffer.from(targetsAnswer(300));
    const decoder = new StreamDecoder(() => 320 * 2 ** 20);
    decoder.warm();
    const worker = (decoder as unknown as { worker: Worker }).worker;
    const stream = decoder.openStream("targets", options);
    for (const piece of cut(text, [4096]).slice(0, 5)) expect(await stream.write(piece)).toBe(true);
    await worker.terminate(); // the group is still waiting for the turn's end
    await turnEnd();
    expect(await stream.write(Buffer.from("x"))).toBe(false);
    const end = await stream.end(60_000);
    expect(end.gaveUp || end.result.ok).toBe(false);
    const next = decoder.openStream("targets", options);
    expect(await next.write(Buffer.from(text))).toBe(true);
    expect(await familiesOf(await next.end(60_000))).toEqual(await expected(text));
    expect(decoder.started).toBe(2);
  });

  /** What is handed over of an answer that starts with `start`, then spaces, until the writer is told to stop. */
  async function handedBeforeStop(start: string) {
    const decoder = new StreamDecoder(() => 320 * 2 ** 20);
    const stream = decoder.openStream("targets", options);
    // As much as a hostile upstream likes, written as fast as it comes (no turn ends between writes).
    const filler = Buffer.alloc(64 * 1024, 0x20);
    let handed = 0;
    let more = await stream.write(Buffer.from(start));
    while (more && handed < 64 * 2 ** 20) {
      more = await stream.write(Buffer.from(filler));
      handed += filler.length;
    }
    expect(more).toBe(false);
    expect((await stream.end(60_000)).gaveUp).toBe(true);
    return handed;
  }

  it("tells a writer to stop soon after a bad answer's start: not much more of it is handed over", async () => {
    // A proxy's page: the reader gives up on its first byte; the verdict comes with the first acknowledgement.
    expect(await handedBeforeStop("<html><body>502 Bad Gateway")).toBeLessThanOrEqual(4 * 2 ** 20 + 64 * 1024);
  });

  it("tells a writer to stop once a value that never ends passes the reader's bound", async () => {
    // A value is carried whole until MAX_VALUE_BYTES (16 MiB, answer-reader.ts); then the high-water mark.
    const handed = await handedBeforeStop('{"status":"success","data":{"activeTargets":[[[[[[');
    expect(handed).toBeGreaterThan(4 * 2 ** 20);
    expect(handed).toBeLessThanOrEqual(MAX_VALUE_BYTES + 4 * 2 ** 20 + 64 * 1024);
  });
});
