import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { referencePathTargetsAnswer, targetsAnswer } from "../../scripts/bench/generate.js";
import { isPacked } from "../../src/exposition/pack.js";
import { decodeAnswer } from "../../src/poll/decode.js";
import { decodePool } from "../../src/poll/decode-pool.js";
import { pollEndpoint } from "../../src/poll/poll-endpoint.js";
import { operatorDetail } from "../../src/upstream/poll-error.js";
import { sourceConfig } from "../helpers/config.js";
import { closedPort, type FakeUpstream, startConnectProxy, startFakeUpstream } from "../helpers/fake-upstream.js";
import { familyTexts, linesText } from "../helpers/families.js";
import { fixtureText } from "../helpers/fixtures.js";
import { prometheus3Targets } from "../helpers/prometheus-3-targets.js";
import { warmDecoderThreads } from "../helpers/warm-decoder.js";

// The decoder threads started before the first timed poll, as the exporter starts them.
beforeAll(warmDecoderThreads, 60_000);

let upstream: FakeUpstream | undefined;
afterEach(async () => {
  await upstream?.close();
  upstream = undefined;
});

const targetsJson = fixtureText("upstream/prometheus-targets.json");

async function serve(handler: Parameters<typeof startFakeUpstream>[0]) {
  upstream = await startFakeUpstream(handler);
  return upstream;
}

describe("pollEndpoint", () => {
  it("asks for gzip, keeps the URL's path prefix, sends the tsdb limit and decodes the answer", async () => {
    const up = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
      res.end(gzipSync(fixtureText("upstream/prometheus-tsdb.json")));
    });
    const outcome = await pollEndpoint(
      sourceConfig({ url: `${up.url}/prom`, tsdb: { enabled: true, limit: 3 } }),
      "tsdb",
    );
    expect(outcome.ok).toBe(true);
    expect(up.requests[0]?.url).toBe("/prom/api/v1/status/tsdb?limit=3");
    expect(up.requests[0]?.headers["accept-encoding"]).toBe("gzip");
    const lines = outcome.ok
      ? outcome.families.find(([name]) => name === "promstatus_tsdb_metric_series")?.[1]
      : undefined;
    expect(linesText(lines).trimEnd().split("\n")).toHaveLength(3);
  });

  it("reports an HTTP 500 with an HTML page as http_status", async () => {
    const up = await serve((_req, res) => {
      res.writeHead(500, { "content-type": "text/html" });
      res.end("<html><body><h1>Internal Server Error</h1></body></html>");
    });
    const outcome = await pollEndpoint(sourceConfig({ url: up.url, timeoutMs: 10_000 }), "targets");
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) {
      expect(outcome.error.reason).toBe("http_status");
      expect(outcome.error.message).toBe("HTTP 500");
      expect(outcome.error.upstreamText).toBe("Internal Server Error");
    }
  });

  it("retries a transient failure and succeeds", async () => {
    let calls = 0;
    const up = await serve((_req, res) => {
      calls++;
      if (calls === 1) {
        // A proxy's blip (not Prometheus's readiness gate, whose exact "Service Unavailable" is not retried).
        res.writeHead(503).end("upstream connect error or disconnect/reset before headers");
        return;
      }
      res.writeHead(200, { "content-type": "application/json" }).end(targetsJson);
    });
    const outcome = await pollEndpoint(sourceConfig({ url: up.url, timeoutMs: 10_000 }), "targets");
    expect(outcome.ok).toBe(true);
    expect(calls).toBe(2);
  });

  it("logs Prometheus's error envelope for a 400", async () => {
    const up = await serve((_req, res) => {
      res
        .writeHead(400, { "content-type": "application/json" })
        .end(fixtureText("upstream/prometheus-error-envelope.json"));
    });
    const outcome = await pollEndpoint(sourceConfig({ url: up.url }), "tsdb");
    expect(outcome.ok ? "" : operatorDetail(outcome.error)).toMatch(/^HTTP 400: bad_data: invalid parameter "query"/);
    expect(up.requests).toHaveLength(1); // a client error is not retried
  });

  it("describes a bare JSON string and Alertmanager's error object", async () => {
    let body = JSON.stringify("not ready yet");
    const up = await serve((_req, res) => res.writeHead(404).end(body));
    const first = await pollEndpoint(sourceConfig({ url: up.url, kind: "alertmanager" }), "status");
    expect(first.ok ? "" : operatorDetail(first.error)).toBe("HTTP 404: not ready yet");
    body = fixtureText("upstream/alertmanager-error-not-found.txt");
    const second = await pollEndpoint(sourceConfig({ url: up.url, kind: "alertmanager" }), "status");
    expect(second.ok ? "" : operatorDetail(second.error)).toBe("HTTP 404: path /api/v2/nothing was not found");
  });

  it("reports garbage and truncated JSON as invalid_json", async () => {
    let body = "this is not json";
    const up = await serve((_req, res) => res.writeHead(200, { "content-type": "application/json" }).end(body));
    const garbage = await pollEndpoint(sourceConfig({ url: up.url }), "targets");
    expect(garbage.ok ? "" : garbage.error.reason).toBe("invalid_json");
    body = targetsJson.slice(0, targetsJson.length / 2);
    const truncated = await pollEndpoint(sourceConfig({ url: up.url }), "targets");
    expect(truncated.ok ? "" : truncated.error.reason).toBe("invalid_json");
  });

  it("reports JSON of the wrong shape as invalid_payload, naming the field", async () => {
    const up = await serve((_req, res) =>
      res.writeHead(200).end(JSON.stringify({ status: "success", data: { activeTargets: { health: "up" } } })),
    );
    const outcome = await pollEndpoint(sourceConfig({ url: up.url }), "targets");
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) {
      expect(outcome.error.reason).toBe("invalid_payload");
      expect(outcome.error.message).toContain("data.activeTargets");
    }
  });

  it("decompresses a gzipped error answer before describing it", async () => {
    // Prometheus 3.9+ (web/api/v1/api.go, serveTSDBStatus) refuses a bad limit with bad_data, and its
    // compression handler gzips error answers like any other when the request accepts gzip.
    const envelope = { status: "error", errorType: "bad_data", error: "limit must be a positive number" };
    const up = await serve((_req, res) =>
      res
        .writeHead(400, { "content-type": "application/json", "content-encoding": "gzip" })
        .end(gzipSync(JSON.stringify(envelope))),
    );
    const outcome = await pollEndpoint(sourceConfig({ url: up.url }), "tsdb");
    expect(outcome.ok ? "" : operatorDetail(outcome.error)).toBe("HTTP 400: bad_data: limit must be a positive number");
  });

  it("describes a gzip bomb of an error answer without inflating it past the cap", async () => {
    const up = await serve((_req, res) =>
      res.writeHead(500, { "content-encoding": "gzip" }).end(gzipSync(Buffer.alloc(8 * 2 ** 20, 0x61))),
    );
    const outcome = await pollEndpoint(sourceConfig({ url: up.url, maxResponseBytes: 2 ** 20 }), "tsdb");
    // Its first few KiB are inflated, no more (test/upstream/error-body.test.ts counts the bytes).
    expect(outcome.ok ? "" : operatorDetail(outcome.error)).toBe(`HTTP 500: ${"a".repeat(200)}…`);
  });

  it("reports an answer that never comes as a timeout within the budget", async () => {
    const up = await serve(() => {
      /* accept and never answer */
    });
    const started = Date.now();
    const outcome = await pollEndpoint(sourceConfig({ url: up.url, timeoutMs: 300 }), "targets");
    expect(outcome.ok ? "" : outcome.error.reason).toBe("timeout");
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it("reports a body that trickles forever as a timeout", async () => {
    const up = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write("{");
      const timer = setInterval(() => res.write(" "), 50);
      res.on("close", () => clearInterval(timer));
    });
    const outcome = await pollEndpoint(sourceConfig({ url: up.url, timeoutMs: 500 }), "targets");
    expect(outcome.ok ? "" : outcome.error.reason).toBe("timeout");
  });

  it("reports a refused connection as connection", async () => {
    const port = await closedPort();
    const outcome = await pollEndpoint(sourceConfig({ url: `http://127.0.0.1:${port}`, timeoutMs: 5000 }), "targets");
    expect(outcome.ok ? "" : outcome.error.reason).toBe("connection");
    expect(outcome.ok ? "" : outcome.error.message).toContain("ECONNREFUSED");
  });

  it("reports a connection reset mid-body as connection", async () => {
    const up = await serve((req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": "100000" });
      res.write(targetsJson.slice(0, 100));
      setTimeout(() => req.socket.destroy(), 20);
    });
    const outcome = await pollEndpoint(sourceConfig({ url: up.url, timeoutMs: 5000 }), "targets");
    expect(outcome.ok ? "" : outcome.error.reason).toBe("connection");
  });

  it("stops at once when aborted", async () => {
    const up = await serve(() => {});
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 50);
    const outcome = await pollEndpoint(sourceConfig({ url: up.url, timeoutMs: 10_000 }), "targets", abort.signal);
    expect(outcome.ok).toBe(false);
    expect(outcome.durationSeconds).toBeLessThan(1);
  });
});

describe("pollEndpoint size cap", () => {
  it("stops reading a body larger than max_response_size", async () => {
    const up = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(`{"pad":"${"x".repeat(200_000)}"}`);
    });
    const outcome = await pollEndpoint(sourceConfig({ url: up.url, maxResponseBytes: 100_000 }), "targets");
    expect(outcome.ok ? "" : outcome.error.reason).toBe("too_large");
  });

  it("catches a gzip bomb: small on the wire, too large decompressed", async () => {
    const bomb = gzipSync(Buffer.alloc(5_000_000, " "));
    expect(bomb.length).toBeLessThan(100_000);
    const up = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" }).end(bomb);
    });
    const outcome = await pollEndpoint(sourceConfig({ url: up.url, maxResponseBytes: 1_000_000 }), "targets");
    expect(outcome.ok ? "" : outcome.error.reason).toBe("too_large");
    expect(outcome.ok ? "" : outcome.error.message).toContain("after decompression");
  });

  it("accepts an answer just under the cap", async () => {
    const up = await serve((_req, res) => res.writeHead(200).end(targetsJson));
    const outcome = await pollEndpoint(
      sourceConfig({ url: up.url, maxResponseBytes: Buffer.byteLength(targetsJson) }),
      "targets",
    );
    expect(outcome.ok).toBe(true);
  });

  it("reports a corrupt gzip body as invalid_json", async () => {
    const up = await serve((_req, res) => res.writeHead(200, { "content-encoding": "gzip" }).end("not gzip at all"));
    const outcome = await pollEndpoint(sourceConfig({ url: up.url }), "targets");
    expect(outcome.ok ? "" : outcome.error.reason).toBe("invalid_json");
  });
});

describe("pollEndpoint request settings", () => {
  it("sends the configured headers and a bearer token re-read from its file on every poll", async () => {
    const up = await serve((_req, res) => res.writeHead(200).end(targetsJson));
    const dir = mkdtempSync(join(tmpdir(), "promstatus-token-"));
    try {
      const tokenFile = join(dir, "token");
      writeFileSync(tokenFile, "first-token\n");
      const http = {
        headers: { "X-Scope-OrgID": "team-a" },
        authorization: { type: "Bearer", credentialsFile: tokenFile },
        tls: { insecureSkipVerify: false },
        followRedirects: true,
        compression: "gzip" as const,
      };
      await pollEndpoint(sourceConfig({ url: up.url, http }), "targets");
      writeFileSync(tokenFile, "second-token");
      await pollEndpoint(sourceConfig({ url: up.url, http }), "targets");
      expect(up.requests.map((r) => r.headers.authorization)).toEqual(["Bearer first-token", "Bearer second-token"]);
      expect(up.requests[0]?.headers["x-scope-orgid"]).toBe("team-a");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("fails without leaking anything when a credentials file has gone", async () => {
    const up = await serve((_req, res) => res.writeHead(200).end(targetsJson));
    const http = {
      headers: {},
      authorization: { type: "Bearer", credentialsFile: "/nonexistent/token" },
      tls: { insecureSkipVerify: false },
      followRedirects: true,
      compression: "gzip" as const,
    };
    const outcome = await pollEndpoint(sourceConfig({ url: up.url, http }), "targets");
    expect(outcome.ok ? "" : outcome.error.message).toBe(
      "cannot read authorization.credentials_file /nonexistent/token (ENOENT)",
    );
    expect(up.requests).toHaveLength(0);
  });

  it("goes through proxy_url", async () => {
    const up = await serve((_req, res) => res.writeHead(200).end(targetsJson));
    const proxy = await startConnectProxy();
    try {
      const http = {
        headers: {},
        tls: { insecureSkipVerify: false },
        proxyUrl: proxy.url,
        followRedirects: true,
        compression: "gzip" as const,
      };
      const outcome = await pollEndpoint(sourceConfig({ url: up.url, http }), "targets");
      expect(outcome.ok).toBe(true);
      expect(proxy.tunnels).toEqual([new URL(up.url).host]);
    } finally {
      await proxy.close();
    }
  });

  it("reports a redirect loop as http_status", async () => {
    const up = await serve((req, res) => res.writeHead(302, { location: req.url === "/a" ? "/b" : "/a" }).end());
    const outcome = await pollEndpoint(sourceConfig({ url: up.url }), "targets");
    expect(outcome.ok ? "" : outcome.error.reason).toBe("http_status");
    expect(outcome.ok ? "" : outcome.error.message).toBe("too many redirects");
  });
});

describe("pollEndpoint at scale", () => {
  it("tells Thanos Query from the warnings at the end of a streamed targets answer, across pieces", async () => {
    // Thanos Query's Respond (pkg/api/api.go, v0.42.4) writes `warnings` after `data`, at the top level.
    const answer = Buffer.from(targetsAnswer(500).replace(/\}\s*$/, ',"warnings":["partial response"]}'));
    const quiet = Buffer.from(targetsAnswer(500));
    for (const [body, flavor] of [
      [answer, "thanos"],
      [quiet, undefined],
    ] as const) {
      // In pieces of 5000 bytes, each written apart: the last bytes of the answer span several.
      const up = await serve((_req, res) => {
        res.writeHead(200, { "content-type": "application/json" });
        for (let at = 0; at < body.length; at += 5000) res.write(body.subarray(at, at + 5000));
        res.end();
      });
      const outcome = await pollEndpoint(sourceConfig({ url: up.url }), "targets");
      expect(outcome.ok).toBe(true);
      expect(outcome.clue?.flavor).toBe(flavor);
      await up.close();
      upstream = undefined;
    }
  });

  it("streams a large answer to a decoder thread, with the same result as decoding it whole", async () => {
    const big = targetsAnswer(3000);
    expect(Buffer.byteLength(big)).toBeGreaterThan(1_000_000);
    const up = await serve((_req, res) => res.writeHead(200).end(big));
    const { offloaded, streamed } = decodePool;
    const outcome = await pollEndpoint(sourceConfig({ url: up.url }), "targets");
    expect([decodePool.offloaded, decodePool.streamed]).toEqual([offloaded, streamed + 1]);
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    const inline = decodeAnswer({
      endpoint: "targets",
      body: Buffer.from(big),
      encoding: undefined,
      options: {
        replicaFacts: false,
        perTarget: true,
        targetLabels: [],
        limit: undefined,
        labelPrefix: 'source="prom"',
        maxBytes: 2 ** 30,
      },
    });
    expect(inline.ok && inline.series).toBe(outcome.series);
    expect(outcome.series).toBeGreaterThan(3000 * 3);
    // The poll adds that the server has the endpoint (endpoints.ts, supportedSample) to the decoded families.
    const [supported, ...decoded] = [...outcome.families].reverse();
    expect(supported?.[0]).toBe("promstatus_endpoint_supported");
    expect(inline.ok && familyTexts(inline.families)).toEqual(familyTexts(decoded.reverse()));
    // Small families come back too: their buffers were slices of Node's shared pool in the worker,
    // which Node.js 21+ refuses to transfer (this failed on the image's Node.js before).
    expect(outcome.families.some(([, l]) => !isPacked(l) && l.byteLength > 0 && l.byteLength < 4096)).toBe(true);
    // Large ones come packed by the decoder thread: their plain lines never were on this thread.
    expect(outcome.families.some(([, lines]) => isPacked(lines))).toBe(true);
  });

  it("says when the targets' fast reader left an answer to the reference path, and only then", async () => {
    const answers = [targetsAnswer(50), referencePathTargetsAnswer(50), '{"status":"success","data":'];
    let poll = 0;
    const up = await serve((_req, res) => res.writeHead(200).end(answers[poll]));
    const polls = [];
    for (poll = 0; poll < answers.length; poll++)
      polls.push(await pollEndpoint(sourceConfig({ url: up.url }), "targets"));
    // The answer the reader gives up on is asked for again, whole, for the reference path.
    expect(up.requests).toHaveLength(5);
    // Read by the fast path; decoded by the reference path (a duplicate key); invalid, failed there.
    expect(polls.map((o) => [o.ok, o.fallback])).toEqual([
      [true, false],
      [true, true],
      [false, true],
    ]);
    await up.close();
    const tsdb = await serve((_req, res) => res.writeHead(200).end(fixtureText("upstream/prometheus-tsdb.json")));
    const outcome = await pollEndpoint(sourceConfig({ url: tsdb.url }), "tsdb");
    expect([outcome.ok, outcome.fallback]).toEqual([true, false]); // no fast reader: nothing to fall back from
  });

  it("asks for every state on every poll, so a 2.47-3.x server's dropped counts never flap", async () => {
    // The fake answers as web/api/v1/api.go does at v3.5.0 (see the model's comments).
    const model = {
      active: [{ scrapePool: "node", labels: { job: "node", instance: "a:9100" }, health: "up" as const }],
      pools: [{ name: "node", keptDropped: [{ __address__: "b:9100" }], droppedCount: 12 }],
    };
    const up = await serve((req, res) =>
      res.writeHead(200).end(prometheus3Targets(model, new URL(req.url ?? "/", "http://x").searchParams)),
    );
    const source = sourceConfig({ url: up.url });
    const dropped: string[] = [];
    for (let i = 0; i < 3; i++) {
      const outcome = await pollEndpoint(source, "targets");
      const lines = outcome.ok ? outcome.families.find(([n]) => n === "promstatus_targets_dropped")?.[1] : undefined;
      dropped.push(linesText(lines));
    }
    expect(dropped).toEqual(Array(3).fill('promstatus_targets_dropped{source="prom",scrape_pool="node"} 12\n'));
    expect(up.requests.map((r) => r.url)).toEqual(Array(3).fill("/api/v1/targets"));
  });
});
