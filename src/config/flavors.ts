/** The servers that answer the Prometheus and Alertmanager status APIs, each in its own way. */
export const FLAVORS = ["prometheus", "victoriametrics", "vmagent", "thanos", "mimir"] as const;
export type Flavor = (typeof FLAVORS)[number];

/**
 * The flavors that serve each kind's API. kind prometheus (`/api/v1/targets`, `/api/v1/status/*`):
 * Prometheus, VictoriaMetrics, vmagent and Thanos Query; Mimir has no scrape targets. kind alertmanager
 * (`/api/v2/status`): the Prometheus project's Alertmanager and Mimir's; VictoriaMetrics refuses the path
 * (HTTP 400, backends/victoriametrics-1.79/vm-alertmanager-status.txt) and Thanos has none.
 */
export const FLAVORS_OF_KIND = {
  prometheus: ["prometheus", "victoriametrics", "vmagent", "thanos"],
  alertmanager: ["prometheus", "mimir"],
} as const satisfies Record<"prometheus" | "alertmanager", readonly Flavor[]>;

/** What a flavor value means, for messages and the status page. */
export const FLAVOR_NAMES: Record<Flavor, string> = {
  prometheus: "Prometheus",
  victoriametrics: "VictoriaMetrics",
  vmagent: "vmagent",
  thanos: "Thanos Query",
  mimir: "Mimir",
};

export function flavorFits(kind: "prometheus" | "alertmanager", flavor: Flavor): boolean {
  return (FLAVORS_OF_KIND[kind] as readonly Flavor[]).includes(flavor);
}
