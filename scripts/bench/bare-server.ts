// The scrape baseline: a bare node:http server answering every request with the bytes in two files, the
// plain exposition and its gzip (when the request accepts gzip). Run on the image's Node.js, in a
// process of its own as the daemon is. Prints its address when ready.
// Usage: node --import tsx scripts/bench/bare-server.ts <plain file> <gzip file>
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

const [plainFile, gzipFile] = process.argv.slice(2) as [string, string];
const plain = readFileSync(plainFile);
const zipped = readFileSync(gzipFile);
const server = createServer((req, res) => {
  const gzip = /\bgzip\b/.test(String(req.headers["accept-encoding"]));
  res.writeHead(200, {
    "content-type": "text/plain; version=0.0.4; charset=utf-8",
    "content-length": gzip ? zipped.length : plain.length,
    ...(gzip ? { "content-encoding": "gzip" } : {}),
  });
  res.end(gzip ? zipped : plain);
});
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
process.on("SIGTERM", () => process.exit(0));
