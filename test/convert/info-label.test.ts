import { describe, expect, it } from "vitest";
import { convertAlertmanagerStatus } from "../../src/convert/alertmanager-status.js";
import { INFO_LABEL_MAX, infoLabel } from "../../src/convert/info-label.js";
import { convertPrometheusBuildInfo, prometheusBuildFacts } from "../../src/convert/prometheus-build.js";
import { alertmanagerFacts } from "../../src/convert/replica-facts.js";
import {
  type AlertmanagerStatusResponse,
  alertmanagerStatusResponse,
  type PrometheusBuildInfoResponse,
  prometheusBuildInfoResponse,
} from "../../src/upstream/payloads.js";
import { upstreamFixture } from "../helpers/fixtures.js";

// Free text of an answer that becomes label values (and status page cells) is cut to a bound: a hostile
// buildinfo with a 30 MB version made a 63 MB /metrics.
const HUGE = "v".repeat(1_000_000);

describe("infoLabel", () => {
  it("keeps a real value as it is and cuts a long one to the bound, never through a surrogate pair", () => {
    expect(infoLabel("2.42.0+ds")).toBe("2.42.0+ds");
    expect(infoLabel(HUGE)).toHaveLength(INFO_LABEL_MAX);
    expect(infoLabel(HUGE).endsWith("…")).toBe(true);
    const emoji = `${"a".repeat(INFO_LABEL_MAX - 2)}😀😀`;
    const cut = infoLabel(emoji);
    expect(cut.length).toBeLessThanOrEqual(INFO_LABEL_MAX);
    expect(Buffer.from(cut, "utf8").toString("utf8")).toBe(cut); // no lone surrogate (it would become U+FFFD)
  });
});

describe("label values from an answer's free text", () => {
  it("bounds a Prometheus's build_info labels and the version its replicas are compared by", () => {
    const answer = upstreamFixture<PrometheusBuildInfoResponse>(
      "prometheus-buildinfo.json",
      prometheusBuildInfoResponse,
    );
    const hostile = { ...answer, data: { ...answer.data, version: HUGE, revision: HUGE } };
    const [info] = convertPrometheusBuildInfo(hostile).get("promstatus_prometheus_build_info");
    expect(info?.labels.version).toHaveLength(INFO_LABEL_MAX);
    expect(info?.labels.revision).toHaveLength(INFO_LABEL_MAX);
    expect(prometheusBuildFacts(hostile).value).toHaveLength(INFO_LABEL_MAX);
  });

  it("bounds an Alertmanager's build_info and peer_info labels, and its peers and version as compared", () => {
    const answer = upstreamFixture<AlertmanagerStatusResponse>(
      "alertmanager-status-clustered.json",
      alertmanagerStatusResponse,
    );
    const hostile: AlertmanagerStatusResponse = {
      ...answer,
      cluster: { ...answer.cluster, name: HUGE, peers: [{ name: HUGE, address: HUGE }] },
      versionInfo: { ...(answer.versionInfo as NonNullable<AlertmanagerStatusResponse["versionInfo"]>), version: HUGE },
    };
    const samples = convertAlertmanagerStatus(hostile);
    for (const name of ["promstatus_alertmanager_build_info", "promstatus_alertmanager_peer_info"])
      for (const { labels } of samples.get(name))
        for (const value of Object.values(labels)) expect(value.length).toBeLessThanOrEqual(INFO_LABEL_MAX);
    const facts = alertmanagerFacts(hostile);
    expect([facts.peerName, ...facts.peers, facts.version].map((v) => v.length)).toEqual([256, 256, 256]);
  });
});
