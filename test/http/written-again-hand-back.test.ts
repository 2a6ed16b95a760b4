import { createServer } from "node:http";
import { connect } from "node:net";
import { describe, expect, it } from "vitest";
import type { PackedLines } from "../../src/exposition/pack.js";
import type { AgainPiece, LinesWrittenAgain } from "../../src/exposition/unpack.js";
import { sendPlain } from "../../src/http/exposition-body.js";
import { closeServer, listenOnLoopback } from "../helpers/loopback-server.js";

// A plain scrape's lines written again go to the response in slots of the decoder thread's memory,
// each handed back once its write's callback came (exposition-body.ts). Node drops some callbacks:
// a write to a connection that is no longer writable is kept in the response and never sent, its
// callback never called. A slot held for good is one of the few the thread can write into.

const PIECES = 3;
const PIECE_BYTES = 64 * 1024;

/** A writing of PIECES pieces (the family's bytes), the first given once `ready` resolves; what it gave and got back. */
function countedWriting(ready: Promise<void>) {
  let given = 0;
  let handedBack = 0;
  let closed = false;
  const writing: LinesWrittenAgain = {
    next: async (): Promise<AgainPiece | null | undefined> => {
      await ready;
      if (closed) return undefined;
      if (given >= PIECES) return null;
      given++;
      let back = false;
      return {
        bytes: Buffer.alloc(PIECE_BYTES, 0x61),
        written: () => {
          if (back) return;
          back = true;
          handedBack++;
        },
      };
    },
    close: () => {
      closed = true;
    },
  };
  return { writing, given: () => given, handedBack: () => handedBack, closed: () => closed };
}

const family: PackedLines = { members: [], sizes: [], length: PIECES * PIECE_BYTES, crc: 0, hash: "h" };

describe("lines written again, sent to a client that half-closes its connection", () => {
  it("hands every piece back once the connection closed, though Node never calls their writes' callbacks", async () => {
    let counted: ReturnType<typeof countedWriting> | undefined;
    let closed!: () => void;
    const connectionClosed = new Promise<void>((resolve) => {
      closed = resolve;
    });
    const server = createServer((req, res) => {
      // The pieces come once the client's end arrived: Node then ends the connection (its server does not
      // keep half-open ones), and the response keeps what it is given without writing it.
      const ended = req.socket.readableEnded
        ? Promise.resolve()
        : new Promise<void>((resolve) => req.socket.once("end", () => resolve()));
      req.socket.once("close", closed);
      counted = countedWriting(ended);
      const writing = counted.writing;
      res.writeHead(200, { "content-length": String(family.length) });
      void sendPlain(res, [], [family], () => writing);
    });
    const port = await listenOnLoopback(server);
    try {
      const client = connect(port, "127.0.0.1");
      client.on("data", () => {});
      client.on("error", () => {});
      client.write("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
      client.end();
      await connectionClosed;
      await new Promise((resolve) => setImmediate(resolve));
      const c = counted as ReturnType<typeof countedWriting>;
      expect(c.given()).toBeGreaterThan(0);
      expect(c.handedBack()).toBe(c.given());
      expect(c.closed()).toBe(true);
      client.destroy();
    } finally {
      await closeServer(server);
    }
  });
});
