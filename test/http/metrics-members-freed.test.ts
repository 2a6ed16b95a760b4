import { randomBytes } from "node:crypto";
import { get, request, type Server } from "node:http";
import { type AddressInfo, connect, type Socket } from "node:net";
import { gunzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { type Families, type PackedLines, packLines } from "../../src/exposition/pack.js";
import { ownMemoryTogether } from "../../src/poll/transferable.js";
import { type OwnMetrics, ProcessMetrics } from "../../src/publish/process-metrics.js";
import { SourceStore } from "../../src/publish/store.js";
import { waitFor } from "../harness/processes.js";
import { appServing } from "../helpers/app.js";
import { sourceConfig } from "../helpers/config.js";

// Hostile clients while polls replace a packed family again and again (exposition/member-readers.ts). Whatever the client does (pipelines, pauses, hangs up, HEAD),
// every body that is served whole is the bytes it announced, and a replaced family's members are
// freed (Node.js 21+) once the last of those clients is gone, never while one still reads them.

const canDetach = typeof (ArrayBuffer.prototype as { transfer?: unknown }).transfer === "function";
const A = sourceConfig({ name: "a", labels: { region: "eu-1" } });
const FAMILY = "promstatus_target_up";

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** Lines that compress little (so bodies outlast the socket buffers), and the outcome a decoder hands over. */
function generation(seed: number, rows = 60_000) {
  const text: string[] = [];
  for (let i = 0; i < rows; i++)
    text.push(`${FAMILY}{source="a",region="eu-1",instance="${randomBytes(16).toString("hex")}"} ${(i + seed) % 2}\n`);
  const lines = Buffer.from(text.join(""));
  const packed = packLines(lines);
  packed.members = ownMemoryTogether(packed.members);
  const outcome = {
    ok: true as const,
    families: [[FAMILY, packed]] as Families,
    series: rows,
    durationSeconds: 0.5,
    finishedAt: 1000,
  };
  return { lines, members: (outcome.families[0] as [string, PackedLines])[1].members, outcome };
}

async function serve(store: SourceStore): Promise<{ url: string; port: number }> {
  const app = appServing(() => store.exposition(), { processMetrics: new ProcessMetrics("test", 3_600_000) });
  server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, "127.0.0.1", () => resolve(s));
  });
  const port = (server.address() as AddressInfo).port;
  return { url: `http://127.0.0.1:${port}/metrics`, port };
}

/** The family's lines in a plain body: one of the generations, whole. */
function familyOf(body: string): string {
  const start = body.indexOf(`\n${FAMILY}{`);
  const end = body.indexOf("\n# ", start + 1);
  return body.slice(start + 1, end < 0 ? undefined : end + 1);
}

interface Raw {
  status: number;
  headers: Map<string, string>;
  body: Buffer;
}

/** Responses one after another on one connection, framed by Content-Length (HEAD: none). */
function parseResponses(bytes: Buffer, methods: readonly string[]): Raw[] {
  const out: Raw[] = [];
  let at = 0;
  for (const method of methods) {
    const end = bytes.indexOf("\r\n\r\n", at);
    if (end < 0) throw new Error(`response ${out.length + 1} of ${methods.length}: no header end`);
    const [statusLine, ...lines] = bytes.subarray(at, end).toString("latin1").split("\r\n");
    const headers = new Map(
      lines.map((l) => [l.slice(0, l.indexOf(":")).toLowerCase(), l.slice(l.indexOf(":") + 1).trim()]),
    );
    const length = method === "HEAD" ? 0 : Number(headers.get("content-length"));
    const body = bytes.subarray(end + 4, end + 4 + length);
    if (body.length !== length) throw new Error(`response ${out.length + 1}: ${body.length} of ${length} bytes`);
    out.push({ status: Number(statusLine?.split(" ")[1]), headers, body });
    at = end + 4 + length;
  }
  if (at !== bytes.length) throw new Error(`${bytes.length - at} bytes after the last response`);
  return out;
}

const gzipReady = (store: SourceStore) => waitFor("gzip ready", async () => store.exposition().gzip, 10_000, 5);

describe("members freed under hostile clients", () => {
  it("pipelined GET/HEAD, gzip and plain, on one paused connection while the family is replaced: every body whole", async () => {
    const store = new SourceStore([A]);
    const gens = [generation(0)];
    store.record(A, "targets", (gens[0] as ReturnType<typeof generation>).outcome);
    await gzipReady(store);
    const { port } = await serve(store);

    const asks: [method: string, encoding: string][] = [
      ["GET", "gzip"],
      ["GET", "identity"],
      ["HEAD", "gzip"],
      ["GET", "gzip"],
      ["HEAD", "identity"],
      ["GET", "identity"],
      ["GET", "gzip"],
    ];
    const socket = connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    const ended = new Promise<void>((resolve, reject) => {
      socket.on("end", () => resolve());
      socket.on("error", reject);
    });
    socket.on("data", (c: Buffer) => chunks.push(c));
    socket.write(
      asks
        .map(
          ([method, encoding], i) =>
            `${method} /metrics HTTP/1.1\r\nHost: x\r\nAccept-Encoding: ${encoding}\r\n` +
            `${i === asks.length - 1 ? "Connection: close\r\n" : ""}\r\n`,
        )
        .join(""),
    );
    // The client stops reading once the first bytes came: the server's writes wait on it.
    await waitFor("first bytes", async () => (chunks.length > 0 ? true : undefined), 5000, 5);
    socket.pause();
    await new Promise((r) => setTimeout(r, 200));
    // Polls replace the family three times, gzip made for each, while the connection is stuck.
    for (let seed = 1; seed <= 3; seed++) {
      const next = generation(seed);
      gens.push(next);
      store.record(A, "targets", next.outcome);
      await gzipReady(store);
    }
    socket.resume();
    await ended;

    const responses = parseResponses(
      Buffer.concat(chunks),
      asks.map(([m]) => m),
    );
    const families = new Set(gens.map((g) => g.lines.toString()));
    for (const [i, r] of responses.entries()) {
      expect(r.status, `response ${i + 1}`).toBe(200);
      if (asks[i]?.[0] === "HEAD") continue;
      const plain = r.headers.get("content-encoding") === "gzip" ? gunzipSync(r.body) : r.body;
      expect(families.has(familyOf(plain.toString())), `response ${i + 1}: a generation's lines, whole`).toBe(true);
    }
    // No one reads the first three generations any more: freed where the runtime can.
    for (const g of gens.slice(0, 3)) {
      await waitFor(
        "replaced members freed",
        async () => (g.members.every((m) => (m.byteLength === 0) === canDetach) ? true : undefined),
        5000,
        10,
      );
    }
    expect((gens[3] as ReturnType<typeof generation>).members.every((m) => m.byteLength > 0)).toBe(true);
  });

  it("clients that pause, read slowly or hang up mid-body while polls keep replacing the family", async () => {
    const store = new SourceStore([A]);
    const gens = [generation(0, 150_000)];
    store.record(A, "targets", (gens[0] as ReturnType<typeof generation>).outcome);
    await gzipReady(store);
    const { url } = await serve(store);

    type Result = { kind: "whole"; encoding: string; length: number; body: Buffer } | { kind: "gone" };
    const client = (encoding: string, hangUp: boolean, delayMs: number) =>
      new Promise<Result>((resolve, reject) => {
        const req = get(url, { headers: { "accept-encoding": encoding } }, (res) => {
          const chunks: Buffer[] = [];
          const length = Number(res.headers["content-length"]);
          // Nothing read for a while: the socket buffers fill and the rest of the body waits in the server.
          res.pause();
          setTimeout(() => res.resume(), 10 * delayMs);
          res.on("data", (c: Buffer) => {
            chunks.push(c);
            if (hangUp && chunks.length === 2) {
              req.destroy();
              resolve({ kind: "gone" });
              return;
            }
            // A slow reader: a pause after each chunk.
            res.pause();
            setTimeout(() => res.resume(), delayMs);
          });
          res.on("end", () => resolve({ kind: "whole", encoding, length, body: Buffer.concat(chunks) }));
          res.on("error", (e) => (hangUp ? undefined : reject(e)));
        });
        req.on("error", (e) => (hangUp ? undefined : reject(e)));
      });

    const results: Promise<Result>[] = [];
    for (let seed = 1; seed <= 4; seed++) {
      for (let i = 0; i < 6; i++) {
        const encoding = i % 2 === 0 ? "gzip" : "identity";
        results.push(client(encoding, i % 3 === 2, 1 + ((i * 7) % 20)));
      }
      await new Promise((r) => setTimeout(r, 30));
      const next = generation(seed, 150_000);
      gens.push(next);
      store.record(A, "targets", next.outcome);
      if (seed % 2 === 0) await gzipReady(store); // some rounds plain only (gzip not made yet)
    }
    const done = await Promise.all(results);
    const families = new Set(gens.map((g) => g.lines.toString()));
    let whole = 0;
    for (const r of done) {
      if (r.kind === "gone") continue;
      whole++;
      expect(r.body.length).toBe(r.length);
      const plain = r.body[0] === 0x1f && r.body[1] === 0x8b ? gunzipSync(r.body) : r.body;
      expect(families.has(familyOf(plain.toString()))).toBe(true);
    }
    expect(whole).toBeGreaterThanOrEqual(12);
    // Once every client is gone, every replaced generation is freed (Node.js 21+); the served one never.
    for (const g of gens.slice(0, -1)) {
      await waitFor(
        "replaced members freed",
        async () => (g.members.every((m) => (m.byteLength === 0) === canDetach) ? true : undefined),
        5000,
        10,
      );
    }
    const last = gens.at(-1) as ReturnType<typeof generation>;
    expect(last.members.every((m) => m.byteLength > 0)).toBe(true);
    // And the daemon goes on serving the current family whole.
    const body = await new Promise<Buffer>((resolve, reject) => {
      get(url, { headers: { "accept-encoding": "identity" } }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve(Buffer.concat(chunks)));
      }).on("error", reject);
    });
    expect(familyOf(body.toString())).toBe(last.lines.toString());
  });
  it("is given back even when the client hung up while the exporter's own metrics were collected", async () => {
    const store = new SourceStore([A]);
    const first = generation(0, 20_000);
    const old = first.members;
    store.record(A, "targets", first.outcome);
    // The exporter's own metrics take a while (the real ProcessMetrics waits a turn of the event loop).
    let collecting: () => void = () => {};
    const slow: OwnMetrics = {
      contentType: "text/plain; version=0.0.4; charset=utf-8",
      metrics: () =>
        new Promise((resolve) => {
          collecting = () => resolve(["# runtime\n", "# own\n"]);
        }),
    };
    const app = appServing(() => store.exposition(), { processMetrics: slow });
    server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, "127.0.0.1", () => resolve(s));
    });
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`;
    const connections = new Set<Socket>();
    server.on("connection", (s) => {
      connections.add(s);
      s.on("close", () => connections.delete(s));
    });

    // The client asks, then hangs up before the own metrics are ready.
    const req = request(url, { headers: { "accept-encoding": "identity" } });
    req.on("error", () => {});
    req.end();
    await waitFor("the request reached the handler", async () => (connections.size > 0 ? true : undefined), 5000, 5);
    await new Promise((r) => setTimeout(r, 50));
    req.destroy();
    await waitFor("the server saw the hang-up", async () => (connections.size === 0 ? true : undefined), 5000, 5);
    collecting(); // now the handler goes on, takes its hold, and writes into a closed socket
    await new Promise((r) => setTimeout(r, 100));

    // Nothing reads the family any more: replacing it must free its members at once (Node 21+).
    store.record(A, "targets", generation(1, 20_000).outcome);
    await new Promise((r) => setTimeout(r, 100));
    expect(old.every((m) => (m.byteLength === 0) === canDetach)).toBe(true);
  });
});
