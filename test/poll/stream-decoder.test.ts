import type { HeapInfo } from "node:v8";
import { type Worker, Worker as WorkerThread } from "node:worker_threads";
import { gzipSync } from "node:zlib";
import { describe, expect, it, vi } from "vitest";
import { targetsAnswer } from "../../scripts/bench/generate.js";
import { isPacked } from "../../src/exposition/pack.js";
import { plainText } from "../../src/exposition/unpack.js";
import { TAIL_BYTES } from "../../src/poll/flavor-clues.js";
import { StreamDecoder } from "../../src/poll/stream-decoder.js";
import { decodeTargetsFast } from "../../src/poll/targets-fast-path.js";
import { waitFor } from "../harness/processes.js";
import { decodeOptions } from "../helpers/decode-options.js";

const options = decodeOptions();

async function decodeOn(decoder: StreamDecoder, text: Buffer, opened = options) {
  const stream = decoder.openStream("targets", opened);
  expect(await stream.write(Buffer.from(text))).toBe(true); // a copy: the chunk is moved to the thread
  const end = await stream.end(60_000);
  expect(!end.gaveUp && end.result.ok).toBe(true);
  return end;
}

describe("StreamDecoder", () => {
  it("fails timeout when the result is not there within the time left, and says it is the time left", async () => {
    const decoder = new StreamDecoder(() => 320 * 2 ** 20);
    const stream = decoder.openStream("targets", options);
    await stream.write(Buffer.from(targetsAnswer(20000)));
    // The thread still reads and renders 20000 targets: its result cannot come within 1 ms.
    const end = await stream.end(1);
    expect(end).toEqual({
      gaveUp: false,
      tail: "",
      result: {
        ok: false,
        reason: "timeout",
        message: "the answer was not decoded within the time left of the timeout (1 ms)",
      },
    });
  });

  it("ends a thread whose heap grew past the warm limit soon after its answers, and keeps a small one warm", async () => {
    // No per-target series: the threads keep nothing of the source for its next answer.
    const text = Buffer.from(targetsAnswer(2000));
    const plain = decodeOptions({ perTarget: false });
    const small = new StreamDecoder(() => 320 * 2 ** 20); // a 2000-target answer leaves its heap far under 64 MiB
    const large = new StreamDecoder(() => 320 * 2 ** 20, 1); // any heap is over a limit of 1 byte
    await decodeOn(small, text, plain);
    await decodeOn(large, text, plain);
    await waitFor("the large thread to end", async () => (large.running ? undefined : true), 10_000, 50);
    expect(small.running).toBe(true);
    // The next answer gets a fresh thread; the small one's is reused.
    await decodeOn(large, text, plain);
    await decodeOn(small, text, plain);
    expect([large.started, small.started]).toEqual([2, 1]);
  });

  it("keeps a thread that keeps a source's series for its next answer, whatever its heap", async () => {
    const text = Buffer.from(targetsAnswer(2000));
    const large = new StreamDecoder(() => 320 * 2 ** 20, 1); // any heap is over a limit of 1 byte
    await decodeOn(large, text);
    // Longer than a thread over the limit is kept when it keeps nothing (1 s).
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(large.running).toBe(true);
    await decodeOn(large, text);
    expect(large.started).toBe(1);
  });

  it("gives the same families for the same answer again, large ones packed from the members it kept", async () => {
    const text = Buffer.from(targetsAnswer(3000));
    const expected = decodeTargetsFast(text, options)?.families ?? [];
    const decoder = new StreamDecoder(() => 320 * 2 ** 20);
    for (let round = 0; round < 3; round++) {
      const end = await decodeOn(decoder, text);
      const families = !end.gaveUp && end.result.ok ? end.result.families : [];
      expect(families.map(([name]) => name)).toEqual(expected.map(([name]) => name));
      expect(families.filter(([, lines]) => isPacked(lines)).length).toBeGreaterThan(0);
      for (const [i, [, lines]] of families.entries())
        expect((await plainText([lines])).equals(Buffer.from((expected[i] as [string, Uint8Array])[1]))).toBe(true);
    }
    expect(decoder.started).toBe(1);
  });

  // Node 20 has neither ArrayBuffer.prototype.transfer (its collector frees the chunks) nor a worker's heap statistics.
  const canRelease =
    typeof (ArrayBuffer.prototype as { transfer?: unknown }).transfer === "function" &&
    typeof (WorkerThread.prototype as { getHeapStatistics?: unknown }).getHeapStatistics === "function";
  it.runIf(canRelease)(
    "gives each chunk's memory back as soon as it is read, not at the thread's next collection",
    async () => {
      // ~25 MB of dropped targets (counted by pool, nothing kept per target), under V8's 64 MB trigger of a
      // collection by memory held outside the heap.
      const dropped = (i: number) =>
        `{"discoveredLabels":{"__address__":"10.1.${i >> 8}.${i & 255}:9100","job":"node","__meta_pod":"${"p".repeat(500)}"}}`;
      const list = Array.from({ length: 40_000 }, (_, i) => dropped(i)).join(",");
      const text = Buffer.from(`{"status":"success","data":{"activeTargets":[],"droppedTargets":[${list}]}}`);
      const decoder = new StreamDecoder(() => 320 * 2 ** 20);
      decoder.warm();
      const worker = (decoder as unknown as { worker: Worker & { getHeapStatistics(): Promise<HeapInfo> } }).worker;
      await decodeOn(decoder, Buffer.from(targetsAnswer(10)));
      const before = (await worker.getHeapStatistics()).external_memory;
      const stream = decoder.openStream("targets", options);
      const chunk = 64 * 1024;
      for (let at = 0; at < text.length; at += chunk)
        expect(await stream.write(Buffer.from(text.subarray(at, at + chunk)))).toBe(true);
      const end = await stream.end(60_000);
      expect(!end.gaveUp && end.result.ok).toBe(true);
      const held = (await worker.getHeapStatistics()).external_memory - before;
      // What the thread holds outside its heap once every chunk was read: its reader's window, not the answer.
      expect(held).toBeLessThan(text.length / 8);
    },
  );

  it("acknowledges a streamed answer's chunks a MiB at a time, not each socket read", async () => {
    const text = Buffer.from(targetsAnswer(8000)); // ~6 MB: over the main thread's 4 MiB high-water mark
    const decoder = new StreamDecoder(() => 320 * 2 ** 20);
    decoder.warm();
    const worker = (decoder as unknown as { worker: Worker }).worker;
    const acks: number[] = [];
    worker.on("message", (reply: { kind: string; bytes?: number }) => {
      if (reply.kind === "ack") acks.push(reply.bytes ?? 0);
    });
    const stream = decoder.openStream("targets", options);
    const chunk = 64 * 1024;
    let chunks = 0;
    for (let at = 0; at < text.length; at += chunk, chunks++)
      expect(await stream.write(Buffer.from(text.subarray(at, at + chunk)))).toBe(true);
    const end = await stream.end(60_000);
    expect(!end.gaveUp && end.result.ok).toBe(true);
    expect(chunks).toBeGreaterThan(90);
    // Every ack but the last few stands for a MiB or more (the fetch waited on them past 4 MiB).
    expect(acks.length).toBeGreaterThan(0);
    expect(acks.length).toBeLessThanOrEqual(Math.ceil(text.length / 2 ** 20));
    for (const bytes of acks) expect(bytes).toBeGreaterThanOrEqual(2 ** 20);
  });

  it("hands chunks over in groups of a few milliseconds or 512 KiB, small ones joined into one piece", async () => {
    const text = Buffer.from(targetsAnswer(2000));
    const decoder = new StreamDecoder(() => 320 * 2 ** 20);
    decoder.warm();
    const worker = (decoder as unknown as { worker: Worker }).worker;
    const sent: number[][] = [];
    const post = worker.postMessage.bind(worker);
    worker.postMessage = (message: { kind: string; bytes?: Uint8Array[] }, transfer?: readonly ArrayBuffer[]) => {
      if (message.kind === "chunks") {
        sent.push((message.bytes ?? []).map((b) => b.byteLength));
        // Each piece is all of its memory: the bytes counted are the memory sent (a joined byte holds no 64 KiB).
        for (const b of message.bytes ?? []) expect([b.byteOffset, b.buffer.byteLength]).toEqual([0, b.byteLength]);
      }
      post(message, transfer);
    };
    const stream = decoder.openStream("targets", options);
    const pieces = (from: number, to: number, size: number) => {
      const out: Buffer[] = [];
      for (let at = from; at < to; at += size) out.push(Buffer.from(text.subarray(at, Math.min(to, at + size))));
      return out;
    };
    // Six small chunks (as a real Prometheus's gzip answer comes, a read of 4 KiB at a time): one piece,
    // sent a few milliseconds later, not at the turn's end.
    const first = pieces(0, 24_000, 4_000).map((chunk) => stream.write(chunk));
    await Promise.all(first);
    await new Promise((resolve) => setImmediate(resolve));
    expect(sent).toEqual([]);
    await vi.waitFor(() => expect(sent).toEqual([[24_000]]));
    // Twenty 64 KiB chunks: moved as they are, eight to a message (512 KiB), the rest later; a small
    // one between them keeps its place.
    const at = 24_000 + 10 * 65_536;
    const between = [
      ...pieces(24_000, at, 65_536),
      Buffer.from(text.subarray(at, at + 100)),
      ...pieces(at + 100, at + 100 + 10 * 65_536, 65_536),
    ];
    const many = between.map((chunk) => stream.write(chunk));
    const sixtyFour = (n: number) => Array.from({ length: n }, () => 65_536);
    expect(sent).toEqual([[24_000], sixtyFour(8), [...sixtyFour(2), 100, ...sixtyFour(6)]]);
    await Promise.all(many);
    await vi.waitFor(() => expect(sent).toHaveLength(4));
    expect(sent[3]).toEqual(sixtyFour(4));
    const rest = pieces(at + 100 + 10 * 65_536, text.length, 65_536);
    for (const chunk of rest) expect(await stream.write(chunk)).toBe(true);
    const end = await stream.end(60_000);
    expect(sent.flat().reduce((a, b) => a + b, 0)).toBe(text.length);
    if (end.gaveUp || !end.result.ok) throw new Error("not decoded");
    const expected = decodeTargetsFast(text, options)?.families ?? [];
    expect(end.result.families.map(([name]) => name)).toEqual(expected.map(([name]) => name));
    for (const [i, [, lines]] of end.result.families.entries())
      expect((await plainText([lines])).equals(Buffer.from((expected[i] as [string, Uint8Array])[1]))).toBe(true);
  });

  it("gunzips a gzip answer in the thread: the same families and last bytes as the plain answer", async () => {
    const text = Buffer.from(targetsAnswer(3000));
    const zipped = gzipSync(text);
    const decoder = new StreamDecoder(() => 320 * 2 ** 20);
    const plainEnd = await decodeOn(decoder, text);
    const stream = decoder.openStream("targets", options);
    stream.begin({ gzip: { maxBytes: 2 ** 30, tooLarge: "too large" } });
    for (let at = 0; at < zipped.length; at += 1000) await stream.write(Buffer.from(zipped.subarray(at, at + 1000)));
    const end = await stream.end(60_000);
    if (end.gaveUp || !end.result.ok || plainEnd.gaveUp || !plainEnd.result.ok) throw new Error("not decoded");
    expect(end.tail).toBe(text.subarray(text.length - TAIL_BYTES).toString("latin1"));
    expect(end.tail).toBe(plainEnd.tail);
    expect(end.result.families.map(([name]) => name)).toEqual(plainEnd.result.families.map(([name]) => name));
    for (const [i, [, lines]] of end.result.families.entries()) {
      const [, expected] = plainEnd.result.families[i] as [string, Parameters<typeof plainText>[0][number]];
      expect((await plainText([lines])).equals(await plainText([expected]))).toBe(true);
    }
  });

  it("fails a gzip answer the thread cannot gunzip with what zlib says, and past its bound too_large", async () => {
    const decoder = new StreamDecoder(() => 320 * 2 ** 20);
    const corrupt = decoder.openStream("targets", options);
    corrupt.begin({ gzip: { maxBytes: 2 ** 30, tooLarge: "too large" } });
    await corrupt.write(Buffer.from("not gzip at all"));
    expect(await corrupt.end(60_000)).toMatchObject({
      gaveUp: false,
      result: { ok: false, reason: "invalid_json", message: "answer is not valid gzip: incorrect header check" },
    });
    const bomb = decoder.openStream("targets", options);
    let stopped = 0;
    bomb.begin({ gzip: { maxBytes: 100_000, tooLarge: "answer larger than 100000 bytes after decompression" } }, () => {
      stopped++;
    });
    // The thread says it wants no more: the rest of the answer need not be fetched.
    await waitFor(
      "the thread to want no more",
      async () => ((await bomb.write(gzipSync(Buffer.from(targetsAnswer(500))))) ? undefined : true),
      10_000,
      1,
    );
    expect(await bomb.end(60_000)).toMatchObject({
      gaveUp: false,
      result: { ok: false, reason: "too_large", message: "answer larger than 100000 bytes after decompression" },
    });
    expect(stopped).toBe(1); // the fetch is told at once, once
  });
});
