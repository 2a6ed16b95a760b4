import { createHash } from "node:crypto";
import { describe, expect, it, vi } from "vitest";
import { parse } from "yaml";
import { ALERTMANAGER } from "../../src/catalogue/families.js";
import { summarizeAlertmanagerConfig } from "../../src/convert/alertmanager-config.js";
import { convertAlertmanagerStatus } from "../../src/convert/alertmanager-status.js";
import { InvalidPayloadError } from "../../src/convert/invalid-payload.js";
import { alertmanagerStatusResponse } from "../../src/upstream/payloads.js";
import { fixtureJson, upstreamFixture } from "../helpers/fixtures.js";
import { sampleValue } from "../helpers/samples.js";

// The real parser, watched: a text nested too deeply must be refused before it is parsed.
vi.mock("yaml", async (importOriginal) => {
  const real = await importOriginal<typeof import("yaml")>();
  return { ...real, parse: vi.fn(real.parse) };
});

const clustered = upstreamFixture("alertmanager-status-clustered.json", alertmanagerStatusResponse);
const standalone = upstreamFixture("alertmanager-status-standalone.json", alertmanagerStatusResponse);

describe("convertAlertmanagerStatus", () => {
  it("reports the peers of a two-node cluster", () => {
    const out = convertAlertmanagerStatus(clustered);
    expect(sampleValue(out, ALERTMANAGER.peers.name)).toBe(2);
    for (const peer of clustered.cluster.peers) {
      expect(sampleValue(out, ALERTMANAGER.peerInfo.name, { peer_name: peer.name, peer_address: peer.address })).toBe(
        1,
      );
    }
  });

  it("sets 1 on the current cluster status and 0 on the other known ones", () => {
    const out = convertAlertmanagerStatus(clustered);
    const current = clustered.cluster.status;
    expect(["ready", "settling"]).toContain(current);
    for (const status of ["ready", "settling", "disabled"]) {
      expect(sampleValue(out, ALERTMANAGER.clusterStatus.name, { status })).toBe(status === current ? 1 : 0);
    }
  });

  it("handles a non-clustered Alertmanager: no name, no peers, status disabled", () => {
    expect(standalone.cluster.name).toBeUndefined();
    const out = convertAlertmanagerStatus(standalone);
    expect(sampleValue(out, ALERTMANAGER.peers.name)).toBe(0);
    expect(out.get(ALERTMANAGER.peerInfo.name)).toEqual([]);
    expect(sampleValue(out, ALERTMANAGER.clusterStatus.name, { status: "disabled" })).toBe(1);
    expect(sampleValue(out, ALERTMANAGER.clusterStatus.name, { status: "ready" })).toBe(0);
  });

  it("keeps an unexpected cluster status visible", () => {
    const out = convertAlertmanagerStatus({ ...standalone, cluster: { ...standalone.cluster, status: "joining" } });
    expect(sampleValue(out, ALERTMANAGER.clusterStatus.name, { status: "joining" })).toBe(1);
    expect(out.get(ALERTMANAGER.clusterStatus.name)).toHaveLength(4);
  });

  it("turns uptime (the start instant) into Unix seconds", () => {
    const out = convertAlertmanagerStatus(clustered);
    expect(sampleValue(out, ALERTMANAGER.startTime.name)).toBe(Date.parse(clustered.uptime) / 1000);
  });

  it("reports build info with the real server's fields", () => {
    const out = convertAlertmanagerStatus(clustered);
    const v = clustered.versionInfo;
    expect(v?.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(
      sampleValue(out, ALERTMANAGER.buildInfo.name, {
        version: v?.version as string,
        revision: v?.revision as string,
        branch: v?.branch as string,
        go_version: v?.goVersion as string,
        build_user: v?.buildUser as string,
        build_date: v?.buildDate as string,
      }),
    ).toBe(1);
  });

  it("counts receivers, route nodes, inhibit rules and templates, and hashes the config", () => {
    // The captured config has 4 receivers and a route tree root -> (team-a -> team-a-pager, team-b).
    const out = convertAlertmanagerStatus(clustered);
    expect(sampleValue(out, ALERTMANAGER.receivers.name)).toBe(4);
    expect(sampleValue(out, ALERTMANAGER.routes.name)).toBe(4);
    expect(sampleValue(out, ALERTMANAGER.inhibitRules.name)).toBe(1);
    expect(sampleValue(out, ALERTMANAGER.templates.name)).toBe(1);
    const sha = createHash("sha256").update(clustered.config.original).digest("hex");
    expect(sampleValue(out, ALERTMANAGER.configInfo.name, { config_sha256: sha })).toBe(1);
  });

  it("never puts any part of config.original into a label", () => {
    expect(clustered.config.original).toContain("s3cr3t-webhook-token");
    const out = convertAlertmanagerStatus(clustered);
    const labelText = JSON.stringify([...out.families.values()].flat().map((s) => s.labels));
    expect(labelText).not.toContain("s3cr3t");
    expect(labelText).not.toContain("webhook");
  });
});

describe("summarizeAlertmanagerConfig", () => {
  it("counts a minimal config: one route node, nothing else", () => {
    expect(summarizeAlertmanagerConfig("route:\n  receiver: x\nreceivers:\n- name: x\n")).toMatchObject({
      receivers: 1,
      routes: 1,
      inhibitRules: 0,
      templates: 0,
    });
  });

  it("differs in hash when the config differs", () => {
    const a = summarizeAlertmanagerConfig("route: {receiver: a}\n").sha256;
    const b = summarizeAlertmanagerConfig("route: {receiver: b}\n").sha256;
    expect(a).not.toBe(b);
  });

  it("rejects YAML it cannot parse without quoting the text", () => {
    const secret = "token-abc123";
    const parse = () => summarizeAlertmanagerConfig(`route: [\n url: "${secret}`);
    expect(parse).toThrow(InvalidPayloadError);
    expect(parse).toThrow(/^config.original is not valid YAML$/);
  });
});

describe("summarizeAlertmanagerConfig: a config nested too deeply", () => {
  // Parsing ~5000 levels overflows the parser's stack, and a second time on Node 20 aborts the process;
  // any /probe caller can name the Alertmanager whose config.original it is.
  const secret = "https://hooks.example/T0/s3cr3t";
  const deep = [
    `receivers: [{name: x, webhook_configs: [{url: ${secret}}]}]\nroute: ${"[".repeat(5000)}${"]".repeat(5000)}\n`,
    `route:\n  routes:\n${"  - ".repeat(5000)}${secret}\n`,
    `${Array.from({ length: 5000 }, (_, i) => `${" ".repeat(2 * i)}- routes:`).join("\n")} ${secret}\n`,
  ];

  it.each(deep.map((text, i) => [i, text]))("is refused before parsing, without quoting it (%i)", (_, text) => {
    vi.mocked(parse).mockClear();
    let message = "";
    try {
      summarizeAlertmanagerConfig(text);
    } catch (err) {
      expect(err).toBeInstanceOf(InvalidPayloadError);
      message = (err as Error).message;
    }
    expect(message).toBe("config.original is nested more than 100 levels deep (not parsed)");
    expect(parse).not.toHaveBeenCalled();
  });

  it("is parsed when it nests as real configs do", () => {
    vi.mocked(parse).mockClear();
    expect(summarizeAlertmanagerConfig(clustered.config.original).receivers).toBeGreaterThan(0);
    expect(summarizeAlertmanagerConfig(standalone.config.original).routes).toBeGreaterThan(0);
    expect(parse).toHaveBeenCalledTimes(2);
  });
});

describe("summarizeAlertmanagerConfig and stderr", () => {
  it("writes nothing outside the logger, whatever the config text holds", () => {
    const warnings: unknown[] = [];
    const spy = (warning: unknown) => warnings.push(warning);
    process.on("warning", spy);
    const emit = process.emitWarning;
    process.emitWarning = ((w: unknown) => warnings.push(w)) as typeof process.emitWarning;
    try {
      const text =
        "route: {receiver: hook}\nreceivers:\n- name: hook\n  webhook_configs:\n  - url: !weird http://x/?token=s3cr3t-token\n";
      const summary = summarizeAlertmanagerConfig(text);
      expect(summary.receivers).toBe(1);
    } finally {
      process.emitWarning = emit;
      process.off("warning", spy);
    }
    expect(warnings).toEqual([]);
  });
});

describe("convertAlertmanagerStatus: Mimir's multi-tenant Alertmanager", () => {
  // Mimir 3.1 (fake from pkg/alertmanager/alertmanager.go's NilPeer, cited in its README): ready, no name,
  // no peers; Mimir Alertmanagers replicate over Mimir's ring, not gossip. A healthy one looks like this.
  const mimir = alertmanagerStatusResponse.parse(fixtureJson("backends/mimir-3.1/alertmanager-status.json"));

  it("publishes no peer series and 0 peers, as for an Alertmanager with no gossip cluster", () => {
    const out = convertAlertmanagerStatus(mimir);
    expect(out.get(ALERTMANAGER.peerInfo.name)).toEqual([]);
    expect(sampleValue(out, ALERTMANAGER.peers.name)).toBe(0);
    // The status as the server says it: the shipped rules alert on settling only.
    expect(sampleValue(out, ALERTMANAGER.clusterStatus.name, { status: "ready" })).toBe(1);
    expect(sampleValue(out, ALERTMANAGER.clusterStatus.name, { status: "settling" })).toBe(0);
  });
});
