import type { Flavor } from "../config/flavors.js";
import { redactUrl } from "../config/redact-url.js";
import { type Endpoint, endpointsOf, type SourceConfig } from "../config/types.js";
import type { EndpointSummary } from "../convert/endpoint-summary.js";
import { type EndpointState, flavorOf, type SourceState } from "./source-state.js";

/** One scheduled source as the status page shows it: its endpoints in poll order, polled or not yet. */
export interface SourceStatus {
  name: string;
  kind: SourceConfig["kind"];
  /** The server behind the API (as promstatus_source_info says it), and whether the config said so. */
  flavor?: Flavor | "unknown";
  flavorConfigured?: boolean;
  group: string | undefined;
  /** Password redacted. */
  url: string;
  endpoints: { endpoint: Endpoint; state: EndpointState | undefined }[];
  /**
   * Its endpoints' figures from their last successful polls, together (targets, head series, cluster,
   * a refused reload); a figure whose endpoint's last poll failed is absent.
   */
  summary?: EndpointSummary;
}

export function sourceStatuses(states: Iterable<SourceState>): SourceStatus[] {
  return [...states].map((source) => {
    const { config, endpoints } = source;
    const polled = endpointsOf(config).map((endpoint) => ({ endpoint, state: endpoints.get(endpoint) }));
    return {
      name: config.name,
      kind: config.kind,
      flavor: flavorOf(source),
      flavorConfigured: config.flavor !== undefined,
      group: config.group,
      url: redactUrl(config.url),
      endpoints: polled,
      summary: Object.assign({}, ...polled.map(({ state }) => state?.summary)) as EndpointSummary,
    };
  });
}
