// The benchmark's upstream, in its own process so its memory is not counted as the exporter's. It answers
// `/api/v1/targets` as a real Prometheus does over time (see generate.ts for what that is and where it is
// read in Prometheus's code): every request gets the next round, with its scrape times moved on by one
// interval, new scrape durations, pools sorted and each pool's targets in a new order; labels, pools
// and URLs are the same bytes in every round. Answers are gzipped when asked and sent as Prometheus
// sends them: chunked (plain in one chunk, gzip in 2048-byte ones), or with a Content-Length when no
// more than 2048 bytes (the tsdb answer, one fixed answer).
//
// Each round is assembled from bytes built once (a few hundred ms at 100k targets, gzip about four
// times that): the next round is prepared as soon as an answer has been sent, in the encoding last
// asked for, so a poll gets its answer without waiting for the upstream's work. Prints its URL when ready.
import { readdirSync } from "node:fs";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { setPriority } from "node:os";
import { parseArgs, promisify } from "node:util";
import { gzip as gzipAsync, gzipSync } from "node:zlib";
import { TargetsRounds, tsdbAnswer } from "./generate.js";

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
const GO_CHUNK_BYTES = 2048;

/** The next round to serve. */
let round = 0;
/** A round built ahead of its request. */
let ready: { round: number; gzip: boolean; body: Promise<Buffer> } | undefined;

const build = (r: number, zip: boolean): Promise<Buffer> => {
  const plain = targets.answer(r);
  return zip ? gzip(plain) : Promise.resolve(plain);
};

// As Go's net/http sends a handler's answer (server.go; measured on Debian's Prometheus 2.42): one that fits
// its 2048-byte response buffer when the handler returns with a Content-Length (the tsdb answer, 1952 bytes
// plain, 585 gzipped); a larger one chunked: plain in one chunk (api.go writes the encoded answer in one
// Write, passed through whole), gzip in 2048-byte chunks (the buffer, bufferBeforeChunkingSize, takes the
// gzip writer's small writes; a 0.9 MB targets answer). Node 24.22 and later join the writes of one turn
// of the event loop into one chunk, even uncorked: there each gzip chunk is written in a turn of its own.
// Earlier ones (the bench's upstream runs on the machine's Node 20) keep the writes of one turn apart,
// and get them in one go, as before: spacing them by turns changes how they reach the exporter (more,
// smaller reads; its main thread's part of a gzip poll 13 -> 77 ms in one run), and which of the two is
// nearer a real Prometheus, which writes them as its gzip writer makes them, is not measured.
const [major, minor] = process.versions.node.split(".").map(Number) as [number, number];
const WRITES_JOINED = major > 24 || (major === 24 && minor >= 22);

function send(res: ServerResponse, body: Buffer, zip: boolean): void {
  const whole = body.length <= GO_CHUNK_BYTES ? { "content-length": String(body.length) } : {};
  res.writeHead(200, {
    "content-type": "application/json",
    ...(zip ? { "content-encoding": "gzip" } : {}),
    ...whole,
  });
  if (!zip) {
    res.write(body);
    res.end();
    return;
  }
  if (!WRITES_JOINED) {
    for (let at = 0; at < body.length; at += GO_CHUNK_BYTES) res.write(body.subarray(at, at + GO_CHUNK_BYTES));
    res.end();
    return;
  }
  const chunkFrom = (at: number): void => {
    if (res.destroyed) return;
    if (at >= body.length) {
      res.end();
      return;
    }
    res.write(body.subarray(at, at + GO_CHUNK_BYTES));
    setImmediate(chunkFrom, at + GO_CHUNK_BYTES);
  };
  chunkFrom(0);
}

const server = createServer((req, res) => {
  const path = (req.url ?? "").split("?")[0] as string;
  const zip = /\bgzip\b/.test(String(req.headers["accept-encoding"]));
  if (path === "/api/v1/status/tsdb") return send(res, zip ? tsdbGzip : tsdb, zip);
  if (path !== "/api/v1/targets") return void res.writeHead(404).end();
  const r = round++;
  const body = ready && ready.round === r && ready.gzip === zip ? ready.body : build(r, zip);
  ready = undefined;
  body.then(
    (bytes) => {
      res.once("finish", () =>
        setImmediate(() => {
          if (ready) return;
          const next = build(round, zip);
          next.catch(() => {}); // a failure is the request's, should it take this round
          ready = { round, gzip: zip, body: next };
        }),
      );
      send(res, bytes, zip);
    },
    (err: unknown) => res.destroy(err as Error),
  );
});
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
process.on("disconnect", () => process.exit(0));
