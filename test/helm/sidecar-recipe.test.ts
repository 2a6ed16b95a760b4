import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { parseFlags } from "../../src/cli/flags.js";
import {
  type Container,
  matches,
  prometheusObject,
  prometheusPodLabels,
  prometheusService,
  type StackRelease,
  type StackValues,
} from "./kube-prometheus-stack.js";
import { chart, chartRenderer, type Manifest } from "./render-chart.js";

// The sidecar recipe (docs/deployment.md) checked against what kube-prometheus-stack 88.5.3 renders: its
// Prometheus Service, the Prometheus object's selectors and the pods' labels come from the fake in
// kube-prometheus-stack.ts (written from charts/kube-prometheus-stack/templates/_helpers.tpl,
// templates/prometheus/service.yaml and templates/prometheus/prometheus.yaml at that tag). Our objects are
// rendered from the chart with examples/sidecar-values.yaml, both releases in namespace `monitoring`.

const renderer = chartRenderer();
afterAll(() => renderer.remove());

const ours = renderer.render(join(chart, "examples/sidecar-values.yaml"));
const stackValues = parse(
  readFileSync(join(chart, "examples/kube-prometheus-stack-sidecar.yaml"), "utf8"),
) as StackValues;
// The release name the examples assume (`helm install kube-prometheus-stack ... -n monitoring`).
const stack: StackRelease = { release: "kube-prometheus-stack", namespace: "monitoring", values: stackValues };

// biome-ignore lint/suspicious/noExplicitAny: rendered manifests are free-form YAML
const one = (kind: string): Manifest & { spec: any } => {
  const found = ours.filter((m) => m.kind === kind);
  expect(found, kind).toHaveLength(1);
  return found[0] as Manifest & { spec: unknown };
};

const service = prometheusService(stack);
const prometheus = prometheusObject(stack);
const containers = prometheus.spec.containers as Container[];
const container = (name: string) => {
  const found = containers.find((c) => c.name === name);
  if (!found) throw new Error(`no container ${name} in the Prometheus pod`);
  return found;
};
const flag = (c: Container, name: string) =>
  c.args?.find((a) => a.startsWith(`${name}=`))?.slice(name.length + 1) ?? expect.fail(`${c.name}: no ${name}`);

describe("sidecar recipe against kube-prometheus-stack 88.5.3", () => {
  it("ServiceMonitor selects the stack's Prometheus Service by labels that Service carries, in its namespace", () => {
    const monitor = one("ServiceMonitor");
    expect(monitor.spec.selector.matchLabels).toEqual({
      app: "kube-prometheus-stack-prometheus",
      release: "kube-prometheus-stack",
    });
    expect(matches(monitor.spec.selector, service.metadata.labels)).toBe(true);
    // Without a namespaceSelector a ServiceMonitor looks only in its own namespace.
    expect(monitor.spec.namespaceSelector).toBeUndefined();
    expect(monitor.metadata.namespace).toBe(service.metadata.namespace);
  });

  it("would not have matched with the label that is only in the Service's spec.selector", () => {
    // The earlier example selected app.kubernetes.io/name: prometheus: a pod label, not the Service's.
    expect(service.spec.selector["app.kubernetes.io/name"]).toBe("prometheus");
    expect(matches({ matchLabels: { "app.kubernetes.io/name": "prometheus" } }, service.metadata.labels)).toBe(false);
  });

  it("scrapes a port the Service has, which reaches the exporter's container port", () => {
    const endpoint = one("ServiceMonitor").spec.endpoints[0];
    expect(endpoint).toMatchObject({ port: "promstatus", path: "/metrics", honorLabels: true });
    const port = service.spec.ports.find((p) => p.name === endpoint.port);
    expect(port, `Service port ${endpoint.port}`).toBeDefined();
    const exporter = container("promstatus");
    const target = exporter.ports?.find((p) => p.name === port?.targetPort);
    expect(target, `container port ${port?.targetPort}`).toBeDefined();
    expect(parseFlags(exporter.args ?? []).listen.port).toBe(target?.containerPort);
  });

  it("ServiceMonitor and PrometheusRule carry the release label the stack's default selectors require", () => {
    expect(prometheus.spec.serviceMonitorSelector).toEqual({ matchLabels: { release: "kube-prometheus-stack" } });
    expect(prometheus.spec.ruleSelector).toEqual({ matchLabels: { release: "kube-prometheus-stack" } });
    expect(matches(prometheus.spec.serviceMonitorSelector, one("ServiceMonitor").metadata.labels)).toBe(true);
    expect(matches(prometheus.spec.ruleSelector, one("PrometheusRule").metadata.labels)).toBe(true);
    expect(one("PrometheusRule").metadata.namespace).toBe(stack.namespace);
  });

  it("selects nothing by pod labels: the pods carry the operator's labels and no release", () => {
    // A PodMonitor would have to select these; the recipe uses the Service instead.
    const pod = prometheusPodLabels(stack, "v3.5.0");
    expect(pod["operator.prometheus.io/name"]).toBe("kube-prometheus-stack-prometheus");
    expect(pod.release).toBeUndefined();
    expect(matches(one("ServiceMonitor").spec.selector, pod)).toBe(false);
  });

  it("mounts the ConfigMap this release renders, in the exporter and its reloader", () => {
    const configMap = one("ConfigMap");
    const volume = (prometheus.spec.volumes as { name: string; configMap?: { name: string } }[]).find(
      (v) => v.configMap?.name === configMap.metadata.name,
    );
    expect(volume, `a volume of ConfigMap ${configMap.metadata.name}`).toBeDefined();
    const exporter = container("promstatus");
    const mount = exporter.volumeMounts?.find((m) => m.name === volume?.name);
    expect(parseFlags(exporter.args ?? []).configFile).toBe(`${mount?.mountPath}/exporter.yml`);
    expect(Object.keys(configMap.data as object)).toEqual(["exporter.yml"]);
    const reloader = container("promstatus-config-reloader");
    expect(reloader.volumeMounts?.find((m) => m.name === volume?.name)?.mountPath).toBe(mount?.mountPath);
  });

  it("delivers a config change: the reloader watches that folder and POSTs the exporter's /-/reload, which is enabled", () => {
    const exporter = container("promstatus");
    const flags = parseFlags(exporter.args ?? []);
    expect(flags.enableLifecycle).toBe(true);
    const reloader = container("promstatus-config-reloader");
    const configDir = flags.configFile.replace(/\/exporter\.yml$/, "");
    // Flags of prometheus-config-reloader (prometheus-operator v0.93.0, cmd/prometheus-config-reloader/main.go):
    // --watched-dir is watched non-recursively, --reload-url receives a POST (thanos pkg/reloader) and must
    // answer 200; no --listen-address, so it opens no port beside the operator's own reloader (8080).
    expect(flag(reloader, "--watched-dir")).toBe(configDir);
    expect(flag(reloader, "--reload-url")).toBe(`http://127.0.0.1:${flags.listen.port}/-/reload`);
    expect(reloader.args?.some((a) => a.startsWith("--listen-address"))).toBe(false);
    expect(reloader.image).toMatch(/^quay\.io\/prometheus-operator\/prometheus-config-reloader:v0\.93\.\d+$/);
  });

  it("names the exporter's image as one to build and push, not a bare local name", () => {
    const image = container("promstatus").image;
    expect(image).toMatch(/^[a-z0-9.-]+\.[a-z]+(:\d+)?\/.+:\d+\.\d+\.\d+$/);
    const example = readFileSync(join(chart, "examples/kube-prometheus-stack-sidecar.yaml"), "utf8");
    expect(example).toContain("REQUIRED: the image you built and pushed (docs/deployment.md");
  });
});
