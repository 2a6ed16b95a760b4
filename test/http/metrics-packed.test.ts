import { randomBytes } from "node:crypto";
import { get, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { crc32, gunzipSync, inflateRawSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { SampleSet } from "../../src/convert/samples.js";
import { type Families, type PackedLines, packFamilies, packLines } from "../../src/exposition/pack.js";
import { type RenderedFamilies, renderSamples, sourceLabelPrefix } from "../../src/exposition/text-format.js";
import { ownMemoryTogether } from "../../src/poll/transferable.js";
import { ProcessMetrics } from "../../src/publish/process-metrics.js";
import { type Exposition, SourceStore } from "../../src/publish/store.js";
import { waitFor } from "../harness/processes.js";
import { appServing } from "../helpers/app.js";
import { sourceConfig } from "../helpers/config.js";
import { samplesOf } from "../helpers/exposition.js";
import { hangUpAfterFirstBytes } from "../helpers/hang-up.js";
import { promtoolCheckMetrics } from "../helpers/promtool.js";

// /metrics over families a decoder thread packed into gzip members (exposition/pack.ts): gzip scrapes
// get the members as they are, plain scrapes their text inflated as the response streams.

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

async function serve(exposition: () => Exposition): Promise<string> {
  // Runtime metrics collected once for the whole test, so two scrapes carry the same head.
  const app = appServing(exposition, { processMetrics: new ProcessMetrics("test", 3_600_000) });
  server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, "127.0.0.1", () => resolve(s));
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`;
}

/** A response as it came on the wire (no decompression), with the chunks it arrived in. */
function rawGet(url: string, headers: Record<string, string>, method = "GET") {
  return new Promise<{ res: IncomingMessage; body: Buffer; chunks: number }>((resolve, reject) => {
    get(url, { headers, method }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ res, body: Buffer.concat(chunks), chunks: chunks.length }));
      res.on("error", reject);
    }).on("error", reject);
  });
}

const A = sourceConfig({ name: "a", labels: { region: "eu-1" } });

/** A store holding a large targets answer as the decoder hands it over, and a small tsdb answer decoded inline. */
async function storeWithPackedFamilies(): Promise<SourceStore> {
  const set = new SampleSet();
  for (let i = 0; i < 3000; i++) {
    const labels = { scrape_pool: "node", job: "node", instance: `host-${i}.example:9100` };
    set.add("promstatus_target_up", labels, i % 7 === 0 ? 0 : 1);
    set.add("promstatus_target_scrape_duration_seconds", labels, i / 1000);
  }
  const rendered: RenderedFamilies = [...set.families].map(([name, list]) => [
    name,
    renderSamples(name, sourceLabelPrefix(A), list),
  ]);
  const store = new SourceStore([A]);
  const timing = { durationSeconds: 0.5, finishedAt: 1000 };
  store.record(A, "targets", { ok: true, families: packFamilies(rendered), series: set.size, ...timing });
  const head = new SampleSet().add("promstatus_tsdb_head_series", {}, 42);
  const tsdb = [...head.families].map(([name, list]): [string, Uint8Array] => [
    name,
    renderSamples(name, sourceLabelPrefix(A), list),
  ]);
  store.record(A, "tsdb", { ok: true, families: tsdb, series: 1, ...timing });
  await waitFor("gzip ready", async () => store.exposition().gzip, 5000, 5);
  return store;
}

/** Resolves once the server has taken no further member to inflate for a while. */
async function settled(taken: Set<number>): Promise<void> {
  let seen = -1;
  const still = async () => {
    const unchanged = taken.size === seen;
    seen = taken.size;
    return unchanged ? true : undefined;
  };
  await waitFor("the server to stop inflating", still, 10_000, 250);
}

/** A 48 MiB family packed in 48 members, served, with the members the server has taken to inflate so far. */
async function serveLarge() {
  let block = "";
  for (let i = 0; block.length < 2 ** 20 - 200; i++) block += `promstatus_target_up{instance="host-${i}:9100"} 1\n`;
  const lines = Buffer.concat(Array.from({ length: 48 }, () => Buffer.from(block)));
  const packed = packLines(lines);
  expect(packed.members.length).toBe(48);
  const taken = new Set<number>();
  const members = new Proxy(packed.members, {
    get(target, key, receiver) {
      if (typeof key === "string" && /^\d+$/.test(key)) taken.add(Number(key));
      return Reflect.get(target, key, receiver);
    },
  });
  const header = Buffer.from("# TYPE promstatus_target_up gauge\n");
  const parts = [header, { ...packed, members } satisfies PackedLines];
  const length = header.length + lines.length;
  const url = await serve(() => ({ parts, length, gzip: undefined }));
  return { packed, taken, header, lines, length, url };
}

describe("/metrics over packed families", () => {
  it("serves the same bytes plain and gzip, with the lengths it announces, and promtool accepts them", async () => {
    const store = await storeWithPackedFamilies();
    expect(store.exposition().parts.some((p) => !(p instanceof Uint8Array))).toBe(true);
    const url = await serve(() => store.exposition());
    const plain = await rawGet(url, { "accept-encoding": "identity" });
    const zipped = await rawGet(url, { "accept-encoding": "gzip" });
    expect(plain.res.headers["content-encoding"]).toBeUndefined();
    expect(zipped.res.headers["content-encoding"]).toBe("gzip");
    expect(Number(plain.res.headers["content-length"])).toBe(plain.body.length);
    expect(Number(zipped.res.headers["content-length"])).toBe(zipped.body.length);
    expect(zipped.body.length).toBeLessThan(plain.body.length / 4);
    expect(gunzipSync(zipped.body).equals(plain.body)).toBe(true);
    // ONE gzip member, whole: browsers read a gzip body's first member only and drop the rest unsaid
    // (Chromium's gzip_source_stream.cc), curl 7.88 fails after it. Read as they read it: the header,
    // one deflate stream to its last block, the trailer, and nothing after.
    expect([...zipped.body.subarray(0, 3)]).toEqual([0x1f, 0x8b, 8]);
    const member = inflateRawSync(zipped.body.subarray(10), { info: true }) as unknown as {
      buffer: Buffer;
      engine: { bytesWritten: number };
    };
    expect(member.buffer.equals(plain.body)).toBe(true);
    expect(10 + member.engine.bytesWritten + 8).toBe(zipped.body.length);
    const trailer = zipped.body.subarray(-8);
    expect(trailer.readUInt32LE(0)).toBe(crc32(plain.body));
    expect(trailer.readUInt32LE(4)).toBe(plain.body.length);
    // Again within the runtime metrics' max age: their part is compressed once and given again.
    const again = await rawGet(url, { "accept-encoding": "gzip" });
    expect(gunzipSync(again.body).equals(plain.body)).toBe(true);

    const text = plain.body.toString("utf8");
    expect(samplesOf(text, "promstatus_target_up", { source: "a" })).toHaveLength(3000);
    expect(samplesOf(text, "promstatus_target_up", { instance: "host-7.example:9100" })[0]?.value).toBe(0);
    expect(samplesOf(text, "promstatus_tsdb_head_series")[0]?.value).toBe(42);
    const check = promtoolCheckMetrics(text);
    expect(check.output).toBe("");
    expect(check.status).toBe(0);

    // HEAD: the same headers, no body (and nothing inflated for it).
    for (const [encoding, full] of [
      ["identity", plain],
      ["gzip", zipped],
    ] as const) {
      const head = await rawGet(url, { "accept-encoding": encoding }, "HEAD");
      expect(head.res.statusCode).toBe(200);
      expect(head.res.headers["content-length"]).toBe(String(full.body.length));
      expect(head.body.length).toBe(0);
    }
  });

  it("streams a plain scrape member by member, inflating no further ahead than the client reads", async () => {
    const { packed, taken, header, lines, length, url } = await serveLarge();

    const received = await new Promise<{ chunks: number; body: Buffer; takenWhilePaused: number }>(
      (resolve, reject) => {
        get(url, { headers: { "accept-encoding": "identity" } }, (res) => {
          const chunks: Buffer[] = [];
          res.once("data", async (first: Buffer) => {
            chunks.push(first);
            res.pause(); // a client that stops reading: the server must stop inflating
            await settled(taken);
            const takenWhilePaused = taken.size;
            res.on("data", (c: Buffer) => chunks.push(c));
            res.on("end", () => resolve({ chunks: chunks.length, body: Buffer.concat(chunks), takenWhilePaused }));
            res.resume();
          });
          res.on("error", reject);
        }).on("error", reject);
      },
    );
    // Socket buffers hold a few MiB; the rest waited for the client.
    expect(received.takenWhilePaused).toBeGreaterThan(0);
    expect(received.takenWhilePaused).toBeLessThan(packed.members.length / 2);
    expect(taken.size).toBe(packed.members.length);
    expect(received.chunks).toBeGreaterThan(1);
    const head = received.body.length - length;
    expect(received.body.subarray(head).equals(Buffer.concat([header, lines]))).toBe(true);
  });

  it("stops inflating when the client hangs up, and goes on serving", async () => {
    const { packed, taken, url } = await serveLarge();
    await hangUpAfterFirstBytes(url);
    await settled(taken);
    expect(taken.size).toBeLessThan(packed.members.length / 2);
    const next = await rawGet(url, { "accept-encoding": "gzip" }); // nothing packed is gzip-ready here: plain
    expect(next.res.statusCode).toBe(200);
    expect(next.body.length).toBe(Number(next.res.headers["content-length"]));
  });

  it("frees a replaced family's members only once the scrapes reading them ended, which get its bytes whole", async () => {
    // Lines that compress little, so that the gzip body too outlasts the socket's buffers while paused.
    const text = (seed: number) => {
      const rows: string[] = [];
      for (let i = 0; rows.length < 120_000; i++)
        rows.push(
          `promstatus_target_up{source="a",region="eu-1",instance="${randomBytes(24).toString("hex")}"} ${(i + seed) % 2}\n`,
        );
      return Buffer.from(rows.join(""));
    };
    const outcome = (lines: Buffer) => {
      const packed = packLines(lines);
      packed.members = ownMemoryTogether(packed.members); // as a decoder thread hands them over
      return {
        ok: true as const,
        families: [["promstatus_target_up", packed]] as Families,
        series: 1,
        durationSeconds: 0.5,
        finishedAt: 1000,
      };
    };
    const store = new SourceStore([A]);
    const first = text(0);
    const firstOutcome = outcome(first);
    const old = (firstOutcome.families[0] as [string, PackedLines])[1].members;
    store.record(A, "targets", firstOutcome);
    await waitFor("gzip ready", async () => store.exposition().gzip, 5000, 5);
    const url = await serve(() => store.exposition());

    // A plain and a gzip scrape that read a little, then stop.
    let plainLength: string | undefined;
    const paused = (encoding: string) =>
      new Promise<{ body: Promise<Buffer>; resume: () => void }>((resolve, reject) => {
        get(url, { headers: { "accept-encoding": encoding } }, (res) => {
          const chunks: Buffer[] = [];
          if (encoding === "identity") plainLength = res.headers["content-length"];
          const body = new Promise<Buffer>((done) => res.on("end", () => done(Buffer.concat(chunks))));
          res.once("data", (c: Buffer) => {
            chunks.push(c);
            res.pause();
            res.on("data", (more: Buffer) => chunks.push(more));
            resolve({ body, resume: () => res.resume() });
          });
          res.on("error", reject);
        }).on("error", reject);
      });
    const plain = await paused("identity");
    const zipped = await paused("gzip");
    await new Promise((r) => setTimeout(r, 200)); // the socket buffers full

    store.record(A, "targets", outcome(text(1))); // the family replaced while both read it
    expect(store.exposition().parts.some((p) => !(p instanceof Uint8Array) && p.members === old)).toBe(false);
    expect(old.every((m) => m.byteLength > 0)).toBe(true); // still being read: not freed
    plain.resume();
    zipped.resume();
    const [plainBody, zippedBody] = await Promise.all([plain.body, zipped.body]);
    // Whole, and as announced: the family's old lines among the rest of the exposition.
    const plainText = plainBody.toString();
    expect(plainBody.length).toBe(Number(plainLength));
    expect(plainText.includes(first.toString())).toBe(true);
    expect(gunzipSync(zippedBody).toString()).toBe(plainText);
    // Once both ended: freed where the runtime can detach memory (Node.js 21 and newer).
    const canDetach = typeof (ArrayBuffer.prototype as { transfer?: unknown }).transfer === "function";
    await waitFor(
      "the old members freed",
      async () => (old.every((m) => (m.byteLength === 0) === canDetach) ? true : undefined),
      5000,
      10,
    );
  });
});
