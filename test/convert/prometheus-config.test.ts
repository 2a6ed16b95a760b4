import { describe, expect, it, vi } from "vitest";
import { parse, stringify } from "yaml";
import { InvalidPayloadError } from "../../src/convert/invalid-payload.js";
import { convertPrometheusConfig, prometheusConfigSha256 } from "../../src/convert/prometheus-config.js";
import { prometheusConfigResponse } from "../../src/upstream/payloads.js";
import { upstreamFixture } from "../helpers/fixtures.js";
import { sampleValue } from "../helpers/samples.js";

// Captured from two Debian 2.42 replicas whose configs differ only in external_labels.replica
// (test/fixtures/upstream/capture-prometheus-status.sh).
// The real parser, watched: a text nested too deeply must be refused before it is parsed.
vi.mock("yaml", async (importOriginal) => {
  const real = await importOriginal<typeof import("yaml")>();
  return { ...real, parse: vi.fn(real.parse) };
});

const a = upstreamFixture("prometheus-config.json", prometheusConfigResponse).data.yaml;
const b = upstreamFixture("prometheus-config-replica-b.json", prometheusConfigResponse).data.yaml;
const REPLICA_LABELS = ["replica", "prometheus_replica"];
const sha = (yaml: string, labels = REPLICA_LABELS) => prometheusConfigSha256(yaml, labels);

/** The same YAML with every mapping's keys in reverse order and another layout. */
function reordered(yaml: string): string {
  const reverse = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(reverse);
    if (v === null || typeof v !== "object") return v;
    return Object.fromEntries(
      Object.entries(v)
        .reverse()
        .map(([k, x]) => [k, reverse(x)]),
    );
  };
  return stringify(reverse(parse(yaml)), { indent: 4, flowCollectionPadding: false });
}

describe("prometheusConfigSha256", () => {
  it("is the same for the two halves of an HA pair, which differ only in the replica label", () => {
    expect(a).not.toBe(b);
    expect(sha(a)).toBe(sha(b));
    expect(sha(a)).toMatch(/^[0-9a-f]{64}$/);
  });

  it("tells them apart when the replica label is not among replica_labels", () => {
    expect(sha(a, ["prometheus_replica"])).not.toBe(sha(b, ["prometheus_replica"]));
  });

  it("ignores key order and layout", () => {
    const shuffled = reordered(a);
    expect(shuffled).not.toBe(a);
    expect(sha(shuffled)).toBe(sha(a));
  });

  it("changes with a job, and with an external label that is not a replica label", () => {
    const extraJob = a.replace(
      "- job_name: prometheus\n",
      "- job_name: node\n  static_configs: []\n- job_name: prometheus\n",
    );
    expect(extraJob).not.toBe(a);
    expect(sha(extraJob)).not.toBe(sha(a));
    expect(sha(a.replace("cluster: demo", "cluster: other"))).not.toBe(sha(a));
  });

  it("takes a config without external labels as one whose only external label is its replica's", () => {
    const none = "global:\n  scrape_interval: 1m\n";
    expect(sha(none)).toBe(sha("global:\n  scrape_interval: 1m\n  external_labels:\n    replica: x\n"));
  });

  it("refuses YAML that does not parse without quoting it", () => {
    expect(() => sha("global: [unclosed secret-token")).toThrow(/^data.yaml is not valid YAML$/);
  });

  it("serves the hash as promstatus_prometheus_config_info{sha256}", () => {
    const samples = convertPrometheusConfig({ status: "success", data: { yaml: a } }, REPLICA_LABELS);
    expect(sampleValue(samples, "promstatus_prometheus_config_info", { sha256: sha(b) })).toBe(1);
  });
});

describe("prometheusConfigSha256: a config nested too deeply", () => {
  // Parsing ~5000 levels overflows the parser's stack, and a second time on Node 20 aborts the process.
  const secret = "s3cr3t-token";
  const deep = [
    `global: {external_labels: {k: ${secret}}}\nx: ${"[".repeat(5000)}${"]".repeat(5000)}\n`,
    `# ${secret}\n${"- ".repeat(5000)}x\n`,
    `${Array.from({ length: 5000 }, (_, i) => `${" ".repeat(i)}a${i}:`).join("\n")} ${secret}\n`,
  ];

  it.each(deep.map((text, i) => [i, text]))("is refused before parsing, without quoting it (%i)", (_, text) => {
    vi.mocked(parse).mockClear();
    let message = "";
    try {
      sha(text);
    } catch (err) {
      expect(err).toBeInstanceOf(InvalidPayloadError);
      message = (err as Error).message;
    }
    expect(message).toBe("data.yaml is nested more than 100 levels deep (not parsed)");
    expect(parse).not.toHaveBeenCalled();
  });

  it("is parsed when it nests as real configs do", () => {
    vi.mocked(parse).mockClear();
    expect(sha(a)).toMatch(/^[0-9a-f]{64}$/);
    expect(parse).toHaveBeenCalledTimes(1);
  });
});
