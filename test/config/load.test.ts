import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig, parseConfig } from "../../src/config/load.js";
import {
  endpointsOf,
  type ModuleConfig,
  PROMETHEUS_STATUS_ENDPOINTS,
  type PrometheusStatusEndpoint,
  type SourceConfig,
} from "../../src/config/types.js";
import { fixtureText } from "../helpers/fixtures.js";

const dir = fileURLToPath(new URL("../fixtures/config/", import.meta.url));
const path = (name: string) => `${dir}${name}`;
const invalid = readdirSync(dir).filter((f) => f.startsWith("invalid-"));

async function loadError(name: string): Promise<ConfigError> {
  try {
    await loadConfig(path(name));
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error(`${name} was accepted`);
}

describe("valid configs", () => {
  it("accepts a probe-only config: no sources, the built-in modules beside its own", async () => {
    const { sources, modules } = await loadConfig(path("valid-probe-only.yml"));
    expect(sources).toEqual([]);
    expect([...modules.keys()].sort()).toEqual(["alertmanager", "alertmanager-fast", "prometheus"]);
    expect(modules.get("alertmanager-fast")).toMatchObject({
      kind: "alertmanager",
      timeoutMs: 3000,
      minIntervalMs: 10_000,
    });
    expect(modules.get("prometheus")?.minIntervalMs).toBe(0);
  });

  it("applies defaults to a minimal config", async () => {
    const { sources } = await loadConfig(path("valid-minimal.yml"));
    expect(sources).toEqual([
      {
        name: "prom",
        kind: "prometheus",
        url: "http://127.0.0.1:9090",
        labels: {},
        schedule: "*/30 * * * * *",
        timeoutMs: 10_000,
        maxResponseBytes: 2 ** 30,
        seriesLimit: 0,
        tsdb: { enabled: true, limit: undefined },
        targets: { enabled: true, perTarget: true, labels: [] },
        // Not in a group: the status endpoints that need no peer to compare with.
        config: { enabled: false },
        rules: { enabled: false },
        flags: { enabled: false, ignore: [] },
        runtimeinfo: { enabled: true },
        buildinfo: { enabled: true },
        walreplay: { enabled: true },
        features: { enabled: false },
        replicaLabels: ["replica", "prometheus_replica"],
        http: {
          headers: {},
          tls: {
            caFile: undefined,
            certFile: undefined,
            keyFile: undefined,
            serverName: undefined,
            insecureSkipVerify: false,
          },
          proxyUrl: undefined,
          followRedirects: true,
          compression: "auto",
        },
      },
    ]);
  });

  it("reads every key of the full example, overrides winning over global", async () => {
    const [prom, am] = (await loadConfig(path("valid-full.yml"))).sources;
    expect(prom).toMatchObject({
      labels: { region: "eu-1", cluster: "main" },
      schedule: "*/15 * * * * *",
      timeoutMs: 5000,
      tsdb: { enabled: true, limit: 20 },
    });
    expect(am).toMatchObject({ kind: "alertmanager", schedule: "*/30 * * * * *", timeoutMs: 10_000 });
  });

  it("keeps a path prefix and drops the trailing slash", async () => {
    const [s] = (await loadConfig(path("valid-path-prefix.yml"))).sources;
    expect(s?.url).toBe("https://monitoring.example.com/prom");
  });

  it("turns off per-target series and tsdb polling", async () => {
    const [s] = (await loadConfig(path("valid-counts-only.yml"))).sources;
    expect(s?.tsdb.enabled).toBe(false);
    expect(s?.targets).toEqual({ enabled: true, perTarget: false, labels: [] });
  });

  it("reads targets.labels, serving UTF-8 names in the legacy form, and the largest tsdb limit", async () => {
    const [s] = (await loadConfig(path("valid-target-labels.yml"))).sources;
    expect(s?.targets.labels).toEqual([
      { from: "module", to: "module" },
      { from: "app.kubernetes.io/name", to: "app_kubernetes_io_name" },
      { from: "1st", to: "_1st" },
    ]);
    expect(s?.tsdb.limit).toBe(10_000);
  });

  it("accepts compound durations and five-field cron expressions", async () => {
    const [s] = (await loadConfig(path("valid-durations.yml"))).sources;
    expect(s).toMatchObject({ timeoutMs: 500, schedule: "*/2 * * * *" });
    const globalOnly = await loadConfig(path("valid-durations.yml"));
    expect(globalOnly.sources[0]?.timeoutMs).toBe(500);
  });

  it("reads interval beside schedule: a source's own wins, one without either takes global's", async () => {
    const { sources } = await loadConfig(path("valid-interval.yml"));
    expect(sources.map((s) => s.schedule)).toEqual([
      { interval: "15s", intervalMs: 15_000 },
      { interval: "1m30s", intervalMs: 90_000 },
      "*/5 * * * * *",
    ]);
  });

  it("has a grouped Prometheus module ask what its members are compared by, as a grouped source does", () => {
    const { modules } = parseConfig(
      `modules:
  pair: {kind: prometheus, group: pair, allowed_targets: ["http://prom-[ab]:9090"], replica_labels: [replica]}
  alone: {kind: prometheus}
`,
      "/tmp/exporter.yml",
    );
    const enabled = (name: string) =>
      (["config", "rules", "flags", "features"] as const).map((e) => modules.get(name)?.[e].enabled);
    expect(enabled("pair")).toEqual([true, true, true, true]);
    expect(enabled("alone")).toEqual([false, false, false, false]);
    // Its own replica_labels if it sets them; else global's, as the sources it is compared with take.
    expect(modules.get("pair")?.replicaLabels).toEqual(["replica"]);
    const withGlobal = parseConfig(
      `global: {replica_labels: [cluster_replica]}
modules:
  pair: {kind: prometheus, group: pair, allowed_targets: ["http://prom-[ab]:9090"]}
  alone: {kind: prometheus}
`,
      "/tmp/exporter.yml",
    ).modules;
    expect(withGlobal.get("pair")?.replicaLabels).toEqual(["cluster_replica"]);
    expect(withGlobal.get("alone")?.replicaLabels).toEqual(["replica", "prometheus_replica"]);
  });

  it("reads size caps globally and per source", async () => {
    const [a, b] = (await loadConfig(path("valid-size.yml"))).sources;
    expect(a?.maxResponseBytes).toBe(64 * 2 ** 20);
    expect(b?.maxResponseBytes).toBe(1e9);
  });

  it("reads series_limit: global for sources, none by default; modules their own, 100000 by default", async () => {
    const minimal = await loadConfig(path("valid-minimal.yml"));
    expect(minimal.sources[0]?.seriesLimit).toBe(0);
    expect(minimal.modules.get("prometheus")?.seriesLimit).toBe(100_000);
    const { sources, modules } = await loadConfig(path("valid-series-limit.yml"));
    expect(sources.map((s) => s.seriesLimit)).toEqual([3_000_000, 0]);
    expect(modules.get("big-fleet")?.seriesLimit).toBe(600_000);
    expect(modules.get("unlimited")?.seriesLimit).toBe(0);
    expect(modules.get("alertmanager")?.seriesLimit).toBe(100_000);
  });

  it("reads http_config keys, resolving files relative to the config file", async () => {
    const [prom, am, inline] = (await loadConfig(path("valid-http-config.yml"))).sources;
    expect(prom?.http).toEqual({
      basicAuth: { username: "monitor", password: undefined, passwordFile: path("secrets/password") },
      headers: { "X-Scope-OrgID": "team-a" },
      tls: {
        caFile: path("secrets/ca.pem"),
        certFile: undefined,
        keyFile: undefined,
        serverName: "prometheus.internal",
        insecureSkipVerify: false,
      },
      proxyUrl: "http://proxy.example.com:3128",
      followRedirects: true,
      compression: "auto",
    });
    expect(am?.http.authorization).toEqual({
      type: "Bearer",
      credentials: undefined,
      credentialsFile: path("secrets/token"),
    });
    expect(inline?.http.authorization).toMatchObject({ type: "Token", credentials: "inline-credentials" });
    expect(inline?.http.followRedirects).toBe(false);
  });

  it("expands environment variables in values, $$ being a literal $", async () => {
    const env = { SOURCE_NAME: "from-env", PROM_HOST: "prom.example.com", PROM_PASSWORD: "pa$$word {x}" };
    const [s] = (await loadConfig(path("valid-env.yml"), env)).sources;
    expect(s).toMatchObject({ name: "from-env", url: "http://prom.example.com:9090", labels: { price: "$5" } });
    // A variable's value is used as is: neither re-expanded nor parsed as YAML.
    expect(s?.http.basicAuth?.password).toBe("pa$$word {x}");
  });

  it("loads the shipped default config", async () => {
    const { sources } = await loadConfig(fileURLToPath(new URL("../../config/exporter.yml", import.meta.url)));
    expect(sources.map((s) => [s.kind, s.url])).toEqual([
      ["prometheus", "http://localhost:9090"],
      ["alertmanager", "http://localhost:9093"],
    ]);
    for (const s of sources) expect(s.schedule).toEqual({ interval: "30s", intervalMs: 30_000 });
  });
});

describe("Prometheus's status endpoints", () => {
  const enabled = (s: { [K in PrometheusStatusEndpoint]: { enabled: boolean } }) =>
    PROMETHEUS_STATUS_ENDPOINTS.filter((e) => s[e].enabled);

  it("polls what needs no peer for every source, and what replicas are compared by for a grouped one", async () => {
    const { sources } = await loadConfig(path("valid-status-endpoints.yml"));
    const [single, a, b, am] = sources as SourceConfig[];
    expect(enabled(single as SourceConfig)).toEqual(["runtimeinfo", "buildinfo", "walreplay"]);
    expect(endpointsOf(single as SourceConfig)).toEqual(["tsdb", "targets", "runtimeinfo", "buildinfo", "walreplay"]);
    // Grouped: config, flags and features too; rules switched off.
    expect(enabled(a as SourceConfig)).toEqual([
      "config",
      "flags",
      "runtimeinfo",
      "buildinfo",
      "walreplay",
      "features",
    ]);
    expect(enabled(b as SourceConfig)).toEqual(["config", "rules", "flags", "runtimeinfo", "buildinfo", "features"]);
    expect(endpointsOf(am as SourceConfig)).toEqual(["status"]);
    expect(enabled(am as SourceConfig)).toEqual([]);
  });

  it("takes replica_labels from the source, else global, else the default; flags.ignore per source", async () => {
    const { sources, modules } = await loadConfig(path("valid-status-endpoints.yml"));
    expect(sources.map((s) => s.replicaLabels)).toEqual([
      ["replica", "pod"],
      ["replica", "pod"],
      ["prometheus_replica"],
      ["replica", "pod"],
    ]);
    expect(sources.map((s) => s.flags.ignore)).toEqual([[], ["log.level"], [], []]);
    // global is for sources: a module keeps the default.
    expect(modules.get("light")?.replicaLabels).toEqual(["replica", "prometheus_replica"]);
  });

  it("polls none of them from a probe module unless it enables them, the built-in ones included", async () => {
    const { modules } = await loadConfig(path("valid-status-endpoints.yml"));
    expect(enabled(modules.get("light") as ModuleConfig)).toEqual([]);
    expect(enabled(modules.get("heavy") as ModuleConfig)).toEqual(["config", "buildinfo"]);
    expect(enabled(modules.get("prometheus") as ModuleConfig)).toEqual([]);
  });
});

describe("flavor", () => {
  it("is the source's own, else global's; auto and unset are left out (detected); a module keeps its own", async () => {
    const { sources, modules } = await loadConfig(path("valid-flavor.yml"));
    expect(sources.map((s) => [s.name, s.flavor])).toEqual([
      ["vm", "victoriametrics"],
      ["thanos", "thanos"],
      ["detect", undefined],
      ["mimir-am", "mimir"],
      ["am", "prometheus"],
    ]);
    expect(sources.find((s) => s.name === "detect")).not.toHaveProperty("flavor");
    expect(modules.get("vmagents")?.flavor).toBe("vmagent");
    expect(modules.get("tenants")?.flavor).toBe("mimir");
    // Global settings are for sources: modules and the built-in ones detect.
    for (const name of ["plain", "prometheus", "alertmanager"]) expect(modules.get(name)?.flavor).toBeUndefined();
  });

  it("is auto when nothing sets it", async () => {
    const { sources } = await loadConfig(path("valid-minimal.yml"));
    expect(sources[0]).not.toHaveProperty("flavor");
  });
});

describe("invalid configs", () => {
  it("has a fixture for each rule", () => expect(invalid.length).toBeGreaterThanOrEqual(25));

  it.each(invalid)("%s is rejected with the message it names", async (name) => {
    const expected = /^# expect: (.*)$/m.exec(fixtureText(`config/${name}`))?.[1];
    expect(expected, `${name} lacks an '# expect:' line`).toBeTruthy();
    const err = await loadError(name);
    const lines = err.message.split("\n");
    const line = lines.find((l) => l.includes(expected as string));
    expect(line, `got:\n${err.message}`).toBeDefined();
    // Every line names the file (with the line number where the field is known).
    for (const l of lines) expect(l.startsWith(path(name))).toBe(true);
  });

  it("points at the line of the offending field", async () => {
    const err = await loadError("invalid-unknown-source-key.yml");
    expect(err.message).toBe(`${path("invalid-unknown-source-key.yml")}:6: sources[0].intervall: unknown field`);
  });

  it("points a missing key at the line of the map it is missing from", async () => {
    const err = await loadError("invalid-missing-name.yml");
    expect(err.message).toBe(`${path("invalid-missing-name.yml")}:3: sources[0].name: is required`);
  });

  it("lists the problems in the order of their lines", () => {
    // The schema checks global before sources; the file has them the other way round.
    const text = 'sources:\n  - { name: a, kind: prometheus, url: "nope" }\nglobal:\n  timeout: soon\n';
    let err: unknown;
    try {
      parseConfig(text, "order.yml");
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).problems.map((p) => [p.line, p.field])).toEqual([
      [2, "sources[0].url"],
      [4, "global.timeout"],
    ]);
  });

  it("lists every problem, not just the first", async () => {
    const err = await loadError("invalid-several-problems.yml");
    expect(err.problems.map((p) => p.field).sort()).toEqual(["global.timeout", "sources[0].colour", "sources[1].url"]);
  });

  it("never echoes a secret given with the wrong type", () => {
    const text =
      'sources:\n  - { name: a, kind: prometheus, url: "http://h:9090", basic_auth: { username: u, password: 918273645 } }\n';
    let err: unknown;
    try {
      parseConfig(text, "secret.yml");
    } catch (e) {
      err = e;
    }
    expect((err as ConfigError).message).toContain("sources[0].basic_auth.password");
    expect((err as ConfigError).message).not.toContain("918273645");
  });

  it("never echoes a password from a URL", async () => {
    expect((await loadError("invalid-url-with-password.yml")).message).not.toContain("hunter2");
    expect((await loadError("invalid-url-fragment.yml")).message).not.toContain("s3cret");
  });

  it("refuses a directory where a file is named, for every *_file key of sources and modules", () => {
    const file = path("exporter.yml");
    const secrets = path("secrets");
    const http = `basic_auth: {username: u, password_file: secrets}, tls_config: {ca_file: secrets, cert_file: secrets, key_file: ${secrets}}`;
    const text = `sources:
  - {name: a, kind: prometheus, url: "http://127.0.0.1:9090", ${http}}
  - {name: b, kind: alertmanager, url: "http://127.0.0.1:9093", authorization: {credentials_file: secrets}}
modules:
  m: {kind: alertmanager, allowed_targets: ["http://127.0.0.1:9093"], authorization: {credentials_file: ./secrets/}}
`;
    let err: unknown;
    try {
      parseConfig(text, file);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    const lines = (err as ConfigError).message.split("\n");
    const dir = (at: string, line: number) => `${file}:${line}: ${at}: ${secrets} is a directory, not a file`;
    expect(lines).toEqual([
      dir("sources[0].basic_auth.password_file", 2),
      dir("sources[0].tls_config.ca_file", 2),
      dir("sources[0].tls_config.cert_file", 2),
      dir("sources[0].tls_config.key_file", 2),
      dir("sources[1].authorization.credentials_file", 3),
      dir("modules.m.authorization.credentials_file", 5),
    ]);
  });

  it("names a missing file", async () => {
    const err = await loadError("does-not-exist.yml");
    expect(err.message).toBe(`${path("does-not-exist.yml")}: cannot read config file (ENOENT): no such file`);
  });

  it("says a folder is not a file, and where a relative path is read from", async () => {
    const err = await loadConfig(".").then(
      () => undefined,
      (e: unknown) => e as ConfigError,
    );
    expect(err?.message).toBe(
      `.: cannot read config file (EISDIR): a directory, not a file (relative to the working directory ${process.cwd()})`,
    );
  });
});
