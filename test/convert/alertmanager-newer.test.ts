import { describe, expect, it } from "vitest";
import { ALERTMANAGER } from "../../src/catalogue/families.js";
import { convertAlertmanagerStatus } from "../../src/convert/alertmanager-status.js";
import { alertmanagerStatusResponse } from "../../src/upstream/payloads.js";
import { sampleValue } from "../helpers/samples.js";

// Alertmanager 0.26-0.28 status answers, for what Debian's 0.25 cannot show. Modelled on
// prometheus/alertmanager api/v2/api.go at v0.28.0 (getStatusHandler) and api/v2/models at v0.26.0,
// v0.27.0 and v0.28.0 (AlertmanagerStatus, ClusterStatus, PeerStatus, VersionInfo): between 0.25 and
// 0.28 those models changed only in validation code, not in their fields. The handler:
// - starts from cluster {status: "disabled", peers: []} without a name (`name,omitempty`), which stays
//   when clustering is off;
// - with clustering, sets name to the peer's own name, status to peer.Status() ("ready" or
//   "settling"; "settling" while gossip settles at start-up) and peers sorted by name;
// - versionInfo comes from prometheus/common/version: an upstream build's revision is a 40-hex commit.
function status028(cluster: { name?: string; status: string; peers: { name: string; address: string }[] }) {
  return alertmanagerStatusResponse.parse({
    cluster,
    config: { original: "global:\n  resolve_timeout: 5m\nroute:\n  receiver: default\nreceivers:\n- name: default\n" },
    uptime: "2026-11-22T09:15:02.123Z",
    versionInfo: {
      branch: "HEAD",
      buildDate: "20250307-15:05:18",
      buildUser: "root@1e0a4ad3ea2b",
      goVersion: "go1.23.7",
      revision: "6e2b11c0b2e8ffd3b8c4d8a1a9b8f0c5d9e3a7f1",
      version: "0.28.1",
    },
  });
}

describe("Alertmanager 0.26-0.28 status answers", () => {
  it("a settling cluster member: status settling, its peers, build info with a commit hash", () => {
    const out = convertAlertmanagerStatus(
      status028({
        name: "01JNQ0ABCDEF",
        status: "settling",
        peers: [
          { name: "01JNQ0ABCDEF", address: "10.0.0.1:9094" },
          { name: "01JNQ0GHIJKL", address: "10.0.0.2:9094" },
        ],
      }),
    );
    expect(sampleValue(out, ALERTMANAGER.clusterStatus.name, { status: "settling" })).toBe(1);
    expect(sampleValue(out, ALERTMANAGER.clusterStatus.name, { status: "ready" })).toBe(0);
    expect(sampleValue(out, ALERTMANAGER.peers.name)).toBe(2);
    expect(
      sampleValue(out, ALERTMANAGER.buildInfo.name, {
        version: "0.28.1",
        revision: "6e2b11c0b2e8ffd3b8c4d8a1a9b8f0c5d9e3a7f1",
        go_version: "go1.23.7",
      }),
    ).toBe(1);
    expect(sampleValue(out, ALERTMANAGER.startTime.name)).toBe(Date.parse("2026-11-22T09:15:02.123Z") / 1000);
  });

  it("clustering off: no name, no peers, status disabled", () => {
    const out = convertAlertmanagerStatus(status028({ status: "disabled", peers: [] }));
    expect(sampleValue(out, ALERTMANAGER.clusterStatus.name, { status: "disabled" })).toBe(1);
    expect(sampleValue(out, ALERTMANAGER.peers.name)).toBe(0);
    expect(sampleValue(out, ALERTMANAGER.receivers.name)).toBe(1);
  });
});
