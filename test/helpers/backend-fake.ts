import { gzipSync } from "node:zlib";
import { type FakeUpstream, startFakeUpstream } from "./fake-upstream.js";
import { fixtureText } from "./fixtures.js";

// A loopback server answering each path with a fixture of test/fixtures/backends/ byte for byte: the
// real VictoriaMetrics/vmagent 1.79 captures, or the fakes written from Thanos's and Mimir's code at a
// named release (each folder's README cites file and tag). For the backends that have no binary here.

export interface BackendAnswer {
  /** Fixture path under test/fixtures/ (the body, byte for byte). */
  body: string;
  status?: number;
  contentType?: string;
  /** Headers besides Content-Type (e.g. VictoriaMetrics' X-Server-Hostname). */
  headers?: Record<string, string>;
  /** Answer this much later. */
  delayMs?: number;
}

/** Paths answered: `/api/v1/status/buildinfo` → answer; anything else is a 404 as Go's router writes it. */
export async function startBackendFake(
  answers: Record<string, BackendAnswer>,
): Promise<FakeUpstream & { paths: string[]; urls: string[]; times: number[] }> {
  const paths: string[] = [];
  const urls: string[] = [];
  const times: number[] = [];
  const upstream = await startFakeUpstream((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    paths.push(path);
    urls.push(req.url ?? "");
    times.push(performance.now());
    const answer = answers[path];
    if (!answer) {
      res.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end("404 page not found\n");
      return;
    }
    const body = Buffer.from(fixtureText(answer.body));
    const gzip = /\bgzip\b/.test(String(req.headers["accept-encoding"] ?? ""));
    res.writeHead(answer.status ?? 200, {
      "content-type": answer.contentType ?? "application/json",
      ...answer.headers,
      ...(gzip ? { "content-encoding": "gzip" } : {}),
    });
    setTimeout(() => res.end(gzip ? gzipSync(body) : body), answer.delayMs ?? 0);
  });
  return { ...upstream, paths, urls, times };
}

const VM = "backends/victoriametrics-1.79";
// lib/httpserver/httpserver.go: every VictoriaMetrics answer carries it (the capture's value replaced).
const vmHeaders = { "x-server-hostname": "vm-0" };
const refusal = (body: string): BackendAnswer => ({
  body,
  status: 400,
  contentType: "text/plain; charset=utf-8",
  headers: vmHeaders,
});

/** VictoriaMetrics single node 1.79.5, as captured. */
export const VICTORIAMETRICS_1_79: Record<string, BackendAnswer> = {
  "/api/v1/status/buildinfo": { body: `${VM}/vm-buildinfo.json`, headers: vmHeaders },
  "/api/v1/status/tsdb": { body: `${VM}/vm-tsdb-t1.json`, headers: vmHeaders },
  "/api/v1/targets": { body: `${VM}/vm-targets-t1.json`, headers: vmHeaders },
};

/** vmagent 1.79.5, as captured: no tsdb status, no buildinfo. */
export const VMAGENT_1_79: Record<string, BackendAnswer> = {
  "/api/v1/status/buildinfo": refusal(`${VM}/vmagent-buildinfo.txt`),
  "/api/v1/status/tsdb": refusal(`${VM}/vmagent-tsdb.txt`),
  "/api/v1/targets": { body: `${VM}/vmagent-targets-t1.json`, headers: vmHeaders },
};

/** Thanos Query v0.42.4 (written from the code): a store refusing the targets call. */
export const THANOS_0_42: Record<string, BackendAnswer> = {
  "/api/v1/status/buildinfo": { body: "backends/thanos-0.42/query-buildinfo.json" },
  "/api/v1/status/tsdb": { body: "backends/thanos-0.42/query-tsdb.json" },
  "/api/v1/targets": {
    body: "backends/thanos-0.42/query-targets-store-warning.json",
    headers: { "cache-control": "no-store" },
  },
};

/** Mimir 3.1's Alertmanager of one tenant (written from the code), at the URL's /api/v2/status. */
export const MIMIR_3_1: Record<string, BackendAnswer> = {
  "/api/v2/status": { body: "backends/mimir-3.1/alertmanager-status.json" },
};

/** The same without X-Scope-OrgID: 401 `no org id`. */
export const MIMIR_3_1_NO_TENANT: Record<string, BackendAnswer> = {
  "/api/v2/status": {
    body: "backends/mimir-3.1/alertmanager-status-no-tenant.txt",
    status: 401,
    contentType: "text/plain; charset=utf-8",
  },
};

/** Debian's Prometheus 2.42 buildinfo, as captured. */
export const PROMETHEUS_2_42_BUILDINFO: Record<string, BackendAnswer> = {
  "/api/v1/status/buildinfo": { body: "backends/prometheus-2.42/buildinfo.json" },
};
