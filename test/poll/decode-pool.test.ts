import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { referencePathTargetsAnswer, targetsAnswer } from "../../scripts/bench/generate.js";
import { isPacked } from "../../src/exposition/pack.js";
import type { DecodeJob } from "../../src/poll/decode.js";
import { decodeAnswer, outputChunkSize } from "../../src/poll/decode.js";
import { DecodePool } from "../../src/poll/decode-pool.js";
import { parseHeapCost } from "../../src/poll/parse-cost.js";
import { decodeOptions } from "../helpers/decode-options.js";
import { familyTexts } from "../helpers/families.js";

const job = (body: Uint8Array, encoding?: string): DecodeJob => ({
  endpoint: "targets",
  body,
  encoding,
  options: decodeOptions(),
});

describe("DecodePool", () => {
  it("decodes a small answer inline, judged by its decompressed size", async () => {
    const pool = new DecodePool({ size: 1 });
    const small = gzipSync(JSON.stringify({ status: "success", data: { activeTargets: [], droppedTargets: [] } }));
    expect((await pool.decode(job(small, "gzip"))).ok).toBe(true);
    expect(pool.offloaded).toBe(0);
  });

  it("sends a few KB of gzip that inflate to megabytes to a worker, not the event loop", async () => {
    const pool = new DecodePool({ size: 1 });
    // Valid JSON padded with 8 MB of white space: about 8 KB gzipped.
    const json = `{"status":"success","data":{"activeTargets":[],"droppedTargets":[]}${" ".repeat(8 * 2 ** 20)}}`;
    const bomb = gzipSync(json);
    expect(bomb.length).toBeLessThan(32 * 1024);
    const result = await pool.decode(job(bomb, "gzip"));
    expect(result.ok).toBe(true);
    expect(pool.offloaded).toBe(1);
  });
});

/**
 * Shallow YAML that is slow to parse: a mapping of distinct keys, each checked against every earlier one
 * (32 KB: ~0.3-0.5 s). Deep nesting is refused before parsing (yaml-depth.ts), so slowness is this.
 */
function slowYaml(length: number): string {
  let text = "";
  for (let i = 0; text.length < length; i++) text += `k${i}: 1\n`;
  return text;
}

describe("DecodePool: Alertmanager status", () => {
  // Its config is YAML, whose parse is not linear in its size: 32 KB of distinct keys takes ~0.3-0.5 s.
  const status = (original: string) =>
    JSON.stringify({
      cluster: { name: "x", status: "ready", peers: [] },
      config: { original },
      uptime: "2024-01-01T00:00:00Z",
      versionInfo: { branch: "b", buildDate: "d", buildUser: "u", goVersion: "g", revision: "r", version: "v" },
    });
  const statusJob = (body: string): DecodeJob => ({
    endpoint: "status",
    body: gzipSync(body),
    encoding: "gzip",
    options: decodeOptions(),
  });

  it("is never decoded on the event loop, however small", async () => {
    const pool = new DecodePool({ size: 1 });
    const small = status("route: {receiver: x}\nreceivers: [{name: x}]\n");
    expect(small.length).toBeLessThan(1024);
    expect((await pool.decode(statusJob(small))).ok).toBe(true);
    expect(pool.offloaded).toBe(1);
  });

  it("whose YAML takes longer than the time left is ended there, and the next answer is decoded", async () => {
    const pool = new DecodePool({ size: 1 });
    const plain = statusJob(status("route: {receiver: x}\nreceivers: [{name: x}]\n"));
    expect((await pool.decode({ ...plain, body: Buffer.from(plain.body) })).ok).toBe(true); // a warm worker
    const slow = status(slowYaml(28 * 1024));
    expect(slow.length).toBeLessThan(32 * 1024);
    expect(await pool.decode(statusJob(slow), 50)).toMatchObject({ ok: false, reason: "timeout" });
    expect((await pool.decode(plain)).ok).toBe(true);
    expect(pool.started).toBe(2); // the slow one's worker was ended
  });
});

describe("DecodePool: Prometheus config", () => {
  // /api/v1/status/config is YAML in JSON too: its hash parses it.
  const configJob = (yaml: string): DecodeJob => ({
    endpoint: "config",
    body: Buffer.from(JSON.stringify({ status: "success", data: { yaml } })),
    encoding: undefined,
    options: decodeOptions(),
  });

  it("is never decoded on the event loop, however small, and a slow one is ended at its time budget", async () => {
    const pool = new DecodePool({ size: 1 });
    const result = await pool.decode(configJob("global:\n  scrape_interval: 15s\n"));
    expect(result).toMatchObject({ ok: true, series: 1 });
    expect(pool.offloaded).toBe(1);
    const slow = configJob(slowYaml(28 * 1024));
    expect(await pool.decode(slow, 50)).toMatchObject({ ok: false, reason: "timeout" });
  });
});

describe("DecodePool: worker lifetime", () => {
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const text = targetsAnswer(2000); // 1.5 MB: decoded in a worker
  const answer = () => Buffer.from(text); // a body is moved to the worker, so each decode gets its own

  it("keeps a worker whose heap stayed small for the next poll (no isolate, modules and cold code each time)", async () => {
    const pool = new DecodePool({ size: 1 });
    expect((await pool.decode(job(answer()))).ok).toBe(true);
    await sleep(1500); // past the idle exit of a large worker
    expect((await pool.decode(job(answer()))).ok).toBe(true);
    expect(pool.offloaded).toBe(2);
    expect(pool.started).toBe(1);
  });

  it("starts a whole-answer worker ahead of any answer when asked to warm one, and the first answer takes it", async () => {
    const streamsOnly = new DecodePool({ size: 1 });
    streamsOnly.warm();
    expect(streamsOnly.started).toBe(0);
    const pool = new DecodePool({ size: 1 });
    pool.warm(true);
    expect(pool.started).toBe(1);
    pool.warm(true); // already there: not another
    expect(pool.started).toBe(1);
    expect((await pool.decode(job(answer()))).ok).toBe(true);
    expect(pool.offloaded).toBe(1);
    expect(pool.started).toBe(1);
  });

  it("ends a worker whose heap grew past the warm limit once idle, freeing it; the next poll starts another", async () => {
    const pool = new DecodePool({ size: 1, warmHeapLimitBytes: 1 });
    expect((await pool.decode(job(answer()))).ok).toBe(true);
    await sleep(1500);
    expect((await pool.decode(job(answer()))).ok).toBe(true);
    expect(pool.started).toBe(2);
  });
});

describe("DecodePool: replica facts", () => {
  it("hands a grouped source's target identities back from a worker, with per-target series off too", async () => {
    const pool = new DecodePool({ size: 1 });
    const answer = gzipSync(targetsAnswer(5000));
    const grouped = job(Buffer.from(answer), "gzip"); // the pool hands the body over to the worker
    grouped.options = { ...grouped.options, replicaFacts: true, perTarget: false };
    const result = await pool.decode(grouped);
    expect(pool.offloaded).toBe(1);
    if (!result.ok || result.facts?.kind !== "prometheus") throw new Error(`no facts: ${JSON.stringify(result)}`);
    expect(result.facts.targets).toBeInstanceOf(Float64Array);
    expect(result.facts.targets.length).toBe(5000);
    expect(result.facts.health.length).toBe(5000);
    expect(result.facts.health.filter((h) => h === 2).length).toBeGreaterThan(0); // some targets are down
    // An ungrouped source keeps nothing beyond its series.
    const plain = await pool.decode(job(Buffer.from(answer), "gzip"));
    expect(plain.ok && plain.facts).toBeFalsy();
  });
});

describe("DecodePool: families packed by the decoder thread", () => {
  it("hands large families over as gzip members and a grouped source's facts with them, whole or streamed", async () => {
    const pool = new DecodePool({ size: 1 });
    const text = Buffer.from(targetsAnswer(3000));
    const grouped = job(Buffer.from(text));
    grouped.options = { ...grouped.options, replicaFacts: true };
    const inline = decodeAnswer({ ...grouped, body: Buffer.from(text) });
    const whole = await pool.decode(grouped);
    const stream = pool.openStream("targets", grouped.options);
    for (let at = 0; at < text.length; at += 64 * 1024) await stream.write(text.subarray(at, at + 64 * 1024));
    const end = await stream.end(60_000);
    if (end.gaveUp || !inline.ok || inline.facts?.kind !== "prometheus") throw new Error("not decoded");
    for (const result of [whole, end.result]) {
      if (!result.ok || result.facts?.kind !== "prometheus") throw new Error(`no facts: ${JSON.stringify(result)}`);
      expect(result.families.filter(([, lines]) => isPacked(lines)).length).toBeGreaterThan(0);
      expect(result.families.filter(([, lines]) => !isPacked(lines)).length).toBeGreaterThan(0);
      expect(familyTexts(result.families)).toEqual(familyTexts(inline.families));
      expect(result.series).toBe(inline.series);
      expect([...result.facts.targets]).toEqual([...inline.facts.targets]);
      expect([...result.facts.health]).toEqual([...inline.facts.health]);
    }
  });
});

describe("DecodePool memory limit", () => {
  it("refuses, before parsing, an answer larger than a quarter of the limit (JSON.parse cannot be interrupted)", async () => {
    const pool = new DecodePool({ size: 1, memoryLimitBytes: 64 * 2 ** 20 });
    const json = targetsAnswer(25_000);
    expect(json.length).toBeGreaterThan(16 * 2 ** 20);
    for (const result of [await pool.decode(job(gzipSync(json), "gzip")), await pool.decode(job(Buffer.from(json)))]) {
      expect(result).toMatchObject({ ok: false, reason: "too_large" });
      expect(result.ok ? "" : result.message).toContain("--decoder.memory-limit=64MiB");
    }
    expect((await pool.decode(job(gzipSync(targetsAnswer(2000)), "gzip"))).ok).toBe(true);
  });

  it("fails only the answer that exhausts a decoder's heap, as too_large; the next one gets a fresh decoder", async () => {
    const pool = new DecodePool({ size: 1, memoryLimitBytes: 32 * 2 ** 20 });
    // The fast path leaves it to JSON.parse, whose cost is estimated within the limit (15 of 16 MiB), but
    // its 130,000 series do not fit.
    const heavy = referencePathTargetsAnswer(26_000);
    expect(parseHeapCost(Buffer.from(heavy))).toBeLessThan(pool.parseBudget().heapBytes);
    const [exhausted, waiting] = await Promise.all([
      pool.decode(job(gzipSync(heavy), "gzip")),
      pool.decode(job(gzipSync(targetsAnswer(2000)), "gzip")), // queued behind it on the only worker
    ]);
    expect(exhausted).toMatchObject({ ok: false, reason: "too_large" });
    expect(exhausted.ok ? "" : exhausted.message).toContain("needed more than --decoder.memory-limit=32MiB");
    expect(waiting).toMatchObject({ ok: true, series: expect.any(Number) });
    expect(pool.offloaded).toBe(2);
  });
});

describe("DecodePool: answers whose parse would take more than the limit", () => {
  // 80 MB of `[],`: under a quarter of the default limit and 77 KB gzipped, but JSON.parse would take
  // over 1 GB (13 times its text), and a heap exhausted inside JSON.parse aborts the whole process.
  const bomb = gzipSync(`{"x":[${"[],".repeat(26_600_000)}[]]}`, { level: 9 });

  it("refuses them before parsing, as too_large, naming the flag; the decoder and the process live on", async () => {
    expect(bomb.length).toBeLessThan(80 * 1024);
    const pool = new DecodePool({ size: 1 });
    for (const endpoint of ["tsdb", "status", "targets"] as const) {
      const result = await pool.decode({ ...job(Buffer.from(bomb), "gzip"), endpoint }); // moved to the worker
      expect(result).toMatchObject({ ok: false, reason: "too_large" });
      expect(result.ok ? "" : result.message).toMatch(
        /^answer would take more than \d+ bytes of heap to parse \(79800010 bytes of JSON\), the most a decoder can parse with --decoder\.memory-limit=320MiB$/,
      );
    }
    expect((await pool.decode(job(gzipSync(targetsAnswer(2000)), "gzip"))).ok).toBe(true);
    expect(pool.started).toBe(1); // one worker did it all
  }, 60_000);
});

describe("outputChunkSize", () => {
  it("believes the gzip trailer only as far as the bytes that arrived make plausible", () => {
    const real = gzipSync(Buffer.alloc(100_000, "a"));
    const forged = Buffer.from(real);
    forged.writeUInt32LE(256 * 2 ** 20, forged.length - 4); // claims 256 MiB
    expect(outputChunkSize(forged, 256 * 2 ** 20)).toBeLessThanOrEqual(Math.max(64 * 1024, forged.length * 32));
    // An honest trailer of a typical answer is taken as it is: one piece, no join.
    const answer = gzipSync(targetsAnswer(2000));
    expect(outputChunkSize(answer, 256 * 2 ** 20)).toBe(answer.readUInt32LE(answer.length - 4) + 1);
  });
});

describe("DecodePool: time budget", () => {
  it("abandons a decode still running when its time is up (its worker ended, reason timeout); the next one works", async () => {
    const pool = new DecodePool({ size: 1 });
    expect((await pool.decode(job(Buffer.from(targetsAnswer(2000))))).ok).toBe(true); // a worker, ready
    // A whole answer the streaming reader leaves to JSON.parse: far more than a millisecond of work.
    const slow = await pool.decode({ ...job(Buffer.from(referencePathTargetsAnswer(20_000))), reference: true }, 1);
    expect(slow.ok).toBe(false);
    if (!slow.ok)
      expect([slow.reason, slow.message]).toEqual([
        "timeout",
        "decoding the answer took longer than the time left of the timeout (1 ms)",
      ]);
    const next = await pool.decode(job(Buffer.from(targetsAnswer(2000))), 60_000);
    expect(next.ok).toBe(true);
    expect(pool.started).toBe(2);
  });

  it("never counts a worker's start against a job's time: a short budget drops the job, not the starting worker", async () => {
    const pool = new DecodePool({ size: 1 });
    // Probes have a few hundred ms; a worker's start (an isolate, the decoder's modules) may take that.
    const first = await pool.decode(job(Buffer.from(targetsAnswer(2000))), 1);
    expect(first.ok ? "ok" : first.reason).toBe("timeout");
    for (let i = 0; i < 3; i++)
      expect((await pool.decode(job(Buffer.from(targetsAnswer(2000))), 60_000)).ok).toBe(true);
    expect(pool.started).toBe(1);
  });

  it("drops a job still waiting for a worker when its time is up, without ending the busy worker", async () => {
    const pool = new DecodePool({ size: 1 });
    const first = pool.decode(job(Buffer.from(targetsAnswer(2000))), 60_000);
    const waiting = await pool.decode(job(Buffer.from(targetsAnswer(2000))), 1);
    expect(waiting.ok ? "ok" : waiting.reason).toBe("timeout");
    expect((await first).ok).toBe(true);
    expect(pool.started).toBe(1);
  });
});

describe("DecodePool: streamed answers", () => {
  const options = job(Buffer.alloc(0)).options;

  it("decodes an answer handed over in chunks as the whole answer decodes, on a thread kept for the next", async () => {
    const pool = new DecodePool({ size: 1 });
    const text = Buffer.from(targetsAnswer(3000));
    const whole = await pool.decode(job(Buffer.from(text)));
    for (let poll = 0; poll < 2; poll++) {
      const stream = pool.openStream("targets", options);
      for (let at = 0; at < text.length; at += 10_000)
        expect(await stream.write(text.subarray(at, at + 10_000))).toBe(true);
      const end = await stream.end(60_000);
      expect(end.gaveUp).toBe(false);
      if (end.gaveUp || !end.result.ok || !whole.ok) throw new Error("not decoded");
      expect(familyTexts(end.result.families)).toEqual(familyTexts(whole.families));
    }
    expect(pool.streamed).toBe(2);
  });

  it("says at once that the reader gave up, so the rest is not fetched", async () => {
    const pool = new DecodePool({ size: 1 });
    const stream = pool.openStream("targets", options);
    expect(await stream.write(Buffer.from('{"status":"success","data":{"activeTargets":[nope'))).toBe(true);
    // The ack of a chunk carries the reader's verdict: a write after it (chunks come from the socket,
    // one event-loop turn apart) learns it.
    let more = true;
    for (let i = 0; i < 1000 && more; i++) {
      more = await stream.write(Buffer.from("]}}"));
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(more).toBe(false);
    expect(await stream.end(60_000)).toEqual({ gaveUp: true });
  });

  it("fails a streamed answer whose result is not there in time, and forgets it", async () => {
    const pool = new DecodePool({ size: 1 });
    const stream = pool.openStream("targets", options);
    await stream.write(Buffer.from(targetsAnswer(3000)));
    const end = await stream.end(0);
    expect(end.gaveUp ? "gave up" : end.result.ok ? "ok" : end.result.reason).toBe("timeout");
  });
});
