import type { Endpoint, SourceConfig } from "../config/types.js";
import type { PollOutcome } from "../poll/poll-endpoint.js";
import { renderSources } from "./render.js";
import { applyOutcome, type SourceState } from "./source-state.js";

/**
 * The latest state of every source, and its exposition. Updates replace an endpoint's state in one
 * synchronous step, and each render works on a snapshot, so a scrape never sees a half-updated source.
 */
export class SourceStore {
  private readonly sources = new Map<string, SourceState>();
  private version = 0;
  private rendered: { version: number; text: Promise<string> } | undefined;

  constructor(configs: readonly SourceConfig[]) {
    for (const config of configs) this.sources.set(config.name, { config, endpoints: new Map() });
  }

  record(sourceName: string, endpoint: Endpoint, outcome: PollOutcome): void {
    const source = this.sources.get(sourceName);
    if (!source) return;
    source.endpoints.set(endpoint, applyOutcome(source.endpoints.get(endpoint), outcome));
    this.version++;
  }

  /** The text exposition of all sources, rendered at most once per change. */
  exposition(): Promise<string> {
    if (this.rendered?.version !== this.version) {
      this.rendered = { version: this.version, text: renderSources(this.sources.values()) };
    }
    return this.rendered.text;
  }
}
