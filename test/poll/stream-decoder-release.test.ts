import type { Worker } from "node:worker_threads";
import { describe, expect, it } from "vitest";
import { type FamilyLines, isPacked } from "../../src/exposition/pack.js";
import { plainText } from "../../src/exposition/unpack.js";
import { StreamDecoder } from "../../src/poll/stream-decoder.js";
import { decodeTargetsFast } from "../../src/poll/targets-fast-path.js";
import { decodeOptions } from "../helpers/decode-options.js";

// The decoder thread frees each chunk once its reader's write returned (transferable.ts `release`,
// Node 21 and newer): these answers make the reader carry values across chunks and window pieces,
// remember strings, read warnings and label spans, and keep targets for replica facts, so any byte of
// a chunk read after `write` returned would change the result (a detached chunk reads as empty).
const options = decodeOptions({
  replicaFacts: true,
  targetLabels: [
    { from: "team", to: "team" },
    { from: "zone", to: "zone" },
  ],
});

function answer(targets: number, huge = 0): Buffer {
  const active = Array.from({ length: targets }, (_, i) => {
    const team = i === 3 && huge ? "h".repeat(huge) : ['t\\"q\\u00e9', "équipe", "plain"][i % 3];
    const pool = i % 5 === 0 ? "p\\u00f6ol" : `pool${i % 7}`;
    return `{"labels":{"job":"j","instance":"h${i}:9100","team":"${team}","zone":"z${i % 4}"},"scrapePool":"${pool}","health":"${["up", "down", "unknown"][i % 3]}","lastError":"${i % 3 === 1 ? "err \\u2603" : ""}","lastScrape":"2026-11-26T06:00:00Z","lastScrapeDuration":0.0${i % 10}1,"scrapeInterval":"15s","scrapeTimeout":"10s"}`;
  });
  const dropped = Array.from({ length: targets >> 2 }, (_, i) => `{"discoveredLabels":{"job":"d${i % 3}"}}`);
  return Buffer.from(
    `{"status":"success","warnings":["w \\u00e9 one","wide é two","${"x".repeat(3000)}"],"data":{"activeTargets":[${active.join(",")}],"droppedTargets":[${dropped.join(",")}]}}`,
  );
}

const plain = async (lines: FamilyLines) => (isPacked(lines) ? plainText([lines]) : Buffer.from(lines));

/** What a result says, comparable: families as plain text, warnings, summary, facts' bytes. */
async function seen(result: {
  families: readonly (readonly [string, FamilyLines])[];
  warnings?: readonly string[];
  facts?: unknown;
}) {
  const families = await Promise.all(result.families.map(async ([n, l]) => [n, (await plain(l)).toString()]));
  const facts = JSON.stringify(result.facts, (_, v) =>
    ArrayBuffer.isView(v) ? Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString("base64") : v,
  );
  return { families, warnings: result.warnings, facts };
}

async function streamed(decoder: StreamDecoder, chunks: Iterable<Uint8Array>) {
  const stream = decoder.openStream("targets", options);
  for (const chunk of chunks) expect(await stream.write(chunk)).toBe(true);
  const end = await stream.end(60_000);
  if (end.gaveUp || !end.result.ok) throw new Error(`not decoded: ${JSON.stringify(end)}`);
  return seen(end.result);
}

/** What reading the whole answer at once gives (the reader must not give up on it). */
async function asWhole(text: Buffer) {
  const whole = decodeTargetsFast(Buffer.from(text), options);
  if (!whole) throw new Error("the reader gave up on the whole answer");
  return seen(whole);
}

function* cut(text: Buffer, sizes: () => number, copy = true): Generator<Uint8Array> {
  for (let at = 0; at < text.length; ) {
    const n = sizes();
    yield copy ? Buffer.from(text.subarray(at, at + n)) : text.subarray(at, at + n);
    at += n;
  }
}

/** A small random generator (xorshift32), seeded: the same cuts every run. */
function random(seed: number) {
  let s = seed | 0;
  return (below: number) => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) % below;
  };
}

describe("a decoder thread that frees each chunk once it was read", () => {
  const small = answer(40);
  const large = answer(600, 300 * 1024); // a label value longer than the reader's 256 KiB window

  it.each([
    ["one byte each", small, () => 1],
    [
      "1-7 bytes, with empty chunks",
      small,
      (
        (r) => () =>
          r(8)
      )(random(7)),
    ],
    [
      "up to 600 KiB, with empty chunks",
      large,
      (
        (r) => () =>
          r(4) === 0 ? 0 : r(600 * 1024)
      )(random(11)),
    ],
    ["the whole answer larger than the window", large, () => large.length],
    ["300 KiB, each beyond the window", large, () => 300 * 1024],
  ])(
    "reads an answer cut %s as it reads it whole",
    async (_, text, sizes) => {
      const expected = await asWhole(text);
      const decoder = new StreamDecoder(() => 320 * 2 ** 20);
      expect(await streamed(decoder, cut(text, sizes))).toEqual(expected);
      expect(decoder.started).toBe(1);
    },
    60_000,
  );

  it("reads views that share one buffer (copied, the neighbours not detached) and small pooled chunks", async () => {
    const expected = await asWhole(large);
    const decoder = new StreamDecoder(() => 320 * 2 ** 20);
    const text = Buffer.from(large);
    expect(
      await streamed(
        decoder,
        cut(text, () => 100_003, false),
      ),
    ).toEqual(expected);
    expect(text.equals(large)).toBe(true);
    // Buffer.from of under 4 KiB is a slice of Node's shared pool
    expect(
      await streamed(
        decoder,
        cut(small, () => 1000),
      ),
    ).toEqual(await asWhole(small));
    expect(decoder.started).toBe(1);
  }, 60_000);

  it("goes on after a stream it gave up on, was dropped from, or does not know, and a chunk of shared memory", async () => {
    const decoder = new StreamDecoder(() => 320 * 2 ** 20);
    // Gave up (a duplicate status): later chunks are refused, the answer goes to the reference path.
    const duplicate = Buffer.from(`{"status":"success","status":"success",${small.subarray(22).toString()}`);
    const gaveUp = decoder.openStream("targets", options);
    for (const chunk of cut(duplicate, () => 1000)) await gaveUp.write(chunk);
    // Its ack says it gave up: a later write is refused.
    let refused = false;
    for (let i = 0; i < 100 && !refused; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      refused = !(await gaveUp.write(Buffer.from(" ")));
    }
    expect(refused).toBe(true);
    expect((await gaveUp.end(10_000)).gaveUp).toBe(true);
    // Dropped halfway.
    const dropped = decoder.openStream("targets", options);
    await dropped.write(Buffer.from(small.subarray(0, 500)));
    dropped.abort();
    expect(await dropped.write(Buffer.from(small.subarray(500)))).toBe(false);
    // Messages no stream of this process sends: a chunk for an unknown stream, one of shared memory.
    const worker = (decoder as unknown as { worker: Worker }).worker;
    const shared = new Uint8Array(new SharedArrayBuffer(16));
    const moved = new Uint8Array(32);
    worker.postMessage({ kind: "chunks", id: 10_000, bytes: [moved] }, [moved.buffer]);
    worker.postMessage({ kind: "chunks", id: 10_001, bytes: [shared] });
    worker.postMessage({ kind: "chunks", id: 10_002, bytes: [new Uint8Array(0)] });
    expect(
      await streamed(
        decoder,
        cut(small, () => 777),
      ),
    ).toEqual(await asWhole(small));
    expect(decoder.started).toBe(1);
  }, 60_000);
});
