import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { streamBody } from "../../src/upstream/client.js";
import { PollError } from "../../src/upstream/poll-error.js";

// A streamed answer's consumer may make the fetch wait (a decoder thread busy with another answer holds
// back its acknowledgements). The wait is within the poll's timeout: once a poll of a 4 s timeout sat
// 16 s in it, its source skipping the polls due meanwhile, and a probe held its place 24 s.

const ANSWER = Buffer.alloc(8 * 2 ** 20, "x");
const server = createServer((request, response) => {
  response.writeHead(200, { "content-type": "application/json" });
  // /stall: a first piece, then nothing more (the connection stays open).
  if (request.url === "/stall") response.write(ANSWER.subarray(0, 1000));
  else response.end(ANSWER);
});
let url = "";

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe("streamBody", () => {
  it("ends the fetch as soon as the reader says it wants no more, without waiting for the next piece", async () => {
    let pieces = 0;
    let stop = () => {};
    const received = await streamBody(
      `${url}stall`,
      { timeoutMs: 30_000, maxBytes: 2 ** 30 },
      {
        begin: (_, stopFetch) => {
          stop = stopFetch;
        },
        piece: () => {
          pieces++;
          setTimeout(stop, 50); // as a decoder thread's answer comes: after the piece was taken
          return true;
        },
      },
    );
    expect(received.stopped).toBe(true);
    expect(pieces).toBe(1);
  });

  it("fails timeout at the deadline while its consumer makes it wait", async () => {
    const started = performance.now();
    let pieces = 0;
    const failure = await streamBody(
      url,
      { timeoutMs: 300, maxBytes: 2 ** 30 },
      {
        begin: () => {},
        piece: () => {
          pieces++;
          return new Promise<boolean>(() => {}); // never has room again
        },
      },
    ).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(PollError);
    expect((failure as PollError).reason).toBe("timeout");
    expect(pieces).toBe(1);
    // At the deadline, not whenever the consumer would have let go (here: never).
    expect(performance.now() - started).toBeLessThan(5000);
  });
});
