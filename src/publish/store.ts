import { constants, createGzip } from "node:zlib";
import { sameSource } from "../config/same-source.js";
import type { Endpoint, SourceConfig } from "../config/types.js";
import type { RenderedFamilies } from "../poll/decode.js";
import type { PollOutcome } from "../poll/poll-endpoint.js";
import { type GroupView, groupViews, renderGroup } from "./groups.js";
import { assembleExposition } from "./render.js";
import { applyOutcome, type SourceState } from "./source-state.js";

export interface Exposition {
  /** The text exposition, in pieces written one after the other. */
  parts: readonly Uint8Array[];
  length: number;
  /** The same bytes gzipped, once per change in the background; undefined until ready. */
  gzip: Buffer | undefined;
}

/**
 * The latest state of every source, and its exposition. Updates replace an endpoint's state in one
 * synchronous step and the exposition is assembled right after a change, off the request path, so a
 * scrape never sees a half-updated source, never waits for a poll and never renders anything.
 */
export class SourceStore {
  private sources = new Map<string, SourceState>();
  /** Rendered series of each replica group, recomputed when one of its members' polls finishes. */
  private groups = new Map<string, RenderedFamilies>();
  private version = 0;
  private current: Exposition & { version: number } = { version: -1, parts: [], length: 0, gzip: undefined };
  private assembleQueued = false;

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
    this.groups = new Map([...groupViews(next.values())].map(([name, view]) => [name, renderGroup(view)]));
    this.changed();
  }

  /** Records a poll's outcome, unless the source was removed or changed while the poll ran. */
  record(config: SourceConfig, endpoint: Endpoint, outcome: PollOutcome): void {
    const source = this.sources.get(config.name);
    if (!source || source.config !== config) return;
    source.endpoints.set(endpoint, applyOutcome(source.endpoints.get(endpoint), outcome));
    // Only this source's group is compared again.
    const group =
      config.group === undefined ? undefined : groupViews(this.sources.values(), config.group).get(config.group);
    if (group) this.groups.set(group.name, renderGroup(group));
    this.changed();
  }

  /** The exposition of all sources; assembled at most once per change. */
  exposition(): Exposition {
    if (this.current.version !== this.version) {
      const version = this.version;
      const parts = assembleExposition(this.sources.values(), this.groups.values());
      const length = parts.reduce((n, p) => n + p.length, 0);
      this.current = { version, parts, length, gzip: undefined };
      this.compress(version, parts);
    }
    return this.current;
  }

  /** Every source's current state, in config order (for the status page). */
  states(): Iterable<SourceState> {
    return this.sources.values();
  }

  /** The replica groups with their members' current state (for the landing page). */
  groupViews(): Map<string, GroupView> {
    return groupViews(this.sources.values());
  }

  /** Gzips a version in the thread pool; until it is ready scrapes get the plain text. */
  private compress(version: number, parts: readonly Uint8Array[]): void {
    const out: Buffer[] = [];
    const gzip = createGzip({ level: constants.Z_BEST_SPEED });
    gzip.on("data", (chunk: Buffer) => out.push(chunk));
    gzip.on("end", () => {
      if (this.current.version === version) this.current.gzip = Buffer.concat(out);
    });
    for (const part of parts) gzip.write(part);
    gzip.end();
  }

  private changed(): void {
    this.version++;
    // Assemble after the current burst of updates (all endpoints of a poll land in one tick).
    if (this.assembleQueued) return;
    this.assembleQueued = true;
    setImmediate(() => {
      this.assembleQueued = false;
      this.exposition();
    });
  }
}
