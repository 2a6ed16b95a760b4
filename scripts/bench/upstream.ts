// The benchmark's upstream, in its own process so its memory is not counted as the exporter's:
// serves generated answers, gzipped when asked (as Prometheus does). Targets answers alternate between
// two rounds whose scrape times and durations differ, as a real server's do from one poll to the next.
// Prints its URL when ready.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { parseArgs } from "node:util";
import { gzipSync } from "node:zlib";
import { targetsAnswer, tsdbAnswer } from "./generate.js";

const { values } = parseArgs({ options: { targets: { type: "string" }, limit: { type: "string" } } });
const variants = [0, 1].map((round) => {
  const plain: Record<string, Buffer> = {
    "/api/v1/targets": Buffer.from(targetsAnswer(Number(values.targets), round)),
    "/api/v1/status/tsdb": Buffer.from(tsdbAnswer(Number(values.limit))),
  };
  const gzip = Object.fromEntries(Object.entries(plain).map(([k, v]) => [k, gzipSync(v)]));
  return { plain, gzip };
});
let served = 0;
const server = createServer((req, res) => {
  const path = (req.url ?? "").split("?")[0] as string;
  const gzip = /\bgzip\b/.test(String(req.headers["accept-encoding"]));
  const variant = variants[path === "/api/v1/targets" ? served++ % variants.length : 0] as (typeof variants)[number];
  const body = (gzip ? variant.gzip : variant.plain)[path];
  if (!body) return void res.writeHead(404).end();
  res.writeHead(200, { "content-type": "application/json", ...(gzip ? { "content-encoding": "gzip" } : {}) });
  res.end(body);
});
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
process.on("disconnect", () => process.exit(0));
