import { redactUrl } from "../config/redact-url.js";
import { type Endpoint, endpointsOf, type SourceConfig } from "../config/types.js";
import type { EndpointState, SourceState } from "./source-state.js";

/** One scheduled source as the status page shows it: its endpoints in poll order, polled or not yet. */
export interface SourceStatus {
  name: string;
  kind: SourceConfig["kind"];
  group: string | undefined;
  /** Password redacted. */
  url: string;
  endpoints: { endpoint: Endpoint; state: EndpointState | undefined }[];
}

export function sourceStatuses(states: Iterable<SourceState>): SourceStatus[] {
  return [...states].map(({ config, endpoints }) => ({
    name: config.name,
    kind: config.kind,
    group: config.group,
    url: redactUrl(config.url),
    endpoints: endpointsOf(config).map((endpoint) => ({ endpoint, state: endpoints.get(endpoint) })),
  }));
}
