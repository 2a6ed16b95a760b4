import type { ActiveTarget } from "../payloads.js";
import { type Bytes, decodeSpan } from "./json-bytes.js";

/**
 * One active target as read, the same object for every target of an answer: its strings that a
 * series is keyed by (the pool and the labels read) as spans of the buffer being read, valid only
 * while the target is handed over. A consumer that knows a target's spans from an earlier poll needs
 * no string of them (convert/target-table.ts); `toActiveTarget` gives what the reference path has.
 */
export class TargetRead {
  /** The buffer the spans are in. */
  bytes: Buffer = Buffer.alloc(0);
  scrapePool = "";
  /** The pool's raw bytes (between its quotes; empty when it has none or not a string). */
  poolStart = 0;
  poolEnd = 0;
  /** How the pool's bytes become its text (ESCAPED, WIDE; 0 for plain ASCII). */
  poolFlags = 0;
  health = "unknown";
  lastError = "";
  /** lastScrape's raw bytes [start, end) (start -1: none, or not a string) and how they become its text. */
  lastScrapeStart = -1;
  lastScrapeEnd = 0;
  lastScrapeFlags = 0;
  private lastScrapeText: string | undefined;
  lastScrapeDuration: number | undefined;
  scrapeInterval: string | undefined;
  scrapeTimeout: string | undefined;
  /** Label k (`labelNames[k]`): its raw bytes [start, end), start -1 when the target has none. */
  readonly labelStart: Int32Array;
  readonly labelEnd: Int32Array;
  readonly labelFlags: Uint8Array;
  /**
   * The identity hash of the pool and labels read (convert/identity-hash.ts), when the reader computed
   * it (the WebAssembly module does, as it reads the spans).
   */
  identityHash = 0;
  identityHashed = false;

  constructor(readonly labelNames: readonly string[]) {
    this.labelStart = new Int32Array(labelNames.length);
    this.labelEnd = new Int32Array(labelNames.length);
    this.labelFlags = new Uint8Array(labelNames.length);
  }

  reset(bytes: Buffer): void {
    this.bytes = bytes;
    this.scrapePool = "";
    this.poolStart = 0;
    this.poolEnd = 0;
    this.poolFlags = 0;
    this.health = "unknown";
    this.lastError = "";
    this.lastScrapeStart = -1;
    this.lastScrapeText = undefined;
    this.lastScrapeDuration = undefined;
    this.scrapeInterval = undefined;
    this.scrapeTimeout = undefined;
    this.labelStart.fill(-1);
    this.identityHashed = false;
  }

  /** Becomes a copy of `other` (of the same label names): its spans into the same buffer, valid as long as theirs. */
  copyFrom(other: TargetRead): void {
    this.bytes = other.bytes;
    this.scrapePool = other.scrapePool;
    this.poolStart = other.poolStart;
    this.poolEnd = other.poolEnd;
    this.poolFlags = other.poolFlags;
    this.health = other.health;
    this.lastError = other.lastError;
    this.lastScrapeStart = other.lastScrapeStart;
    this.lastScrapeEnd = other.lastScrapeEnd;
    this.lastScrapeFlags = other.lastScrapeFlags;
    this.lastScrapeText = other.lastScrapeText;
    this.lastScrapeDuration = other.lastScrapeDuration;
    this.scrapeInterval = other.scrapeInterval;
    this.scrapeTimeout = other.scrapeTimeout;
    this.labelStart.set(other.labelStart);
    this.labelEnd.set(other.labelEnd);
    this.labelFlags.set(other.labelFlags);
    this.identityHash = other.identityHash;
    this.identityHashed = other.identityHashed;
  }

  /**
   * Whether the pool and every label read are plain ASCII without escapes: then their bytes are their
   * text, and the text format writes them as they are.
   */
  plain(): boolean {
    if (this.poolFlags !== 0) return false;
    for (let k = 0; k < this.labelNames.length; k++)
      if ((this.labelStart[k] as number) >= 0 && this.labelFlags[k] !== 0) return false;
    return true;
  }

  /**
   * The last scrape's text, made when first asked for: most targets' is only read as a time, from its
   * bytes (convert/target-table.ts), and a string of it for each cost a tenth of a poll's scan.
   */
  get lastScrape(): string | undefined {
    if (this.lastScrapeText === undefined && this.lastScrapeStart >= 0)
      this.lastScrapeText = decodeSpan(
        this.bytes as Bytes,
        this.lastScrapeStart,
        this.lastScrapeEnd,
        this.lastScrapeFlags,
      );
    return this.lastScrapeText;
  }

  /** Label k's text as JSON.parse gives it; "" when the target has none. */
  label(k: number): string {
    const start = this.labelStart[k] as number;
    if (start < 0) return "";
    return decodeSpan(this.bytes as Bytes, start, this.labelEnd[k] as number, this.labelFlags[k] as number);
  }

  /** The target as the reference path has it, for the labels read (a copy: it outlives the buffer). */
  toActiveTarget(): ActiveTarget {
    const labels: Record<string, string> = {};
    for (let k = 0; k < this.labelNames.length; k++)
      if ((this.labelStart[k] as number) >= 0) labels[this.labelNames[k] as string] = this.label(k);
    const target: ActiveTarget = {
      labels,
      scrapePool: this.scrapePool,
      health: this.health,
      lastError: this.lastError,
    };
    if (this.lastScrape !== undefined) target.lastScrape = this.lastScrape;
    if (this.lastScrapeDuration !== undefined) target.lastScrapeDuration = this.lastScrapeDuration;
    if (this.scrapeInterval !== undefined) target.scrapeInterval = this.scrapeInterval;
    if (this.scrapeTimeout !== undefined) target.scrapeTimeout = this.scrapeTimeout;
    return target;
  }
}
