import { sameSource } from "../config/same-source.js";
import type { Endpoint, SourceConfig } from "../config/types.js";
import type { PollOutcome } from "../poll/poll-endpoint.js";
import { renderSources } from "./render.js";
import { applyOutcome, type SourceState } from "./source-state.js";

/**
 * The latest state of every source, and its exposition. Updates replace an endpoint's state in one
 * synchronous step, and each render works on a snapshot, so a scrape never sees a half-updated source.
 */
export class SourceStore {
  private sources = new Map<string, SourceState>();
  private version = 0;
  private rendered: { version: number; text: Promise<string> } | undefined;

  constructor(configs: readonly SourceConfig[] = []) {
    this.apply(configs);
  }

  /** Sets the sources; unchanged ones keep their series, changed and new ones start empty. */
  apply(configs: readonly SourceConfig[]): void {
    const next = new Map<string, SourceState>();
    for (const config of configs) {
      const current = this.sources.get(config.name);
      next.set(config.name, current && sameSource(current.config, config) ? current : { config, endpoints: new Map() });
    }
    this.sources = next;
    this.version++;
  }

  /** Records a poll's outcome, unless the source was removed or changed while the poll ran. */
  record(config: SourceConfig, endpoint: Endpoint, outcome: PollOutcome): void {
    const source = this.sources.get(config.name);
    if (!source || source.config !== config) return;
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
