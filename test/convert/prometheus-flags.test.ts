import { describe, expect, it } from "vitest";
import { convertPrometheusFlags, prometheusFlagsSha256 } from "../../src/convert/prometheus-flags.js";
import { type PrometheusFlagsResponse, prometheusFlagsResponse } from "../../src/upstream/payloads.js";
import { upstreamFixture } from "../helpers/fixtures.js";
import { sampleValue } from "../helpers/samples.js";

// Two Debian 2.42 replicas of one pair: their config file, data directory and listen address differ.
const a = upstreamFixture("prometheus-flags.json", prometheusFlagsResponse);
const b = upstreamFixture("prometheus-flags-replica-b.json", prometheusFlagsResponse);
const withFlags = (answer: PrometheusFlagsResponse, flags: Record<string, string>): PrometheusFlagsResponse => ({
  status: "success",
  data: { ...answer.data, ...flags },
});

describe("prometheusFlagsSha256", () => {
  it("is the same for two replicas that differ only in per-replica flags", () => {
    expect(a.data).not.toEqual(b.data);
    expect(prometheusFlagsSha256(a)).toBe(prometheusFlagsSha256(b));
  });

  it("leaves out every per-replica flag: addresses, URLs, paths", () => {
    const elsewhere = withFlags(a, {
      "web.external-url": "https://prometheus-1.example.com/",
      "web.route-prefix": "/p1",
      "storage.agent.path": "/data-agent-1",
      "storage.tsdb.delay-compact-file.path": "/data-1/thanos.shipper.json",
      "web.config.file": "/etc/prometheus/web-1.yml",
    });
    expect(prometheusFlagsSha256(elsewhere)).toBe(prometheusFlagsSha256(a));
  });

  it("changes with a flag that changes behaviour, unless flags.ignore names it", () => {
    const retention = withFlags(b, { "storage.tsdb.retention.time": "30d" });
    expect(prometheusFlagsSha256(retention)).not.toBe(prometheusFlagsSha256(a));
    expect(prometheusFlagsSha256(withFlags(a, { "enable-feature": "native-histograms" }))).not.toBe(
      prometheusFlagsSha256(a),
    );
    const debug = withFlags(b, { "log.level": "debug" });
    expect(prometheusFlagsSha256(debug)).not.toBe(prometheusFlagsSha256(a));
    expect(prometheusFlagsSha256(debug, ["log.level"])).toBe(prometheusFlagsSha256(a, ["log.level"]));
  });

  it("serves the hash as promstatus_prometheus_flags_info{sha256}", () => {
    const samples = convertPrometheusFlags(a, []);
    expect(sampleValue(samples, "promstatus_prometheus_flags_info", { sha256: prometheusFlagsSha256(b) })).toBe(1);
  });
});
