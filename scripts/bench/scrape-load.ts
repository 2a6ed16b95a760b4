// GET /metrics under load: the built daemon against a bare node:http server answering with the very
// bytes the daemon served (plain, and its gzip), each in a process of its own on the image's Node.js,
// one client and 8 at once (scrape-client.ts, in a process of its own too). The two are loaded in
// alternate short rounds and compared round by round, so that a slow or fast minute of the machine
// weighs on both alike rather than on whichever ran in it.
import { type ChildProcess, spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { get } from "node:http";
import { join } from "node:path";
import { startProber } from "./daemon.js";
import { median } from "./median.js";
import { type Load, pooled, scrapeLoadInChild } from "./scrape-client.js";

export interface ScrapeLoadRow {
  encoding: "plain" | "gzip";
  /** Clients asking at the same time. */
  clients: number;
  bodyBytes: number;
  /** All rounds' answers together. */
  bare: Load;
  exporter: Load;
  /** Each round's daemon p50 ÷ bare p50. */
  roundRatios: number[];
  /** The median of the rounds' ratios. */
  p50Ratio: number;
}

export interface ScrapeLoad {
  targets: number;
  /** Each server's share of a round, s. */
  seconds: number;
  rounds: number;
  rows: ScrapeLoadRow[];
  /** Worst /-/healthy latency of the daemon during the rounds (ms). */
  healthyMaxMs: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One scraper alone, and 8 at once. */
const CLIENTS = [1, 8] as const;
const ENCODINGS = ["plain", "gzip"] as const;
const ratio = (exporter: Load, bare: Load) => exporter.p50 / Math.max(bare.p50, 0.001);

/**
 * One encoding and number of clients: `rounds` rounds, each loading the bare server and the daemon
 * `seconds` each, the one that goes first alternating from round to round.
 */
async function alternated(
  addresses: { bare: string; exporter: string },
  load: { encoding: "plain" | "gzip"; clients: number; seconds: number; rounds: number },
): Promise<{ bare: Load; exporter: Load; roundRatios: number[] }> {
  const run = (address: string) =>
    scrapeLoadInChild(process.execPath, `http://${address}/metrics`, {
      connections: load.clients,
      seconds: load.seconds,
      gzip: load.encoding === "gzip",
    });
  const bare: Load[] = [];
  const exporter: Load[] = [];
  for (let round = 0; round < load.rounds; round++) {
    if (round % 2 === 0) {
      bare.push(await run(addresses.bare));
      exporter.push(await run(addresses.exporter));
    } else {
      exporter.push(await run(addresses.exporter));
      bare.push(await run(addresses.bare));
    }
  }
  return {
    bare: pooled(bare),
    exporter: pooled(exporter),
    roundRatios: exporter.map((e, i) => ratio(e, bare[i] as Load)),
  };
}

/** The body as sent (gzip not undone), and its Content-Encoding. */
function raw(address: string, gzip: boolean): Promise<{ body: Buffer; encoding: string | undefined }> {
  return new Promise((resolve, reject) => {
    get(`http://${address}/metrics`, { headers: { "accept-encoding": gzip ? "gzip" : "identity" } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.once("end", () =>
        resolve({ body: Buffer.concat(chunks), encoding: res.headers["content-encoding"] as string | undefined }),
      );
      res.once("error", reject);
    }).once("error", reject);
  });
}

function startBare(
  node: string,
  plainFile: string,
  gzipFile: string,
): Promise<{ child: ChildProcess; address: string }> {
  const child = spawn(
    node,
    ["--import", "tsx", new URL("./bare-server.ts", import.meta.url).pathname, plainFile, gzipFile],
    {
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  return new Promise((resolve, reject) => {
    child.stdout?.once("data", (d: Buffer) => resolve({ child, address: d.toString().trim() }));
    child.once("exit", (code) => reject(new Error(`the bare server exited with ${code}`)));
  });
}

/**
 * The load against a daemon that has published its exposition and does not poll again during it, and
 * against the bare server, in alternate rounds (the daemon's /-/healthy probed throughout).
 */
export async function scrapeLoad(opts: {
  node: string;
  dir: string;
  address: string;
  targets: number;
  seconds: number;
  rounds: number;
}): Promise<ScrapeLoad> {
  // The exposition's gzip is made once per change, after publishing: until then the daemon sends plain.
  let zipped = await raw(opts.address, true);
  for (let i = 0; zipped.encoding !== "gzip"; i++) {
    if (i > 100) throw new Error("the daemon never served its exposition gzipped");
    await sleep(200);
    zipped = await raw(opts.address, true);
  }
  const plain = await raw(opts.address, false);
  const plainFile = join(opts.dir, "exposition.txt");
  const gzipFile = join(opts.dir, "exposition.txt.gz");
  writeFileSync(plainFile, plain.body);
  writeFileSync(gzipFile, zipped.body);
  const bodyBytes = { plain: plain.body.length, gzip: zipped.body.length };

  const bare = await startBare(opts.node, plainFile, gzipFile);
  const prober = startProber([opts.address]);
  const rows: ScrapeLoadRow[] = [];
  let samples: Record<string, [number, number][]> = {};
  try {
    await prober.started;
    for (const encoding of ENCODINGS)
      for (const clients of CLIENTS) {
        const addresses = { bare: bare.address, exporter: opts.address };
        const measured = await alternated(addresses, { encoding, clients, seconds: opts.seconds, rounds: opts.rounds });
        rows.push({
          encoding,
          clients,
          bodyBytes: bodyBytes[encoding],
          ...measured,
          p50Ratio: median(measured.roundRatios),
        });
      }
  } finally {
    samples = await prober.stop().catch(() => ({}));
    bare.child.kill();
  }
  const latencies = (samples[opts.address] ?? []).map(([, ms]) => (ms < 0 ? Number.POSITIVE_INFINITY : ms));
  return {
    targets: opts.targets,
    seconds: opts.seconds,
    rounds: opts.rounds,
    rows,
    healthyMaxMs: latencies.length ? Math.max(...latencies) : Number.NaN,
  };
}
