// The benchmark's upstream, in its own process so its memory is not counted as the exporter's. It answers
// `/api/v1/targets` as a real Prometheus does over time (see generate.ts for what that is and where it is
// read in Prometheus's code): every request gets the next round, with its scrape times moved on by one
// interval, new scrape durations, pools sorted and each pool's targets in a new order; labels, pools
// and URLs are the same bytes in every round. Answers are gzipped when asked and put on the wire as
// Prometheus puts them (go-wire.ts): chunked (plain in one chunk, gzip in 2048-byte ones leaving 4096
// bytes a write), or with a Content-Length when no more than 2048 bytes (the tsdb answer, one fixed answer).
//
// Each round is assembled from bytes built once (a few hundred ms at 100k targets, gzip about four
// times that): the next round is prepared as soon as an answer has been sent, in the encoding last
// asked for, so a poll gets its answer without waiting for the upstream's work. Prints its URL when ready.
import { readdirSync } from "node:fs";
import { type AddressInfo, createServer, type Socket } from "node:net";
import { setPriority } from "node:os";
import { parseArgs, promisify } from "node:util";
import { gzip as gzipAsync, gzipSync } from "node:zlib";
import { TargetsRounds, tsdbAnswer } from "./generate.js";
import { type GoAnswer, goWrites } from "./go-wire.js";

// Every thread at the lowest priority (Linux's nice is per thread; later threads take their creator's):
// where the upstream's work meets the exporter's on a core, the exporter's goes first.
for (const tid of readdirSync("/proc/self/task")) {
  try {
    setPriority(Number(tid), 19);
  } catch {
    // a thread that ended since it was listed (ESRCH): nothing to lower
  }
}
const { values } = parseArgs({ options: { targets: { type: "string" }, limit: { type: "string" } } });
const targets = new TargetsRounds(Number(values.targets));
const tsdb = Buffer.from(tsdbAnswer(Number(values.limit)));
const tsdbGzip = gzipSync(tsdb);
const gzip = promisify(gzipAsync);

/** The next round to serve. */
let round = 0;
/** A round built ahead of its request. */
let ready: { round: number; gzip: boolean; body: Promise<Built> } | undefined;

interface Built {
  bytes: Buffer;
  /** The JSON's length, gzipped or not. */
  jsonBytes: number;
}

const build = async (r: number, zip: boolean): Promise<Built> => {
  const plain = targets.answer(r);
  return { bytes: zip ? await gzip(plain) : plain, jsonBytes: plain.length };
};

const NOT_FOUND: GoAnswer = {
  status: "404 Not Found",
  headers: { "Content-Type": "text/plain; charset=utf-8", "X-Content-Type-Options": "nosniff" },
  body: Buffer.from("404 page not found\n"),
  gzip: false,
};

const answer = (body: Buffer, zip: boolean): GoAnswer => ({
  status: "200 OK",
  headers: { "Content-Type": "application/json", ...(zip ? { "Content-Encoding": "gzip" } : {}) },
  body,
  gzip: zip,
});

// The socket is written as Go's net/http writes it (go-wire.ts), one write a turn of the event loop, and a
// gzip answer's writes spread over the time Go's gzip writer takes to make them: Go 1.19's compress/gzip
// (as Prometheus 2.42's CompressionHandler) served a 100k-target round of these answers at 104 MB/s of
// JSON on this machine, 6.0 MB of gzip in 750 ms, read 4.2 KB a read (~1430 reads) by Node. Written as
// fast as the loop turns, the writes outran the reader, which got them in 80-730 reads. The pauses are
// slept (Atomics.wait: below a timer's 1 ms), the turns between them left to other requests.
const GZIP_JSON_BYTES_PER_MS = 104_000;
const sleeper = new Int32Array(new SharedArrayBuffer(4));

function send(socket: Socket, what: GoAnswer, jsonBytes: number, done: () => void): void {
  const writes = goWrites(what);
  const spreadMs = what.gzip ? jsonBytes / GZIP_JSON_BYTES_PER_MS : 0;
  const start = performance.now();
  const from = (k: number): void => {
    if (socket.destroyed) return;
    if (k >= writes.length) {
      done();
      return;
    }
    const wait = start + (spreadMs * k) / writes.length - performance.now();
    if (wait > 0) Atomics.wait(sleeper, 0, 0, wait);
    socket.write(writes[k] as Buffer);
    setImmediate(from, k + 1);
  };
  from(0);
}

/** The request's path, whether it asks for gzip and whether it closes the connection after. */
function request(head: string): { path: string; zip: boolean; close: boolean } {
  const [line = "", ...fields] = head.split("\r\n");
  const header = (name: string) =>
    fields.find((f) => f.toLowerCase().startsWith(`${name}:`))?.slice(name.length + 1) ?? "";
  return {
    path: (line.split(" ")[1] ?? "").split("?")[0] as string,
    zip: /\bgzip\b/.test(header("accept-encoding")),
    close: /\bclose\b/i.test(header("connection")),
  };
}

function respond(path: string, zip: boolean): Promise<{ what: GoAnswer; jsonBytes: number }> {
  // A fixed answer goes in one write: nothing to spread.
  const fixed = (what: GoAnswer) => Promise.resolve({ what, jsonBytes: 0 });
  if (path === "/api/v1/status/tsdb") return fixed(answer(zip ? tsdbGzip : tsdb, zip));
  if (path !== "/api/v1/targets") return fixed(NOT_FOUND);
  const r = round++;
  const body = ready && ready.round === r && ready.gzip === zip ? ready.body : build(r, zip);
  ready = undefined;
  return body.then(({ bytes, jsonBytes }) => ({ what: answer(bytes, zip), jsonBytes }));
}

/** Builds the next round ahead of its request, in the encoding last asked for. */
function prepare(zip: boolean): void {
  if (ready) return;
  const next = build(round, zip);
  next.catch(() => {}); // a failure is the request's, should it take this round
  ready = { round, gzip: zip, body: next };
}

// HTTP/1.1 requests one after another on a connection (got keeps them alive): GETs without a body.
const server = createServer((socket) => {
  let pending = "";
  let busy = false;
  const next = (): void => {
    const end = pending.indexOf("\r\n\r\n");
    if (busy || end < 0) return;
    const { path, zip, close } = request(pending.slice(0, end));
    pending = pending.slice(end + 4);
    busy = true;
    respond(path, zip).then(
      ({ what, jsonBytes }) =>
        send(socket, what, jsonBytes, () => {
          busy = false;
          if (close) socket.end();
          if (path === "/api/v1/targets") setImmediate(prepare, zip);
          next();
        }),
      (err: unknown) => socket.destroy(err as Error),
    );
  };
  socket.setEncoding("latin1");
  socket.on("data", (text: string) => {
    pending += text;
    next();
  });
  socket.on("error", () => {}); // a client gone mid-answer: nothing to tell it
});
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
process.on("disconnect", () => process.exit(0));
