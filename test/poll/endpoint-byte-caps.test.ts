import { randomBytes } from "node:crypto";
import type { ServerResponse } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { gzipSync } from "node:zlib";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Endpoint } from "../../src/config/types.js";
import { ENDPOINTS } from "../../src/poll/endpoints.js";
import { pollEndpoint, readLimit } from "../../src/poll/poll-endpoint.js";
import { sourceConfig } from "../helpers/config.js";
import { type FakeUpstream, startFakeUpstream } from "../helpers/fake-upstream.js";
import { fixtureText } from "../helpers/fixtures.js";
import { warmDecoderThreads } from "../helpers/warm-decoder.js";

// Prometheus's small status endpoints are read whole on the main thread, so each has the exporter's own
// bound on what is read of one answer (EndpointSpec.maxBytes), whatever the server sends. The fakes
// answer the captured real answers (test/fixtures/upstream, Debian's 2.42 and upstream 3.5/3.9), or
// those answers padded with a field the schema ignores, as a hostile server might.

const KiB = 1024;
const MiB = 1024 * KiB;

const ups: FakeUpstream[] = [];
afterEach(async () => {
  for (const up of ups.splice(0)) await up.close();
});

/** What the server sent of an answer, and whether the client went away before it was all sent. */
interface Sent {
  bytes: number;
  cutShort: boolean;
  /** Settles once the server stopped sending: all sent, or the connection closed. */
  done: Promise<void>;
}

/**
 * Sends `body` in 16 KiB pieces, one a millisecond, each after the last was taken, so what the client
 * read is close to what was sent (no kernel buffer of megabytes in between), and stops when the
 * connection closes.
 */
async function paced(res: ServerResponse, body: Buffer, sent: Sent): Promise<void> {
  let closed = false;
  res.on("close", () => {
    closed = true;
  });
  for (let at = 0; at < body.length && !closed; at += 16 * KiB) {
    const piece = body.subarray(at, at + 16 * KiB);
    sent.bytes += piece.length;
    if (!res.write(piece)) await new Promise((resolve) => res.once("drain", resolve).once("close", resolve));
    await sleep(1);
  }
  sent.cutShort = closed;
  if (!closed) res.end();
}

/** A fake answering every path with `body` (gzip when asked), recording what it sent. */
async function serve(body: Buffer, gzip = false): Promise<{ url: string; sent: Sent }> {
  const sent: Sent = { bytes: 0, cutShort: false, done: Promise.resolve() };
  const up = await startFakeUpstream((_req, res) => {
    res.writeHead(200, { "content-type": "application/json", ...(gzip ? { "content-encoding": "gzip" } : {}) });
    sent.done = paced(res, gzip ? gzipSync(body) : body, sent);
  });
  ups.push(up);
  return { url: up.url, sent };
}

/** The captured buildinfo with a `padding` field (ignored by the schema) making it `size` bytes long. */
function paddedBuildinfo(size: number, padding: (n: number) => string = (n) => " ".repeat(n)): Buffer {
  const real = JSON.parse(fixtureText("upstream/prometheus-buildinfo.json")) as { data: Record<string, string> };
  const bare = JSON.stringify({ ...real, data: { ...real.data, padding: "" } });
  const text = JSON.stringify({ ...real, data: { ...real.data, padding: padding(size - bare.length) } });
  return Buffer.from(text);
}

const BUILDINFO_BOUND =
  /answer larger than 65536 bytes( after decompression)?, the exporter's own bound for \/api\/v1\/status\/buildinfo \(64 KiB/;

describe("each Prometheus status endpoint's own bound on the bytes read", () => {
  beforeAll(warmDecoderThreads, 60_000);

  it("refuses a 2 MiB buildinfo after reading about 64 KiB of it, not the whole", async () => {
    const { url, sent } = await serve(paddedBuildinfo(2 * MiB));
    const outcome = await pollEndpoint(sourceConfig({ url }), "buildinfo");
    expect(outcome).toMatchObject({ ok: false, error: { reason: "too_large" } });
    if (outcome.ok) return;
    expect(outcome.error.message).toMatch(BUILDINFO_BOUND);
    await sent.done; // the server's next write meets the closed connection
    expect(sent.cutShort).toBe(true);
    expect(sent.bytes).toBeLessThan(512 * KiB);
  });

  it("refuses a gzip buildinfo inflating past 64 KiB, counted after decompression", async () => {
    // 2 MiB of spaces: ~2 KB on the wire, all of it read; the inflated answer is what is bounded.
    const { url } = await serve(paddedBuildinfo(2 * MiB), true);
    const outcome = await pollEndpoint(sourceConfig({ url }), "buildinfo");
    expect(outcome).toMatchObject({ ok: false, error: { reason: "too_large" } });
    if (outcome.ok) return;
    expect(outcome.error.message).toMatch(/after decompression/);
    expect(outcome.error.message).toMatch(BUILDINFO_BOUND);
  });

  it("stops downloading a gzip answer once its inflated bytes pass the bound", async () => {
    // Random base64 hardly compresses (~1.5 MiB on the wire): the download must stop near 64 KiB.
    const { url, sent } = await serve(
      paddedBuildinfo(2 * MiB, (n) => randomBytes(n).toString("base64").slice(0, n)),
      true,
    );
    const outcome = await pollEndpoint(sourceConfig({ url }), "buildinfo");
    expect(outcome).toMatchObject({ ok: false, error: { reason: "too_large" } });
    if (outcome.ok) return;
    expect(outcome.error.message).toMatch(BUILDINFO_BOUND);
    await sent.done;
    expect(sent.cutShort).toBe(true);
    expect(sent.bytes).toBeLessThan(512 * KiB);
  });

  it("reads an answer just under the bound, plain and gzip", async () => {
    for (const gzip of [false, true]) {
      const { url } = await serve(paddedBuildinfo(60 * KiB), gzip);
      expect(await pollEndpoint(sourceConfig({ url }), "buildinfo")).toMatchObject({ ok: true });
    }
  });

  const REAL: [Endpoint, string][] = [
    ["config", "prometheus-config.json"],
    ["rules", "prometheus-rules.json"],
    ["flags", "prometheus-flags.json"],
    ["runtimeinfo", "prometheus-runtimeinfo.json"],
    ["runtimeinfo", "prometheus-3.5-runtimeinfo.json"],
    ["buildinfo", "prometheus-buildinfo.json"],
    ["walreplay", "prometheus-walreplay.json"],
    ["features", "prometheus-3.9-features.json"],
  ];
  it.each(REAL)("reads a real %s answer (%s), plain and gzip", async (endpoint, fixture) => {
    for (const gzip of [false, true]) {
      const { url } = await serve(Buffer.from(fixtureText(`upstream/${fixture}`)), gzip);
      const outcome = await pollEndpoint(sourceConfig({ url }), endpoint);
      expect(outcome).toMatchObject({ ok: true, received: { statusCode: 200, encoding: gzip ? "gzip" : undefined } });
    }
  });

  it("bounds the seven status endpoints, far above their real answers, and leaves the others to the budgets", () => {
    const bounds = Object.fromEntries(Object.entries(ENDPOINTS).map(([e, spec]) => [e, spec.maxBytes]));
    expect(bounds).toEqual({
      tsdb: undefined,
      targets: undefined,
      status: undefined,
      buildinfo: 64 * KiB,
      runtimeinfo: 64 * KiB,
      walreplay: 64 * KiB,
      flags: MiB,
      features: MiB,
      config: 32 * MiB,
      rules: 64 * MiB,
    });
    for (const [endpoint, fixture] of REAL)
      expect(fixtureText(`upstream/${fixture}`).length * 50).toBeLessThan(ENDPOINTS[endpoint].maxBytes ?? 0);
  });
});

describe("readLimit", () => {
  const budget = { bytes: 80 * MiB, because: "the most a decoder can parse with --decoder.memory-limit=320MiB" };
  const buildinfo = ENDPOINTS.buildinfo;

  it("takes the least of max_response_size, the parse budget and the endpoint's bound, and names it", () => {
    expect(readLimit({ maxResponseBytes: 1024 * MiB }, buildinfo, budget)).toEqual({
      bytes: 64 * KiB,
      because: expect.stringMatching(
        /own bound for \/api\/v1\/status\/buildinfo \(64 KiB.*not raised by max_response_size/,
      ),
    });
    expect(readLimit({ maxResponseBytes: 1024 * MiB }, ENDPOINTS.rules, budget)).toMatchObject({ bytes: 64 * MiB });
    expect(readLimit({ maxResponseBytes: 1024 * MiB }, ENDPOINTS.tsdb, budget)).toEqual(budget);
    expect(readLimit({ maxResponseBytes: 1024 * MiB }, ENDPOINTS.rules, { ...budget, bytes: 16 * MiB })).toEqual({
      ...budget,
      bytes: 16 * MiB,
    });
    // max_response_size lower still: it stands, and says nothing more (its own message).
    expect(readLimit({ maxResponseBytes: 32 * KiB }, buildinfo, budget)).toEqual({ bytes: 32 * KiB });
  });
});
