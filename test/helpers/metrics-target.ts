import { createServer, type Server } from "node:http";

/** A minimal scrape target on loopback: answers /metrics with one gauge, for a real Prometheus to scrape. */
export async function startMetricsTarget(): Promise<Server> {
  const server = createServer((req, res) => {
    if (req.url !== "/metrics") return void res.writeHead(404).end();
    res.writeHead(200, { "content-type": "text/plain; version=0.0.4" }).end("# TYPE test_gauge gauge\ntest_gauge 1\n");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return server;
}
