import { describe, expect, it } from "vitest";
import { convertPrometheusBuildInfo, prometheusBuildFacts } from "../../src/convert/prometheus-build.js";
import { convertPrometheusFeatures } from "../../src/convert/prometheus-features.js";
import { prometheusBuildInfoResponse, prometheusFeaturesResponse } from "../../src/upstream/payloads.js";
import { upstreamFixture } from "../helpers/fixtures.js";
import { sampleValue } from "../helpers/samples.js";

describe("convertPrometheusBuildInfo", () => {
  it("serves Debian's 2.42 build as promstatus_prometheus_build_info, and compares replicas by version", () => {
    const answer = upstreamFixture("prometheus-buildinfo.json", prometheusBuildInfoResponse);
    const labels = {
      version: "2.42.0+ds",
      branch: "debian/sid",
      revision: answer.data.revision,
      go_version: answer.data.goVersion,
      build_user: answer.data.buildUser,
      build_date: answer.data.buildDate,
    };
    expect(sampleValue(convertPrometheusBuildInfo(answer), "promstatus_prometheus_build_info", labels)).toBe(1);
    expect(prometheusBuildFacts(answer)).toEqual({ kind: "digest", value: "2.42.0+ds" });
  });
});

// cmd/prometheus/testdata/features.json at v3.9.0 (the golden answer of TestFeaturesAPI), wrapped in
// the API's envelope: web/api/v1/api.go v3.9.0, features() returns the registry as the data.
describe("convertPrometheusFeatures", () => {
  const answer = upstreamFixture("prometheus-3.9-features.json", prometheusFeaturesResponse);
  const sha256Of = (a: typeof answer) =>
    convertPrometheusFeatures(a).get("promstatus_prometheus_features_info")[0]?.labels.sha256;

  it("hashes the features, whatever their order, and changes with one switched", () => {
    const reordered = { ...answer, data: Object.fromEntries(Object.entries(answer.data).reverse()) };
    expect(sha256Of(reordered)).toBe(sha256Of(answer));
    const promql = { ...answer.data.promql, per_step_stats: true };
    expect(sha256Of({ ...answer, data: { ...answer.data, promql } })).not.toBe(sha256Of(answer));
    expect(sha256Of(answer)).toMatch(/^[0-9a-f]{64}$/);
  });
});
