import type { PrometheusBuildInfoResponse } from "../upstream/payloads.js";
import { PROMETHEUS } from "./families.js";
import { infoLabel, infoLabels } from "./info-label.js";
import type { DigestFacts } from "./replica-facts.js";
import { SampleSet } from "./samples.js";

/** Samples for `/api/v1/status/buildinfo`: one info series, as Prometheus's own prometheus_build_info. */
export function convertPrometheusBuildInfo(payload: PrometheusBuildInfoResponse): SampleSet {
  const v = payload.data;
  const labels = infoLabels({
    version: v.version,
    revision: v.revision,
    branch: v.branch,
    go_version: v.goVersion,
    build_user: v.buildUser,
    build_date: v.buildDate,
  });
  return new SampleSet().add(PROMETHEUS.buildInfo.name, labels, 1);
}

/** Replicas are compared by version alone: two builds of one release are the same Prometheus. */
export function prometheusBuildFacts(payload: PrometheusBuildInfoResponse): DigestFacts {
  return { kind: "digest", value: infoLabel(payload.data.version) };
}
