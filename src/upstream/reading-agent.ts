import { Agent, type ClientRequestArgs } from "node:http";
import { createConnection, type NetConnectOpts, type Socket } from "node:net";

// Node reads a socket into a new buffer every time (64 KiB, ~1200 for a 100k-target answer), and its HTTP
// parser then copies each piece of the body out of it into a buffer of its own (node_http_parser.cc,
// on_body: Buffer::Copy, Node 20 and 24). The first buffer is garbage as soon as the parser returns:
// reading every socket into one buffer kept for good spares it, ~30 ms of CPU per 78 MB answer on Node 24.
// Each read is handed to the parser (the socket's 'data' listener) before the next read overwrites it.
// 120 KiB: twice as few reads as 64 KiB, and the parser's copies stay below glibc's mmap threshold (the
// image's 128 KiB), so they do not cost a mapping each.
const READ_BUFFER_BYTES = 120 * 1024;
const readBuffer = Buffer.allocUnsafe(READ_BUFFER_BYTES);
let parserCopies = true;
// An upstream that writes its answer a little at a time is read a little less often: after a read that
// did not fill the buffer, the socket rests GATHER_MS before it is read again, and what arrived meanwhile
// comes in one read. A real Prometheus writes a gzip answer 4 KiB at a time as its gzip writer makes them
// (Go's 4 KiB connection buffer): at 100k targets ~1500 writes over ~0.75 s, each read alone, ~60 µs of
// the main thread a read (a wake-up, the HTTP parser, the streams above it). Resting, the same answer
// comes in ~75 reads of ~84 KiB. An answer that comes faster fills each read, which is then not held
// back: only a slow answer waits, by no more than GATHER_MS a read.
const GATHER_MS = 10;
const readingSockets = new WeakSet<object>();

/**
 * What a rest reads of Node's own parts of a socket (the same in Node 20 and 24): its libuv handle, and
 * the HTTP request it carries, whose answer (`res`) says when it was read whole.
 */
interface SocketInternals {
  _handle?: {
    /** Whether the socket wants to read (false once paused). */
    reading?: boolean;
    readStart?: () => number;
    readStop?: () => number;
  } | null;
  _httpMessage?: { res?: { complete?: boolean } | null } | null;
}

const internals = (socket: Socket) => socket as unknown as SocketInternals;

/**
 * Stops reading the socket for GATHER_MS, then reads again if it still wants to (not paused meanwhile).
 * The handle's reading is stopped below the stream, which still counts it as reading (`reading` stays
 * true): the socket's pause() sets it false, and its resume() then starts reading anew.
 */
function rest(socket: Socket): void {
  const handle = internals(socket)._handle;
  if (!handle?.reading || !handle.readStop || !handle.readStart) return;
  handle.readStop();
  setTimeout(() => {
    // Paused since, and resumed: already reading (libuv says so, and nothing changes).
    if (handle.reading && !socket.destroyed && internals(socket)._handle === handle) handle.readStart?.();
  }, GATHER_MS);
}

/**
 * Whether the socket's answer has begun and is not read whole yet. Once it is whole, the socket goes
 * back to the agent's pool: resting then, it would not see the upstream close it (EOF), and Node 20's
 * agent would hand it to the next request, which fails (ECONNRESET, a retry a second later).
 */
function answerUnderWay(socket: Socket): boolean {
  const answer = internals(socket)._httpMessage?.res;
  return answer != null && answer.complete !== true;
}

function readingConnection(options: NetConnectOpts): Socket {
  if (!parserCopies) return createConnection(options);
  const socket: Socket = createConnection({
    ...options,
    onread: {
      buffer: readBuffer,
      callback: (bytes: number, buffer: Uint8Array) => {
        socket.emit("data", buffer.subarray(0, bytes));
        // Reading pauses when the socket is paused (by the HTTP parser's reader, full), as it does for
        // Node's own reads. A rest stops the handle's reading below the stream: returning false would mark
        // the socket not reading, and the parser's reader, wanting more, would resume it at once.
        if (bytes < READ_BUFFER_BYTES && answerUnderWay(socket)) rest(socket);
        return true;
      },
    },
  });
  readingSockets.add(socket);
  return socket;
}

/**
 * Whether a socket reads into the shared buffer: its reads leave no buffer behind for V8 to collect,
 * only the parser's copies of the body's pieces.
 */
export function readsIntoSharedBuffer(socket: object | null | undefined): boolean {
  return socket != null && readingSockets.has(socket);
}

/**
 * Throws if a piece of an answer's body is not memory of its own but lies in the shared read buffer,
 * which the next read overwrites (an HTTP parser that does not copy, unlike Node 20's and 24's). Sockets
 * opened after that read as Node reads them.
 */
export function checkBodyPiece(piece: Uint8Array): void {
  if (piece.buffer !== readBuffer.buffer) return;
  parserCopies = false;
  throw new Error(
    "Node.js's HTTP parser handed on a piece of the body without copying it out of the socket's read buffer; " +
      "new connections read into buffers of their own",
  );
}

/** An agent like Node's global one (keep-alive, most recently used socket first) whose sockets read into one buffer. */
class ReadingAgent extends Agent {
  override createConnection(options: ClientRequestArgs): Socket {
    return readingConnection(options as NetConnectOpts);
  }
}

/** The agent for plain-HTTP upstreams reached directly (TLS and proxied ones keep theirs). */
export const readingAgent = new ReadingAgent({ keepAlive: true, scheduling: "lifo", timeout: 5000 });
