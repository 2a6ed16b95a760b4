import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { waitFor } from "../harness/processes.js";
import { fixtureText } from "./fixtures.js";

export interface HeldUpstream {
  url: string;
  /** Requests received so far. */
  readonly requests: number;
  /** Resolves once `n` requests have arrived. */
  received(n: number): Promise<void>;
  /** Answers the held requests, and every later one at once. */
  release(): void;
  /** Holds later requests again until the next release. */
  hold(): void;
  close(): Promise<void>;
}

/**
 * A local Alertmanager stand-in that holds every request unanswered until released, then answers a
 * recorded status: probes stay in flight exactly as long as a test needs (a real server cannot be
 * made to hang on demand), and end without waiting for a timeout.
 */
export async function startHeldUpstream(): Promise<HeldUpstream> {
  const status = fixtureText("upstream/alertmanager-status-clustered.json");
  const answer = (res: ServerResponse) => res.writeHead(200, { "content-type": "application/json" }).end(status);
  let holding = true;
  let requests = 0;
  const held: ServerResponse[] = [];
  const server = createServer((_req, res) => {
    requests++;
    if (holding) held.push(res);
    else answer(res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get requests() {
      return requests;
    },
    received: async (n) => {
      await waitFor(`${n} requests upstream`, async () => (requests >= n ? true : undefined), 10_000, 10);
    },
    release() {
      holding = false;
      for (const res of held.splice(0)) answer(res);
    },
    hold() {
      holding = true;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
