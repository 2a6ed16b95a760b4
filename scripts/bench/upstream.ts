// The benchmark's upstream, in its own process so its memory is not counted as the exporter's:
// serves generated answers, gzipped when asked (as Prometheus does). Prints its URL when ready.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { parseArgs } from "node:util";
import { gzipSync } from "node:zlib";
import { targetsAnswer, tsdbAnswer } from "./generate.js";

const { values } = parseArgs({ options: { targets: { type: "string" }, limit: { type: "string" } } });
const bodies: Record<string, Buffer> = {
  "/api/v1/targets": Buffer.from(targetsAnswer(Number(values.targets))),
  "/api/v1/status/tsdb": Buffer.from(tsdbAnswer(Number(values.limit))),
};
const zipped = Object.fromEntries(Object.entries(bodies).map(([k, v]) => [k, gzipSync(v)]));
const server = createServer((req, res) => {
  const path = (req.url ?? "").split("?")[0] as string;
  const gzip = /\bgzip\b/.test(String(req.headers["accept-encoding"]));
  const body = (gzip ? zipped : bodies)[path];
  if (!body) return void res.writeHead(404).end();
  res.writeHead(200, { "content-type": "application/json", ...(gzip ? { "content-encoding": "gzip" } : {}) });
  res.end(body);
});
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
process.on("disconnect", () => process.exit(0));
