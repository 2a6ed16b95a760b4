import { PROMETHEUS } from "../catalogue/families.js";
import type { PrometheusBuildInfoResponse } from "../upstream/payloads.js";
import { buildInfoLabels, infoLabel } from "./info-label.js";
import type { DigestFacts } from "./replica-facts.js";
import { SampleSet } from "./samples.js";

/** Samples for `/api/v1/status/buildinfo`: one info series, as Prometheus's own prometheus_build_info. */
export function convertPrometheusBuildInfo(payload: PrometheusBuildInfoResponse): SampleSet {
  const v = payload.data;
  const labels = buildInfoLabels(v);
  return new SampleSet().add(PROMETHEUS.buildInfo.name, labels, 1);
}

/** Replicas are compared by version alone: two builds of one release are the same Prometheus. */
export function prometheusBuildFacts(payload: PrometheusBuildInfoResponse): DigestFacts {
  return { kind: "digest", value: infoLabel(payload.data.version) };
}
