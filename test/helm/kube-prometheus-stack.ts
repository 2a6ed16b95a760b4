// A small fake of what kube-prometheus-stack renders for its Prometheus, written from the chart's source at
// prometheus-community/helm-charts tag kube-prometheus-stack-88.5.3 (commit ea930baeebeba39f56d6b44e351f23b2a072a600),
// charts/kube-prometheus-stack/, and of the pod labels its operator (prometheus-operator v0.93.0) sets.
// Only the parts a ServiceMonitor or PrometheusRule meets: names, labels, selectors, ports, containers.

export const STACK_CHART_VERSION = "88.5.3";
const CHART_NAME = "kube-prometheus-stack";

/** The subset of the stack's values these templates read, with the chart's defaults (values.yaml). */
export interface StackValues {
  nameOverride?: string;
  fullnameOverride?: string;
  commonLabels?: Record<string, string>;
  cleanPrometheusOperatorObjectNames?: boolean;
  prometheus?: {
    serviceMonitor?: { selfMonitor?: boolean };
    service?: {
      labels?: Record<string, string>;
      port?: number;
      targetPort?: number;
      reloaderWebPort?: number;
      additionalPorts?: ServicePort[];
    };
    prometheusSpec?: {
      portName?: string;
      serviceMonitorSelector?: LabelSelector;
      serviceMonitorSelectorNilUsesHelmValues?: boolean;
      podMonitorSelector?: LabelSelector;
      podMonitorSelectorNilUsesHelmValues?: boolean;
      ruleSelector?: LabelSelector;
      ruleSelectorNilUsesHelmValues?: boolean;
      podMetadata?: { labels?: Record<string, string> };
      containers?: Container[];
      volumes?: { name: string; configMap?: { name: string } }[];
    };
  };
}

export interface ServicePort {
  name: string;
  port: number;
  targetPort: number | string;
}
export interface LabelSelector {
  matchLabels?: Record<string, string>;
}
export interface Container {
  name: string;
  image: string;
  args?: string[];
  ports?: { name?: string; containerPort: number }[];
  volumeMounts?: { name: string; mountPath: string }[];
}

export interface StackRelease {
  release: string;
  namespace: string;
  values?: StackValues;
}

// Sprig's trunc and trimSuffix "-", as the helpers use them.
const trunc = (s: string, n: number) => s.slice(0, n).replace(/-$/, "");

/** templates/_helpers.tpl, "kube-prometheus-stack.name". */
export function stackName({ values = {} }: StackRelease): string {
  return trunc(values.nameOverride || CHART_NAME, 50);
}

/** templates/_helpers.tpl, "kube-prometheus-stack.fullname" (truncated at 26). */
export function stackFullname(r: StackRelease): string {
  const values = r.values ?? {};
  if (values.fullnameOverride) return trunc(values.fullnameOverride, 26);
  const name = values.nameOverride || CHART_NAME;
  return r.release.includes(name) ? trunc(r.release, 26) : trunc(`${r.release}-${name}`, 26);
}

/** templates/_helpers.tpl, "kube-prometheus-stack.prometheus.crname": the Prometheus object's name. */
export function prometheusCrName(r: StackRelease): string {
  return r.values?.cleanPrometheusOperatorObjectNames ? stackFullname(r) : `${stackFullname(r)}-prometheus`;
}

/** templates/_helpers.tpl, "kube-prometheus-stack.labels": on every object the chart renders. */
export function stackLabels(r: StackRelease): Record<string, string> {
  return {
    "app.kubernetes.io/managed-by": "Helm",
    "app.kubernetes.io/instance": r.release,
    "app.kubernetes.io/version": STACK_CHART_VERSION,
    "app.kubernetes.io/part-of": stackName(r),
    chart: `${CHART_NAME}-${STACK_CHART_VERSION}`,
    release: r.release,
    heritage: "Helm",
    ...(r.values?.commonLabels ?? {}),
  };
}

/** templates/prometheus/service.yaml: the Prometheus Service (agent mode and NodePort left out). */
export function prometheusService(r: StackRelease) {
  const p = r.values?.prometheus ?? {};
  const service = p.service ?? {};
  const ports: ServicePort[] = [
    {
      name: p.prometheusSpec?.portName ?? "http-web",
      port: service.port ?? 9090,
      targetPort: service.targetPort ?? 9090,
    },
    { name: "reloader-web", port: service.reloaderWebPort ?? 8080, targetPort: "reloader-web" },
    ...(service.additionalPorts ?? []),
  ];
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: {
      name: `${stackFullname(r)}-prometheus`,
      namespace: r.namespace,
      labels: {
        app: `${stackName(r)}-prometheus`,
        "self-monitor": String(p.serviceMonitor?.selfMonitor ?? true),
        ...stackLabels(r),
        ...(service.labels ?? {}),
      },
    },
    spec: {
      ports,
      // Pods are chosen by the operator's labels, which are not on the Service itself.
      selector: { "app.kubernetes.io/name": "prometheus", "operator.prometheus.io/name": prometheusCrName(r) },
    },
  };
}

// templates/prometheus/prometheus.yaml: a selector given in values wins; else, with the *NilUsesHelmValues
// switch on (the default), `release: <release>`; else {} (everything).
function selector(r: StackRelease, given: LabelSelector | undefined, nilUsesHelmValues: boolean | undefined) {
  if (given && Object.keys(given).length > 0) return given;
  return (nilUsesHelmValues ?? true) ? { matchLabels: { release: r.release } } : {};
}

/** templates/prometheus/prometheus.yaml: the Prometheus object (what a monitor or rule must satisfy). */
export function prometheusObject(r: StackRelease) {
  const spec = r.values?.prometheus?.prometheusSpec ?? {};
  return {
    apiVersion: "monitoring.coreos.com/v1",
    kind: "Prometheus",
    metadata: { name: prometheusCrName(r), namespace: r.namespace },
    spec: {
      serviceMonitorSelector: selector(r, spec.serviceMonitorSelector, spec.serviceMonitorSelectorNilUsesHelmValues),
      // serviceMonitorNamespaceSelector: {} (every namespace), the same for pod monitors and rules.
      podMonitorSelector: selector(r, spec.podMonitorSelector, spec.podMonitorSelectorNilUsesHelmValues),
      ruleSelector: selector(r, spec.ruleSelector, spec.ruleSelectorNilUsesHelmValues),
      containers: spec.containers ?? [],
      volumes: spec.volumes ?? [],
    },
  };
}

/**
 * Labels of the Prometheus pods. The chart passes only podMetadata (none by default); the operator adds
 * the rest: prometheus-operator v0.93.0 pkg/prometheus/server/operator.go (makeSelectorLabels) and
 * statefulset.go (the shard label), pkg/prometheus/promcfg.go (BuildPodMetadata: version, podMetadata).
 * No `release` label reaches the pods.
 */
export function prometheusPodLabels(r: StackRelease, prometheusVersion: string): Record<string, string> {
  const name = prometheusCrName(r);
  return {
    "app.kubernetes.io/version": prometheusVersion,
    ...(r.values?.prometheus?.prometheusSpec?.podMetadata?.labels ?? {}),
    "app.kubernetes.io/managed-by": "prometheus-operator",
    "app.kubernetes.io/name": "prometheus",
    "app.kubernetes.io/instance": name,
    "operator.prometheus.io/name": name,
    prometheus: name,
    "operator.prometheus.io/shard": "0",
  };
}

/** A Kubernetes matchLabels selector: every pair present. An empty selector matches everything. */
export function matches(selector: LabelSelector, labels: Record<string, string> = {}): boolean {
  return Object.entries(selector.matchLabels ?? {}).every(([k, v]) => labels[k] === v);
}
