import { crc32 } from "node:zlib";
import type { Flavor } from "../config/flavors.js";
import { sameSeries, sameServer, sameSource } from "../config/same-source.js";
import type { Endpoint, SourceConfig } from "../config/types.js";
import { crc32Combine, deflateSegment } from "../exposition/gzip-stream.js";
import { retireUnserved } from "../exposition/member-readers.js";
import { type FamilyLines, isPacked, plainLength } from "../exposition/pack.js";
import type { RenderedFamilies } from "../poll/decode.js";
import type { PollOutcome } from "../poll/poll-endpoint.js";
import { type GroupView, groupViews, renderGroup } from "./groups.js";
import { assembleExposition } from "./render.js";
import { applyOutcome, carryOver, type SourceState } from "./source-state.js";

export interface Exposition {
  /**
   * The text exposition, in pieces written one after the other: plain bytes, or a large family's gzip
   * members (exposition/pack.ts), which only a plain scrape inflates, as it streams.
   */
  parts: readonly FamilyLines[];
  /** Plain bytes of the whole. */
  length: number;
  /** The same text compressed, once per change in the background; undefined until ready. */
  gzip: CompressedText | undefined;
}

/**
 * Text as deflate data in members, back to back the body of a gzip member (exposition/gzip-stream.ts):
 * packed families' own members and the rest compressed once per change.
 */
export interface CompressedText {
  members: readonly Uint8Array[];
  /** CRC-32 of the plain text (its length is the exposition's). */
  crc: number;
}

// A packed family (a decoder thread's) brings its own members. Plain pieces at least this large (a
// family decoded inline, or a group's) are compressed as members of their own, and a member is kept
// as long as its piece is served: a family whose lines did not change between polls keeps its bytes
// (source-state.ts) and is not compressed again. Smaller pieces are compressed together.
const OWN_MEMBER_BYTES = 64 * 1024;
const members = new WeakMap<Uint8Array, Buffer>();

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
  /** Members of groups that /probe polled (probe/probe-memory.ts), compared beside the sources of their group. */
  private probed: (group?: string) => SourceState[] = () => [];

  constructor(configs: readonly SourceConfig[] = []) {
    this.apply(configs);
  }

  /** Where the probed members of groups come from (the prober's memory). */
  takeProbedMembers(members: (group?: string) => SourceState[]): void {
    this.probed = members;
  }

  /** Compares these groups again: their probed members changed (a probe, or one no longer probed). */
  regroupProbed(groups: Iterable<string>): void {
    let changed = false;
    for (const name of groups) {
      const view = groupViews(this.withProbed(name), name).get(name);
      if (view) this.groups.set(name, renderGroup(view));
      else if (!this.groups.delete(name)) continue;
      changed = true;
    }
    if (changed) this.changed();
  }

  /**
   * Sets the sources; unchanged ones keep their series, changed and new ones start empty. A changed one
   * whose series keep their names and labels goes on from its counters at its next poll, and from its
   * last success and detected flavor while it is asked of the same server.
   */
  apply(configs: readonly SourceConfig[]): void {
    const next = new Map<string, SourceState>();
    for (const config of configs) {
      const current = this.sources.get(config.name);
      if (current && sameSource(current.config, config)) {
        next.set(config.name, current);
        continue;
      }
      const state: SourceState = { config, endpoints: new Map() };
      if (current && sameSeries(current.config, config)) {
        const server = sameServer(current.config, config);
        state.carried = carryOver(current, server);
        if (current.flavor !== undefined && server) state.flavor = current.flavor;
      }
      next.set(config.name, state);
    }
    this.sources = next;
    this.groups = new Map([...groupViews(this.withProbed())].map(([name, view]) => [name, renderGroup(view)]));
    this.changed();
  }

  /** Records a poll's outcome, unless the source was removed or changed while the poll ran. */
  record(config: SourceConfig, endpoint: Endpoint, outcome: PollOutcome): void {
    const source = this.sources.get(config.name);
    if (!source || source.config !== config) return;
    const before = source.endpoints.get(endpoint) ?? source.carried?.get(endpoint);
    const after = applyOutcome(before, outcome);
    source.endpoints.set(endpoint, after);
    source.carried?.delete(endpoint);
    // What is no longer served is freed once no scrape reads it (exposition/member-readers.ts).
    retireUnserved([before?.families, outcome.ok ? outcome.families : undefined], after.families);
    this.regroup(config);
    this.changed();
  }

  /** Compares this source's group again (only its own). */
  private regroup(config: SourceConfig): void {
    const group =
      config.group === undefined
        ? undefined
        : groupViews(this.withProbed(config.group), config.group).get(config.group);
    if (group) this.groups.set(group.name, renderGroup(group));
  }

  /**
   * Sets what a source's answers told it is, unless the source was removed or changed meanwhile. Its
   * group is compared again: what is compared depends on the flavor (replica-group.ts).
   */
  setFlavor(config: SourceConfig, flavor: Flavor | undefined): void {
    const source = this.sources.get(config.name);
    if (!source || source.config !== config || source.flavor === flavor) return;
    if (flavor === undefined) delete source.flavor;
    else source.flavor = flavor;
    this.regroup(config);
    this.changed();
  }

  /** The exposition of all sources; assembled at most once per change. */
  exposition(): Exposition {
    if (this.current.version !== this.version) {
      const version = this.version;
      const parts = assembleExposition(this.sources.values(), this.groups.values());
      const length = parts.reduce((n, p) => n + plainLength(p), 0);
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
    return groupViews(this.withProbed());
  }

  /**
   * The sources and the probed members of groups (of one, or all). A server that is a source of its
   * group is not a probed member of it as well: one server, one member.
   */
  private withProbed(group?: string): SourceState[] {
    const sources = [...this.sources.values()];
    const member = (s: SourceState) => `${s.config.group}\0${s.config.url}`;
    const scheduled = new Set(sources.filter((s) => s.config.group !== undefined).map(member));
    return [...sources, ...this.probed(group).filter((s) => !scheduled.has(member(s)))];
  }

  /** Compresses a version in the thread pool; until it is ready scrapes get the plain text. */
  private compress(version: number, parts: readonly FamilyLines[]): void {
    const pieces: Promise<Uint8Array>[] = [];
    let small: Uint8Array[] = [];
    let crc = 0;
    const flush = () => {
      if (small.length > 0) pieces.push(deflateSegment(Buffer.concat(small)));
      small = [];
    };
    for (const part of parts) {
      if (isPacked(part)) {
        crc = crc32Combine(crc, part.crc, part.length);
        flush();
        for (const member of part.members) pieces.push(Promise.resolve(member));
        continue;
      }
      crc = crc32(part, crc);
      if (part.length < OWN_MEMBER_BYTES) {
        small.push(part);
        continue;
      }
      flush();
      const kept = members.get(part);
      pieces.push(
        kept
          ? Promise.resolve(kept)
          : deflateSegment(part).then((member) => {
              members.set(part, member);
              return member;
            }),
      );
    }
    flush();
    void Promise.all(pieces).then(
      (compressed) => {
        // Kept as members: one buffer of them would copy all the gzip again.
        if (this.current.version === version) this.current.gzip = { members: compressed, crc };
      },
      () => undefined, // plain text is served instead
    );
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
