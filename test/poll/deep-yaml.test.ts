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

// Each endpoint whose answer carries YAML: deep texts (all decoded first: without the guard the second
// one is where Node 20 aborts), then a plain one on the same decoder thread.
const cases = [
  {
    what: "each Alertmanager status poll",
    deep: [deep.flow, deep.flow, deep.block, deep.block, deep.flow],
    job: (text: string) => job("status", statusAnswer(text)),
    message: "config.original is nested more than 100 levels deep (not parsed)",
    plain: "route: {receiver: x}\nreceivers: [{name: x}]\n",
  },
  {
    what: "each Prometheus config poll",
    deep: [deep.flow, deep.block, deep.flow],
    job: (text: string) => job("config", configAnswer(text)),
    message: "data.yaml is nested more than 100 levels deep (not parsed)",
    plain: "global: {scrape_interval: 15s}\n",
  },
];

describe("DecodePool: YAML nested 5000 levels deep", () => {
  it.each(cases)("fails $what as invalid_payload, twice and more, and the process lives on", async (c) => {
    const pool = new DecodePool({ size: 1 });
    const results = [];
    for (const text of c.deep) results.push(await pool.decode(c.job(text)));
    for (const result of results)
      expect(result).toMatchObject({ ok: false, reason: "invalid_payload", message: c.message });
    expect((await pool.decode(c.job(c.plain))).ok).toBe(true);
    expect(pool.started).toBe(1); // the same decoder thread all along
  });
});
