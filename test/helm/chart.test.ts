import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv } from "ajv";
import { afterAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { parseFlags } from "../../src/cli/flags.js";
import { DEFAULT_DECODER_MEMORY_LIMIT } from "../../src/config/defaults.js";
import { configSchema } from "../../src/config/schema.js";
import { parseYaml } from "../../src/config/yaml-file.js";
import { chart, chartRenderer, type Manifest, root } from "./render-chart.js";

// The chart rendered by a stand-in for `helm template` (render-chart.ts), then every manifest validated
// against the Kubernetes and Prometheus Operator schemas (kubernetes-models).

// Built before the describe blocks below render at collection time.
const renderer = chartRenderer();
afterAll(() => renderer.remove());

/** The image every install must name (no image is published): given here unless a test leaves it out. */
const IMAGE = { image: { repository: "registry.example.com/prometheus-status-exporter" } };
const render = (...values: (string | object)[]) => renderer.render(IMAGE, ...values);

const MODELS: Record<string, string> = {
  v1: "kubernetes-models/v1",
  "apps/v1": "kubernetes-models/apps/v1",
  "monitoring.coreos.com/v1": "@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1",
  "monitoring.coreos.com/v1alpha1": "@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1alpha1",
};

/** Validates a manifest against its API schema; throws with the schema's complaint. */
async function validate(m: Manifest): Promise<void> {
  const module = MODELS[m.apiVersion];
  if (!module) throw new Error(`no schema for ${m.apiVersion}`);
  const models = (await import(module)) as Record<string, new (data: unknown) => { validate(): void }>;
  const Model = models[m.kind];
  if (!Model) throw new Error(`no schema for ${m.apiVersion} ${m.kind}`);
  new Model(m).validate();
}

const byKind = (ms: Manifest[], kind: string) => ms.filter((m) => m.kind === kind);
// biome-ignore lint/suspicious/noExplicitAny: manifests are free-form YAML, checked by schema above
const one = (ms: Manifest[], kind: string): any => {
  const found = byKind(ms, kind);
  expect(found, kind).toHaveLength(1);
  return found[0];
};
/** The rendered exporter config, through the exporter's own schema (its files live in the pod, not here). */
const exporterConfig = (ms: Manifest[]) =>
  parseYaml(one(ms, "ConfigMap").data["exporter.yml"], "configmap/exporter.yml", configSchema, { AM_TOKEN: "t" }).data;

describe("Helm chart, standalone (default values)", () => {
  const manifests = render();

  it("renders a ConfigMap, Deployment, Service and ServiceAccount, all valid Kubernetes objects", async () => {
    expect(manifests.map((m) => m.kind).sort()).toEqual(["ConfigMap", "Deployment", "Service", "ServiceAccount"]);
    for (const m of manifests) await validate(m);
  });

  it("ships a config the exporter accepts", () => {
    expect(exporterConfig(manifests).sources?.map((s) => s.url)).toEqual([
      "http://prometheus-operated:9090",
      "http://alertmanager-operated:9093",
    ]);
  });

  it("runs locked down, with probes on /-/healthy and /-/ready", () => {
    const pod = one(manifests, "Deployment").spec.template.spec;
    const container = pod.containers[0];
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true });
    expect(container.securityContext).toEqual({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      runAsNonRoot: true,
      capabilities: { drop: ["ALL"] },
    });
    expect(container.livenessProbe.httpGet.path).toBe("/-/healthy");
    expect(container.readinessProbe.httpGet.path).toBe("/-/ready");
    expect(container.args).toContain("--config.file=/etc/promstatus/config/exporter.yml");
    expect(container.image).toBe("registry.example.com/prometheus-status-exporter:0.1.0");
    expect(container.resources.limits.memory).toBe("1Gi");
    expect(container.args).toContain("--decoder.memory-limit=320MiB");
  });

  it("refuses to render a pod without image.repository, saying how to get an image (none is published)", () => {
    const message = /image\.repository is required: build and push the exporter's image \(docs\/deployment\.md\)/;
    expect(() => renderer.render()).toThrow(message);
    expect(() => renderer.render({ mode: "probe", config: { sources: [] } })).toThrow(message);
    expect(() => renderer.render({ image: { repository: "" } })).toThrow(message);
    // Sidecar mode renders no pod (the image is named in the Prometheus pod's values), so needs none.
    expect(renderer.render(join(chart, "examples/sidecar-values.yaml")).map((m) => m.kind)).not.toContain("Deployment");
  });

  it("passes a decoder memory limit the exporter accepts, and the default equals the exporter's", () => {
    const arg = (ms: Manifest[]) =>
      (one(ms, "Deployment").spec.template.spec.containers[0].args as string[]).find((a) =>
        a.startsWith("--decoder.memory-limit="),
      ) as string;
    expect(parseFlags([arg(manifests)]).decoderMemoryLimitBytes).toBe(DEFAULT_DECODER_MEMORY_LIMIT);
    expect(parseFlags([arg(render({ decoderMemoryLimit: "1GiB" }))]).decoderMemoryLimitBytes).toBe(2 ** 30);
  });

  it("passes --probe.max-concurrent only when set, as a value the exporter accepts", () => {
    const args = (ms: Manifest[]) => one(ms, "Deployment").spec.template.spec.containers[0].args as string[];
    expect(args(manifests).some((a) => a.startsWith("--probe.max-concurrent"))).toBe(false);
    const set = args(render({ probeMaxConcurrent: 12 })).filter((a) => a.startsWith("--probe.max-concurrent"));
    expect(set).toEqual(["--probe.max-concurrent=12"]);
    expect(parseFlags(set).probeMaxConcurrent).toBe(12);
  });

  it("passes --web.max-requests only when set, 0 included, as a value the exporter accepts", () => {
    const args = (ms: Manifest[]) => one(ms, "Deployment").spec.template.spec.containers[0].args as string[];
    expect(args(manifests).some((a) => a.startsWith("--web.max-requests"))).toBe(false);
    for (const n of [0, 12]) {
      const set = args(render({ webMaxRequests: n })).filter((a) => a.startsWith("--web.max-requests"));
      expect(set).toEqual([`--web.max-requests=${n}`]);
      expect(parseFlags(set).webMaxRequests).toBe(n);
    }
  });

  it("rolls the pods when the config changes", () => {
    const checksum = (ms: Manifest[]) => one(ms, "Deployment").spec.template.metadata.annotations["checksum/config"];
    const other = render({ config: { sources: [{ name: "x", kind: "prometheus", url: "http://x:9090" }] } });
    expect(checksum(manifests)).toMatch(/^[0-9a-f]{64}$/);
    expect(checksum(other)).not.toBe(checksum(manifests));
    expect(checksum(render())).toBe(checksum(manifests));
  });
});

describe("Helm chart, every optional feature", () => {
  const manifests = render(join(root, "test/helm/values-all-features.yaml"));

  it("renders valid objects, Prometheus Operator CRDs included", async () => {
    expect(manifests.map((m) => m.kind).sort()).toEqual([
      "ConfigMap",
      "ConfigMap",
      "Deployment",
      "PrometheusRule",
      "Service",
      "ServiceAccount",
      "ServiceMonitor",
    ]);
    for (const m of manifests) await validate(m);
    expect(
      exporterConfig(manifests.filter((m) => m.metadata.name === "promstatus-prometheus-status-exporter")).sources,
    ).toHaveLength(2);
  });

  it("scrapes with honorLabels over https when the web config is on", () => {
    const endpoint = one(manifests, "ServiceMonitor").spec.endpoints[0];
    expect(endpoint).toMatchObject({ honorLabels: true, port: "http", scheme: "https", interval: "15s" });
    const container = one(manifests, "Deployment").spec.template.spec.containers[0];
    expect(container.readinessProbe.httpGet.scheme).toBe("HTTPS");
    expect(container.args).toContain("--web.config.file=/etc/promstatus/web/web.yml");
  });

  it("mounts secrets as files and passes secret environment variables by reference", () => {
    const pod = one(manifests, "Deployment").spec.template.spec;
    expect(pod.volumes).toContainEqual({
      name: "secret-prometheus-auth",
      secret: { secretName: "prometheus-basic-auth" },
    });
    expect(pod.volumes).toContainEqual({ name: "web-config", secret: { secretName: "promstatus-web" } });
    expect(pod.containers[0].volumeMounts).toContainEqual({
      name: "secret-prometheus-auth",
      mountPath: "/etc/promstatus/secrets/prometheus-auth",
      readOnly: true,
    });
    expect(pod.containers[0].env[0].valueFrom.secretKeyRef).toEqual({ name: "alertmanager-token", key: "token" });
    expect(pod.nodeSelector).toEqual({ "kubernetes.io/os": "linux" });
    expect(pod.tolerations[0].key).toBe("dedicated");
    expect(pod.affinity.podAntiAffinity).toBeDefined();
  });

  it("installs the alert rules and the dashboard from the chart's files", () => {
    const rules = parse(readFileSync(join(chart, "files/prometheus-status-exporter.rules.yml"), "utf8"));
    expect(one(manifests, "PrometheusRule").spec).toEqual(rules);
    const dashboard = byKind(manifests, "ConfigMap").find((m) => m.metadata.name.endsWith("-dashboard")) as Manifest & {
      data: Record<string, string>;
      metadata: { labels: Record<string, string> };
    };
    expect(JSON.parse(dashboard.data["prometheus-status-exporter.json"] as string).uid).toBe("promstatus-overview");
    expect(dashboard.metadata.labels.grafana_dashboard).toBe("1");
  });
});

describe("Helm chart, sidecar mode with kube-prometheus-stack", () => {
  const manifests = render(join(chart, "examples/sidecar-values.yaml"));
  const stack = parse(readFileSync(join(chart, "examples/kube-prometheus-stack-sidecar.yaml"), "utf8"));

  it("renders only the config, rules and ServiceMonitor; the pod is Prometheus's", async () => {
    expect(manifests.map((m) => m.kind).sort()).toEqual(["ConfigMap", "PrometheusRule", "ServiceMonitor"]);
    for (const m of manifests) await validate(m);
    expect(one(manifests, "ServiceMonitor").spec.endpoints[0]).toMatchObject({ port: "promstatus", honorLabels: true });
  });

  it("polls Prometheus over localhost", () => {
    expect(exporterConfig(manifests).sources?.map((s) => s.url)).toEqual(["http://localhost:9090"]);
  });

  it("has a kube-prometheus-stack snippet whose container is valid and mounts the rendered ConfigMap", async () => {
    const spec = stack.prometheus.prometheusSpec;
    const pod = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "prometheus-with-sidecar" },
      spec: { containers: spec.containers, volumes: spec.volumes },
    };
    await validate(pod);
    const container = spec.containers[0];
    const mount = container.volumeMounts[0];
    const volume = spec.volumes.find((v: { name: string }) => v.name === mount.name);
    expect(volume.configMap.name).toBe(one(manifests, "ConfigMap").metadata.name);
    const configArg = container.args.find((a: string) => a.startsWith("--config.file="));
    expect(configArg).toBe(`--config.file=${mount.mountPath}/exporter.yml`);
    expect(Object.keys(one(manifests, "ConfigMap").data)).toContain("exporter.yml");
    expect(container.securityContext.readOnlyRootFilesystem).toBe(true);
    expect(stack.prometheus.service.additionalPorts[0].name).toBe(
      one(manifests, "ServiceMonitor").spec.endpoints[0].port,
    );
  });
});

describe("Helm chart, probe mode", () => {
  const manifests = render(join(chart, "examples/probe-values.yaml"));
  const named = (ms: Manifest[], suffix: string) =>
    ms.find((m) => m.metadata.name === `promstatus-prometheus-status-exporter-${suffix}`) as Manifest & {
      // biome-ignore lint/suspicious/noExplicitAny: free-form spec, validated against its schema above
      spec: any;
    };

  it("renders a Deployment of several replicas, ScrapeConfigs and a Probe, all valid against their schemas", async () => {
    expect(manifests.map((m) => m.kind).sort()).toEqual([
      "ConfigMap",
      "Deployment",
      "Probe",
      "PrometheusRule",
      "ScrapeConfig",
      "ScrapeConfig",
      "Service",
      "ServiceAccount",
      "ServiceMonitor",
    ]);
    for (const m of manifests) await validate(m);
    expect(one(manifests, "Deployment").spec.replicas).toBe(3);
  });

  it("ships a probe-only config the exporter accepts", () => {
    const config = exporterConfig(manifests);
    expect(config.sources).toEqual([]);
    expect(Object.keys(config.modules ?? {})).toEqual(["alertmanager-main", "prometheus"]);
    // Without a modules: section of its own, the chart adds an empty one (the built-in modules).
    const bare = exporterConfig(render({ mode: "probe", replicaCount: 2, config: { sources: [] } }));
    expect(bare.modules).toEqual({});
  });

  it("relabels discovered pods to /probe on the exporter's Service, honouring the targets' labels", () => {
    const spec = named(manifests, "alertmanager").spec;
    expect(spec).toMatchObject({
      metricsPath: "/probe",
      honorLabels: true,
      scrapeInterval: "30s",
      scrapeTimeout: "10s",
    });
    expect(spec.kubernetesSDConfigs).toEqual([
      {
        role: "Pod",
        namespaces: { names: ["monitoring"] },
        selectors: [{ role: "Pod", label: "app.kubernetes.io/name=alertmanager" }],
      },
    ]);
    const rule = (target: string) => spec.relabelings.find((r: { targetLabel?: string }) => r.targetLabel === target);
    expect(spec.relabelings[0]).toEqual({
      sourceLabels: ["__meta_kubernetes_pod_container_port_name"],
      regex: "http-web",
      action: "keep",
    });
    expect(rule("__param_target")).toEqual({
      sourceLabels: ["__address__"],
      targetLabel: "__param_target",
      replacement: "http://$1",
    });
    expect(rule("__param_module").replacement).toBe("alertmanager-main");
    expect(rule("instance").sourceLabels).toEqual(["__param_target"]);
    expect(rule("__address__").replacement).toBe("promstatus-prometheus-status-exporter.monitoring.svc:9816");
    expect(named(manifests, "prometheus").metadata.labels).toMatchObject({
      release: "kube-prometheus-stack",
    });
  });

  it("probes fixed targets with a Probe object pointing at the exporter", () => {
    const spec = named(manifests, "external").spec;
    expect(spec.prober).toEqual({
      url: "promstatus-prometheus-status-exporter.monitoring.svc:9816",
      path: "/probe",
      scheme: "http",
    });
    expect(spec.module).toBe("prometheus");
    expect(spec.targets.staticConfig.static).toEqual([
      "https://prometheus.example.org",
      "https://prometheus-dr.example.org",
    ]);
  });

  it("refuses scheduled sources in probe mode (every replica would poll them)", () => {
    expect(() => render({ mode: "probe" })).toThrow(/mode probe: set config.sources: \[\]/);
  });
});

describe("values.schema.json", () => {
  const ajv = new Ajv({ allErrors: true, strict: false });
  const check = ajv.compile(JSON.parse(readFileSync(join(chart, "values.schema.json"), "utf8")));
  const defaults = parse(readFileSync(join(chart, "values.yaml"), "utf8"));
  const merged = (overrides: object) => ({ ...defaults, ...overrides });

  it("accepts the defaults and the examples", () => {
    expect(check(defaults), JSON.stringify(check.errors)).toBe(true);
    for (const file of [
      join(chart, "examples/sidecar-values.yaml"),
      join(chart, "examples/probe-values.yaml"),
      join(root, "test/helm/values-all-features.yaml"),
    ]) {
      const v = { ...defaults, ...parse(readFileSync(file, "utf8")) };
      expect(check(v), `${file}: ${JSON.stringify(check.errors)}`).toBe(true);
    }
  });

  it.each([
    [{ mode: "daemonset" }, "/mode"],
    [{ port: "9816" }, "/port"],
    [{ logLevel: "loud" }, "/logLevel"],
    [{ serviceMonitor: { enabled: "yes" } }, "/serviceMonitor/enabled"],
    [{ config: { sources: [] } }, "/config/sources"],
    [{ config: { sources: [{ name: "a", kind: "thanos", url: "http://x" }] } }, "/config/sources/0/kind"],
    [{ replicas: 3 }, ""],
    [{ mode: "probe" }, "/config/sources"], // the default sources would be polled by every replica
    [
      { mode: "probe", config: { sources: [] }, probe: { scrapeConfigs: [{ name: "x", module: "prometheus" }] } },
      "/probe/scrapeConfigs/0",
    ],
  ])("rejects %j", (overrides, path) => {
    expect(check(merged(overrides))).toBe(false);
    expect(check.errors?.map((e) => e.instancePath)).toContain(path);
  });
});

describe("Helm 3 compatibility", () => {
  it("uses no function Helm removes from sprig", () => {
    for (const file of [
      "deployment.yaml",
      "configmap.yaml",
      "_helpers.tpl",
      "servicemonitor.yaml",
      "prometheusrule.yaml",
    ]) {
      const text = readFileSync(join(chart, "templates", file), "utf8");
      // Inside template actions only: `env:` as a YAML key is fine.
      expect(text, file).not.toMatch(/\{\{[^}]*\b(env|expandenv)\s/);
    }
  });
});
