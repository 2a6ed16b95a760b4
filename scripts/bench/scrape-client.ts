// The scrape load: `connections` keep-alive clients, each asking again as soon as its last answer has
// ended, for `seconds`; bodies dropped as they come, their bytes counted against Content-Length. Runs in
// a process of its own (so it competes with the server under test only for the machine, as a scraper
// does) and prints one JSON line.
//
// Not autocannon: autocannon 8 appends every body chunk to a string (lib/pipelinedRequestsQueue.js,
// `req.body += data`), so a 4.2 MB gzip body cost the client ~50 ms of UTF-8 decoding (curl reading
// the same bytes without decoding them: 2-3 ms), and a 63 MB plain one a 63 MB string. Its figures were the client's, and swung with how the two
// cores were shared. Node's own client parses in C++ (llhttp) and hands the bytes over untouched.
//
// Usage: node --import tsx scripts/bench/scrape-client.ts <url> <connections> <seconds> <gzip|identity>
import { execFile } from "node:child_process";
import { Agent, get } from "node:http";
import { promisify } from "node:util";

export interface Load {
  /** Latency from request to the answer's last byte, ms. */
  p50: number;
  p99: number;
  /** Answers per second, all clients together. */
  rps: number;
  /** Answers in all. */
  answers: number;
  /** Every answer's latency, ms, ascending (so loads can be pooled). */
  latencies: number[];
  /** How long the load ran, s. */
  seconds: number;
}

/** Runs the load in a child process on `node`; throws if any answer was not 200. */
export async function scrapeLoadInChild(
  node: string,
  url: string,
  opts: { connections: number; seconds: number; gzip: boolean },
): Promise<Load> {
  const args = ["--import", "tsx", new URL(import.meta.url).pathname, url, String(opts.connections)];
  args.push(String(opts.seconds), opts.gzip ? "gzip" : "identity");
  const { stdout } = await promisify(execFile)(node, args, { timeout: (opts.seconds + 120) * 1000 });
  const out = JSON.parse(stdout) as Load & { failures: string[] };
  if (out.failures.length > 0) throw new Error(`${url}: ${out.failures.length} failed, first: ${out.failures[0]}`);
  const { p50, p99, rps, answers, latencies, seconds } = out;
  return { p50, p99, rps, answers, latencies, seconds };
}

/** Several loads as one: their answers' latencies together, their durations added. */
export function pooled(loads: readonly Load[]): Load {
  const latencies = loads.flatMap((l) => l.latencies).sort((a, b) => a - b);
  const seconds = loads.reduce((sum, l) => sum + l.seconds, 0);
  return summary(latencies, seconds);
}

function summary(sorted: number[], seconds: number): Load {
  const round = (ms: number) => Math.round(ms * 10) / 10;
  return {
    p50: round(quantile(sorted, 0.5)),
    p99: round(quantile(sorted, 0.99)),
    rps: round(sorted.length / seconds),
    answers: sorted.length,
    latencies: sorted,
    seconds,
  };
}

function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

async function main(url: string, connections: number, seconds: number, encoding: string): Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const headers = { "accept-encoding": encoding };
  const latencies: number[] = [];
  const failures: string[] = [];
  const one = () =>
    new Promise<void>((resolve) => {
      const started = performance.now();
      get(url, { agent, headers }, (res) => {
        let bytes = 0;
        res.on("data", (chunk: Buffer) => {
          bytes += chunk.length;
        });
        res.once("end", () => {
          const announced = Number(res.headers["content-length"] ?? bytes);
          if (res.statusCode !== 200) failures.push(`HTTP ${res.statusCode}`);
          else if (bytes !== announced) failures.push(`${bytes} bytes, ${announced} announced`);
          else latencies.push(performance.now() - started);
          resolve();
        });
        res.once("error", (error) => {
          failures.push(error.message);
          resolve();
        });
      }).once("error", (error) => {
        failures.push(error.message);
        resolve();
      });
    });
  const start = performance.now();
  const until = start + seconds * 1000;
  const client = async () => {
    while (performance.now() < until && failures.length === 0) await one();
  };
  await Promise.all(Array.from({ length: connections }, client));
  const elapsed = (performance.now() - start) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  process.stdout.write(`${JSON.stringify({ ...summary(latencies, elapsed), failures })}\n`);
}

if (process.argv[1] === new URL(import.meta.url).pathname) {
  const [url, connections, seconds, encoding] = process.argv.slice(2);
  await main(String(url), Number(connections), Number(seconds), String(encoding));
}
