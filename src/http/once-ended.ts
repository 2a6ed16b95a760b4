import type { IncomingMessage, ServerResponse } from "node:http";

/**
 * Calls `done` once, when the response closes (written to the end, or its client gone) or its
 * connection closes, whichever comes first. Both, because on Node 20 a response queued behind another
 * on a keep-alive connection (pipelined requests) emits no 'close' when the client hangs up. The
 * connection's listener is removed again: a keep-alive connection carries many requests. By then no
 * write of the response is pending: a response closes after its last write completed ('finish'), a
 * connection once its handle closed, pending writes cancelled.
 */
export function onceEnded(req: IncomingMessage, res: ServerResponse, done: () => void): void {
  const socket = req.socket;
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    socket.off("close", end);
    res.off("close", end);
    done();
  };
  res.once("close", end);
  socket.once("close", end);
}
