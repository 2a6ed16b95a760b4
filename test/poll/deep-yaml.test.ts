import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import type { DecodeJob } from "../../src/poll/decode.js";
import { DecodePool } from "../../src/poll/decode-pool.js";
import { decodeOptions } from "../helpers/decode-options.js";

// A YAML text ~5000 levels deep overflows the parser's stack in a decoder thread; on Node 20 the
// second such parse aborts the whole process (V8's "RegExpCompiler Allocation failed", exit 134),
// worker thread or not. Alertmanager's config.original reaches the decoder from any /probe caller.
const deep = {
  flow: "[".repeat(5000) + "]".repeat(5000),
  block: `${"- ".repeat(5000)}x\n`,
};

const statusAnswer = (original: string) =>
  JSON.stringify({
    cluster: { name: "x", status: "ready", peers: [] },
    config: { original },
    uptime: "2024-01-01T00:00:00Z",
    versionInfo: { branch: "b", buildDate: "d", buildUser: "u", goVersion: "g", revision: "r", version: "v" },
  });
const configAnswer = (yaml: string) => JSON.stringify({ status: "success", data: { yaml } });

const job = (endpoint: "status" | "config", answer: string): DecodeJob => ({
  endpoint,
  body: gzipSync(answer),
  encoding: "gzip",
  options: decodeOptions(),
});

describe("DecodePool: YAML nested 5000 levels deep", () => {
  it("fails each Alertmanager status poll as invalid_payload, twice and more, and the process lives on", async () => {
    const pool = new DecodePool({ size: 1 });
    // All of them first, then the check: without the guard the second one is where Node 20 aborts.
    const results = [];
    for (const text of [deep.flow, deep.flow, deep.block, deep.block, deep.flow])
      results.push(await pool.decode(job("status", statusAnswer(text))));
    for (const result of results)
      expect(result).toMatchObject({
        ok: false,
        reason: "invalid_payload",
        message: "config.original is nested more than 100 levels deep (not parsed)",
      });
    const plain = await pool.decode(job("status", statusAnswer("route: {receiver: x}\nreceivers: [{name: x}]\n")));
    expect(plain.ok).toBe(true);
    expect(pool.started).toBe(1); // the same decoder thread all along
  });

  it("fails each Prometheus config poll as invalid_payload the same way", async () => {
    const pool = new DecodePool({ size: 1 });
    const results = [];
    for (const text of [deep.flow, deep.block, deep.flow])
      results.push(await pool.decode(job("config", configAnswer(text))));
    for (const result of results)
      expect(result).toMatchObject({
        ok: false,
        reason: "invalid_payload",
        message: "data.yaml is nested more than 100 levels deep (not parsed)",
      });
    expect((await pool.decode(job("config", configAnswer("global: {scrape_interval: 15s}\n")))).ok).toBe(true);
  });
});
