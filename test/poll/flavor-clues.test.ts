import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { answerClue, clusterClue, refusalClue, targetsEndClue } from "../../src/poll/flavor-clues.js";
import { describeErrorBody } from "../../src/upstream/error-body.js";
import { PollError } from "../../src/upstream/poll-error.js";
import { fixtureText } from "../helpers/fixtures.js";

// The few fields of an answer read on the event loop for its flavor (real VM/vmagent 1.79 and Prometheus
// 2.42 captures, fakes from Thanos's and Mimir's code: test/fixtures/backends/*/README.md).
const bytes = (path: string) => Buffer.from(fixtureText(path));

describe("flavor clues", () => {
  it("read the start of a tsdb answer only: VictoriaMetrics' totalSeries, plain or gzipped (a cut gzip stream inflates)", () => {
    const vm = bytes("backends/victoriametrics-1.79/vm-tsdb-topN-2000.json");
    expect(vm.length).toBeGreaterThan(4096); // more than the part inflated
    expect(answerClue("tsdb", vm, undefined)?.flavor).toBe("victoriametrics");
    expect(answerClue("tsdb", gzipSync(vm), "gzip")?.flavor).toBe("victoriametrics");
    expect(answerClue("tsdb", bytes("upstream/prometheus-tsdb.json"), undefined)).toBeUndefined();
    expect(answerClue("tsdb", bytes("backends/thanos-0.42/query-tsdb.json"), undefined)).toBeUndefined();
    expect(answerClue("tsdb", Buffer.from([0x1f, 0x8b, 1, 2, 3]), "gzip")).toBeUndefined();
  });

  it("read a whole buildinfo answer, gzipped or not, and nothing larger than 64 KiB", () => {
    expect(answerClue("buildinfo", bytes("backends/victoriametrics-1.79/vm-buildinfo.json"), undefined)?.flavor).toBe(
      "victoriametrics",
    );
    const thanos = bytes("backends/thanos-0.42/query-buildinfo.json");
    expect(answerClue("buildinfo", gzipSync(thanos), "gzip")?.flavor).toBe("thanos");
    expect(answerClue("buildinfo", bytes("backends/prometheus-2.42/buildinfo.json"), undefined)?.flavor).toBe(
      "prometheus",
    );
    const padded = Buffer.from(`${" ".repeat(70_000)}${thanos}`);
    expect(answerClue("buildinfo", padded, undefined)).toBeUndefined();
    expect(answerClue("buildinfo", Buffer.from("not json"), undefined)).toBeUndefined();
  });

  it("read an error answer as the poll's error keeps it (status and excerpt)", () => {
    const refusal = (status: number, path: string) =>
      new PollError("http_status", `HTTP ${status}`, {
        status,
        upstreamText: describeErrorBody(bytes(path)),
      });
    expect(refusalClue("/api/v1/status/tsdb", refusal(400, "backends/victoriametrics-1.79/vmagent-tsdb.txt"))).toEqual({
      flavor: "vmagent",
      from: "its refusal of /api/v1/status/tsdb (HTTP 400)",
    });
    expect(
      refusalClue("/api/v1/status/tsdb", refusal(400, "backends/victoriametrics-1.150/vmagent-tsdb.txt"))?.flavor,
    ).toBe("vmagent");
    expect(
      refusalClue("/api/v2/status", refusal(401, "backends/mimir-3.1/alertmanager-status-no-tenant.txt"))?.flavor,
    ).toBe("mimir");
    expect(
      refusalClue("/api/v2/status", refusal(400, "backends/victoriametrics-1.79/vm-alertmanager-status.txt")),
    ).toBeUndefined();
    expect(refusalClue("/api/v1/targets", new PollError("connection", "refused"))).toBeUndefined();
  });

  it("find Thanos's warnings at the end of a targets answer, not a quoted look-alike inside a string", () => {
    const warned = fixtureText("backends/thanos-0.42/query-targets-store-warning.json");
    expect(targetsEndClue(warned.slice(-16_384))?.flavor).toBe("thanos");
    expect(targetsEndClue(fixtureText("backends/thanos-0.42/query-targets.json"))).toBeUndefined();
    const quoted = JSON.stringify({ status: "success", data: { activeTargets: [{ lastError: '},"warnings":[' }] } });
    expect(targetsEndClue(quoted)).toBeUndefined();
  });

  it("read an Alertmanager's cluster from the figures kept of its status", () => {
    expect(clusterClue({ cluster: { status: "ready", peers: 0, peerNames: [] } })?.flavor).toBe("mimir");
    expect(clusterClue({ cluster: { status: "disabled", peers: 0, peerNames: [] } })?.flavor).toBe("prometheus");
    expect(clusterClue({ headSeries: 3 })).toBeUndefined();
  });
});
