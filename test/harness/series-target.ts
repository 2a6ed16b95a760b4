import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface SeriesTarget {
  /** host:port (127.0.0.1) for a scrape config. */
  address: string;
  close(): Promise<void>;
}

/**
 * A scrape target on loopback serving `series` gauges (short names and one label, so that Prometheus
 * spends its time appending, not lexing), with values that change from scrape to scrape. The bodies
 * are rendered once: the target costs nearly nothing per scrape, whatever its size.
 */
export async function startSeriesTarget(series: number, name = "load"): Promise<SeriesTarget> {
  const bodies = [0, 1, 2, 3].map((round) => {
    const lines = [`# TYPE ${name} gauge`];
    for (let i = 0; i < series; i++) lines.push(`${name}{i="${i}"} ${(i * 7 + round * 13) % 1000}`);
    return Buffer.from(`${lines.join("\n")}\n`);
  });
  let scrapes = 0;
  const server: Server = createServer((req, res) => {
    if (req.url !== "/metrics") return void res.writeHead(404).end();
    res.writeHead(200, { "content-type": "text/plain; version=0.0.4" }).end(bodies[scrapes++ % bodies.length]);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    address: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
