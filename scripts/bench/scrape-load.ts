// GET /metrics under load: the built daemon against a bare node:http server answering with the very
// bytes the daemon served (plain, and its gzip), each in a process of its own on the image's Node.js,
// 8 concurrent clients (scrape-client.ts, in a process of its own too).
import { type ChildProcess, spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { get } from "node:http";
import { join } from "node:path";
import { startProber } from "./daemon.js";
import { type Load, scrapeLoadInChild } from "./scrape-client.js";

export interface ScrapeLoadRow {
  encoding: "plain" | "gzip";
  /** Clients asking at the same time. */
  clients: number;
  bodyBytes: number;
  bare: Load;
  exporter: Load;
  p50Ratio: number;
}

export interface ScrapeLoad {
  targets: number;
  seconds: number;
  rows: ScrapeLoadRow[];
  /** Worst /-/healthy latency of the daemon while it served the load (ms). */
  healthyMaxMs: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One scraper alone, and 8 at once. */
const CLIENTS = [1, 8] as const;
const ENCODINGS = ["plain", "gzip"] as const;
type Loads = Map<string, Load>;
const loadKey = (encoding: string, clients: number) => `${encoding} ${clients}`;

/** Each encoding with each number of clients, `seconds` each, one after another. */
async function loads(address: string, seconds: number): Promise<Loads> {
  const out: Loads = new Map();
  for (const encoding of ENCODINGS)
    for (const connections of CLIENTS) {
      const url = `http://${address}/metrics`;
      out.set(
        loadKey(encoding, connections),
        await scrapeLoadInChild(process.execPath, url, { connections, seconds, gzip: encoding === "gzip" }),
      );
    }
  return out;
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
 * The load against a daemon that has published its exposition and does not poll again during it: the
 * daemon plain then gzip (its /-/healthy probed meanwhile), then the bare server plain then gzip.
 */
export async function scrapeLoad(opts: {
  node: string;
  dir: string;
  address: string;
  targets: number;
  seconds: number;
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

  const prober = startProber([opts.address]);
  await prober.started;
  let exporter: Loads;
  let samples: Record<string, [number, number][]> = {};
  try {
    exporter = await loads(opts.address, opts.seconds);
  } finally {
    samples = await prober.stop().catch(() => ({}));
  }
  const latencies = (samples[opts.address] ?? []).map(([, ms]) => (ms < 0 ? Number.POSITIVE_INFINITY : ms));

  const bare = await startBare(opts.node, plainFile, gzipFile);
  try {
    const bareLoads = await loads(bare.address, opts.seconds);
    const bodyBytes = { plain: plain.body.length, gzip: zipped.body.length };
    const rows = ENCODINGS.flatMap((encoding) =>
      CLIENTS.map((clients): ScrapeLoadRow => {
        const b = bareLoads.get(loadKey(encoding, clients)) as Load;
        const e = exporter.get(loadKey(encoding, clients)) as Load;
        return {
          encoding,
          clients,
          bodyBytes: bodyBytes[encoding],
          bare: b,
          exporter: e,
          p50Ratio: e.p50 / Math.max(b.p50, 0.001),
        };
      }),
    );
    return {
      targets: opts.targets,
      seconds: opts.seconds,
      rows,
      healthyMaxMs: latencies.length ? Math.max(...latencies) : Number.NaN,
    };
  } finally {
    bare.child.kill();
  }
}
