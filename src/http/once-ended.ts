import type { IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";

// Callbacks waiting for a connection to close: one listener per connection however many requests
// wait on it (pipelined requests each add theirs, which with a listener each tripped Node's
// MaxListenersExceededWarning at eleven).
const waitingOnClose = new WeakMap<Socket, Set<() => void>>();

/** Calls `fn` when `socket` closes; the function it returns takes it back. */
function whenClosed(socket: Socket, fn: () => void): () => void {
  let waiting = waitingOnClose.get(socket);
  if (!waiting) {
    const all = new Set<() => void>();
    waiting = all;
    waitingOnClose.set(socket, all);
    socket.once("close", () => {
      waitingOnClose.delete(socket);
      for (const callback of all) callback();
    });
  }
  waiting.add(fn);
  return () => waiting.delete(fn);
}

/** Whether a request's response or connection has closed already (its client may hang up while a handler awaits). */
export const alreadyEnded = (req: IncomingMessage, res: ServerResponse): boolean =>
  res.closed || res.destroyed || req.socket.destroyed;

/**
 * Calls `done` once, when the response closes (written to the end, or its client gone) or its
 * connection closes, whichever comes first — at once if either has already. Both, because on Node 20 a
 * response queued behind another on a keep-alive connection (pipelined requests) emits no 'close' when
 * the client hangs up. By then no write of the response is pending: a response closes after its last
 * write completed ('finish'), a connection once its handle closed, pending writes cancelled.
 */
export function onceEnded(req: IncomingMessage, res: ServerResponse, done: () => void): void {
  untilEnded(req, res, done);
}

/** As onceEnded; the function it returns takes `done` back (no longer called, nothing left listening). */
export function untilEnded(req: IncomingMessage, res: ServerResponse, done: () => void): () => void {
  const socket = req.socket;
  // Gone already: nothing will fire.
  if (alreadyEnded(req, res)) {
    done();
    return () => {};
  }
  let ended = false;
  let forgetSocket = () => {};
  const forget = () => {
    ended = true;
    forgetSocket();
    res.off("close", end);
  };
  const end = () => {
    if (ended) return;
    forget();
    done();
  };
  res.once("close", end);
  forgetSocket = whenClosed(socket, end);
  return forget;
}
