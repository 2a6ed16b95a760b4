import { describe, expect, it } from "vitest";
import { detectFlavor, fromCluster, fromVictoriaMetricsFamily } from "../../src/convert/flavor.js";
import { fixtureJson, fixtureText } from "../helpers/fixtures.js";

// Real answers: backends/victoriametrics-1.79 and backends/prometheus-2.42 (scripts/capture-backend-fixtures.sh),
// upstream/ (scripts/capture-fixtures.sh). Fakes written from the source at a named release: the other
// backends/ folders, each with a README citing file and tag.
const json = (path: string) => fixtureJson(`backends/${path}`);
const text = (path: string) => fixtureText(`backends/${path}`);

/** The headers of a captured `.head` file (status line dropped), as Node hands them over: lower-cased. */
function headers(path: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text(path).split("\n").slice(1)) {
    const colon = line.indexOf(":");
    if (colon > 0) out[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  return out;
}

describe("detectFlavor: VictoriaMetrics and vmagent", () => {
  it("knows VictoriaMetrics 1.79 by its empty buildinfo (real)", () => {
    expect(detectFlavor({ buildinfo: json("victoriametrics-1.79/vm-buildinfo.json") })).toBe("victoriametrics");
  });

  it("knows VictoriaMetrics 1.96+ by its fixed buildinfo 2.24.0 with no other field", () => {
    expect(detectFlavor({ buildinfo: json("victoriametrics-1.150/vm-buildinfo.json") })).toBe("victoriametrics");
    // A real Prometheus 2.24.0 says more than its version.
    const prometheus = { status: "success", data: { version: "2.24.0", revision: "02e92236a8b", branch: "HEAD" } };
    expect(detectFlavor({ buildinfo: prometheus })).toBe("prometheus");
  });

  it("knows VictoriaMetrics by a tsdb status with totalSeries and no headStats (real and v1.150.0)", () => {
    for (const path of ["victoriametrics-1.79/vm-tsdb-t1.json", "victoriametrics-1.150/vm-tsdb.json"])
      expect(detectFlavor({ tsdb: json(path) })).toBe("victoriametrics");
    expect(detectFlavor({ tsdb: fixtureJson("upstream/prometheus-tsdb.json") })).toBeUndefined();
  });

  it("knows vmagent by its refusal of the tsdb status and of buildinfo, with and without 1.79's prefix", () => {
    for (const path of [
      "victoriametrics-1.79/vmagent-tsdb.txt",
      "victoriametrics-1.79/vmagent-buildinfo.txt",
      "victoriametrics-1.150/vmagent-tsdb.txt",
      "victoriametrics-1.150/vmagent-buildinfo.txt",
    ])
      expect(detectFlavor({ refusal: { status: 400, body: text(path) } }), path).toBe("vmagent");
    // VictoriaMetrics refuses an Alertmanager path the same way: that says nothing about vmagent.
    const amPath = { status: 400, body: text("victoriametrics-1.79/vm-alertmanager-status.txt") };
    expect(detectFlavor({ refusal: amPath })).toBeUndefined();
  });

  it("sees the VictoriaMetrics family in the X-Server-Hostname header or the targets' shape, without naming which", () => {
    const vmHeaders = headers("victoriametrics-1.79/vm-targets-t0.head");
    const agentTargets = json("victoriametrics-1.79/vmagent-targets-t0.json");
    expect(fromVictoriaMetricsFamily({ headers: vmHeaders })).toBe(true);
    expect(fromVictoriaMetricsFamily({ headers: { "X-Server-Hostname": "vm-0" } })).toBe(true);
    expect(fromVictoriaMetricsFamily({ targets: agentTargets })).toBe(true);
    expect(detectFlavor({ headers: vmHeaders, targets: agentTargets })).toBeUndefined();
    // With the buildinfo answer as well, it is decided.
    const refusal = { status: 400, body: text("victoriametrics-1.79/vmagent-buildinfo.txt") };
    expect(detectFlavor({ headers: vmHeaders, targets: agentTargets, refusal })).toBe("vmagent");
  });

  it("does not take Prometheus or Thanos for the VictoriaMetrics family", () => {
    expect(fromVictoriaMetricsFamily({ headers: headers("prometheus-2.42/buildinfo.head") })).toBe(false);
    expect(fromVictoriaMetricsFamily({ targets: fixtureJson("upstream/prometheus-targets.json") })).toBe(false);
    expect(fromVictoriaMetricsFamily({ targets: json("thanos-0.42/query-targets.json") })).toBe(false);
  });
});

describe("detectFlavor: Prometheus, Thanos Query", () => {
  it("knows Prometheus by its buildinfo (real, Debian's 2.42) and by agent mode's refusal", () => {
    expect(detectFlavor({ buildinfo: json("prometheus-2.42/buildinfo.json") })).toBe("prometheus");
    const agent = {
      status: 422,
      body: '{"status":"error","errorType":"execution","error":"unavailable with Prometheus Agent"}',
    };
    expect(detectFlavor({ refusal: agent })).toBe("prometheus");
  });

  it("knows Thanos by its 0.x buildinfo (v0.42.4)", () => {
    expect(detectFlavor({ buildinfo: json("thanos-0.42/query-buildinfo.json") })).toBe("thanos");
  });

  it("knows Thanos by warnings beside a targets answer, and only then", () => {
    expect(detectFlavor({ targets: json("thanos-0.42/query-targets-store-warning.json") })).toBe("thanos");
    expect(detectFlavor({ targets: json("thanos-0.42/query-targets.json") })).toBeUndefined();
    expect(detectFlavor({ targets: fixtureJson("upstream/prometheus-targets.json") })).toBeUndefined();
  });
});

describe("detectFlavor: Mimir", () => {
  it("knows Mimir's Alertmanager by a ready cluster with no name and no peers", () => {
    expect(detectFlavor({ alertmanagerStatus: json("mimir-3.1/alertmanager-status.json") })).toBe("mimir");
  });

  it("takes a real Alertmanager, clustered (ready, settling) or alone (disabled), for the Prometheus project's", () => {
    for (const path of [
      "upstream/alertmanager-status-clustered.json",
      "upstream/alertmanager-status-standalone.json",
      "upstream/groups/alertmanager-split-0.json",
    ])
      expect(detectFlavor({ alertmanagerStatus: fixtureJson(path) }), path).toBe("prometheus");
  });

  it("tells them apart from the figures kept of a status answer (status and peer count)", () => {
    expect(fromCluster({ status: "ready", peers: 0 })).toBe("mimir");
    expect(fromCluster({ status: "ready", peers: 3 })).toBe("prometheus");
    expect(fromCluster({ status: "settling", peers: 1 })).toBe("prometheus");
    expect(fromCluster({ status: "disabled", peers: 0 })).toBe("prometheus");
    expect(fromCluster({ status: "something-new", peers: 0 })).toBeUndefined();
  });

  it("knows Mimir by its buildinfo's application and by the missing tenant's refusal", () => {
    expect(detectFlavor({ buildinfo: json("mimir-3.1/buildinfo.json") })).toBe("mimir");
    const refusal = { status: 401, body: text("mimir-3.1/alertmanager-status-no-tenant.txt") };
    expect(detectFlavor({ refusal })).toBe("mimir");
  });
});

describe("detectFlavor: nothing to go on", () => {
  it("returns undefined for no evidence and for answers of the wrong shape", () => {
    expect(detectFlavor({})).toBeUndefined();
    expect(
      detectFlavor({ buildinfo: "2.24.0", tsdb: [], targets: null, alertmanagerStatus: { cluster: [] } }),
    ).toBeUndefined();
    expect(
      detectFlavor({ buildinfo: { status: "success", data: { version: "unknown", revision: "" } } }),
    ).toBeUndefined();
  });
});
