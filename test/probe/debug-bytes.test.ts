import { gzipSync } from "node:zlib";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { tsdbAnswer } from "../../scripts/bench/generate.js";
import { parseConfig } from "../../src/config/load.js";
import { Prober } from "../../src/probe/prober.js";
import { type FakeUpstream, startFakeUpstream } from "../helpers/fake-upstream.js";

// The debug account names the bytes that came over the wire, also for an answer read whole and handed
// to a decoder thread (whose buffer is moved there, leaving an empty one behind).

let upstream: FakeUpstream | undefined;
afterEach(async () => {
  await upstream?.close();
  upstream = undefined;
});

const modules = parseConfig(
  "modules:\n  tsdb-only: {kind: prometheus, targets: {enabled: false}, compression: gzip}\n",
  "/tmp/exporter.yml",
).modules;
const prober = () => new Prober(() => modules, 500, pino({ level: "silent" }));
const account = async (target: string, module: string) => {
  const answer = await prober().probe({ target, module, scrapeTimeoutSeconds: undefined, debug: true });
  return String(answer.body);
};

describe("probe debug account", () => {
  it("names the real byte count of a whole answer decoded on a thread", async () => {
    const body = Buffer.from(tsdbAnswer(2000)); // well over what is decoded inline
    upstream = await startFakeUpstream((_req, res) => void res.writeHead(200).end(body));
    expect(body.length).toBeGreaterThan(64 * 1024);
    expect(await account(upstream.url, "tsdb-only")).toMatch(
      new RegExp(`Endpoint tsdb\\n.*\\n  result: success, HTTP 200, ${body.length} bytes, \\d+ series`),
    );
  });

  it("names the gzip bytes of an answer that inflates past what is decoded inline", async () => {
    const body = gzipSync(tsdbAnswer(2000));
    upstream = await startFakeUpstream(
      (_req, res) => void res.writeHead(200, { "content-encoding": "gzip" }).end(body),
    );
    expect(await account(upstream.url, "tsdb-only")).toContain(`HTTP 200, ${body.length} bytes (gzip)`);
  });

  it("names the real byte count of an Alertmanager status answer", async () => {
    const peers = Array.from({ length: 3000 }, (_, i) => ({
      name: `peer-${i}`,
      address: `10.0.${i >> 8}.${i & 255}:9094`,
    }));
    const status = {
      cluster: { name: "c", status: "ready", peers },
      versionInfo: { version: "0.27.0", revision: "r", branch: "b", buildUser: "u", buildDate: "d", goVersion: "go" },
      config: { original: "route: {receiver: x}\nreceivers: [{name: x}]\n" },
      uptime: "2024-01-01T00:00:00.000Z",
    };
    const body = Buffer.from(JSON.stringify(status));
    upstream = await startFakeUpstream((_req, res) => void res.writeHead(200).end(body));
    expect(await account(upstream.url, "alertmanager")).toContain(`HTTP 200, ${body.length} bytes,`);
  });
});
