import { HashIndex } from "../lib/hash-index.js";
import { BufferArena, type ByteArena, LinesArena } from "../lib/lines-arena.js";
import type { TargetRead } from "../upstream/targets/target-read.js";
import { identityHash } from "./identity-hash.js";
import { labelPairs, wellFormed } from "./label-pairs.js";
import { mergeValue, SERIES_VALUES, type TargetSeries } from "./series-columns.js";
import { hashBytes, orderSeries } from "./series-order.js";
import { type TargetLabel, targetLabels, targetValues } from "./targets.js";
import { lastScrapeSeconds, lastScrapeSecondsOfBytes } from "./time.js";

// The per-target series of one source, kept from one poll to the next. A target is known by its
// identity bytes: its pool's and read labels' raw bytes as the answer spells them, which a real
// Prometheus writes the same on every poll (only health, lastScrape, lastScrapeDuration move). A known
// identity finds its series' rendered labels (a block of bytes in an arena) without decoding a string,
// building an object or escaping a value: per target, a poll hashes ~60 bytes, compares them with the
// kept labels, and writes five numbers. Only a target not seen before is decoded and rendered as the
// reference path does (targets.ts). The series keep their order while the set of them is the same, and
// a family whose values did not move is known to be the same bytes without writing it.
//
// Several identities may render to one series (an escape spelled two ways, a lone surrogate and
// U+FFFD): they share it, and merge as targets with the same labels do. A plain identity (ASCII, no
// escapes: nearly every target) is its series' rendered labels, so only other spellings are kept apart.

const VALUES = SERIES_VALUES.length;
/** A series' place (TargetTable.places): its labels' start and length, the poll last met in, its plain identity's hash. */
const PLACE = 4;
const START = 0;
const LENGTH = 1;
const SEEN = 2;
const PLAIN_HASH = 3;
const QUOTE = 0x22;
/** Rendered labels from which on they are kept in the line writer's memory (a smaller family is written whole). */
const LINES_ARENA_MIN_BYTES = 64 * 1024;
/** A rendered label whose value is the target's pool. */
const POOL = -2;

interface Layout {
  /** Per rendered label: POOL, the index of a label read, or -1 (always empty). */
  sources: Int32Array;
  /** Per rendered label: the bytes before its value, `,name="` (no comma for the first). */
  prefix: Int32Array;
}
/** Between the spans of an identity: a quote never stands raw inside a JSON string. */
const SEPARATOR = 0x22;

function grownInt32(a: Int32Array, size: number): Int32Array {
  const b = new Int32Array(size);
  b.set(a);
  return b;
}

function grownUint8(a: Uint8Array, size: number): Uint8Array {
  const b = new Uint8Array(size);
  b.set(a);
  return b;
}

function grownUint32(a: Uint32Array, size: number): Uint32Array {
  const b = new Uint32Array(size);
  b.set(a);
  return b;
}

function grownFloat64(a: Float64Array, size: number): Float64Array {
  const b = new Float64Array(size);
  b.set(a);
  return b;
}

/**
 * Series k's `stride` entries replaced by series was[k]'s, in place (each cycle of the permutation
 * followed once), so that laying the series out anew needs no second copy of the arrays.
 */
function reorder(a: Int32Array | Uint32Array | Uint8Array | Float64Array, was: Int32Array, stride: number): void {
  const n = was.length;
  const done = new Uint8Array(n);
  const held = new Float64Array(stride); // holds any of the arrays' numbers exactly
  for (let start = 0; start < n; start++) {
    if (done[start]) continue;
    for (let j = 0; j < stride; j++) held[j] = a[start * stride + j] as number;
    for (let k = start; ; ) {
      done[k] = 1;
      const from = was[k] as number;
      if (from === start) {
        for (let j = 0; j < stride; j++) a[k * stride + j] = held[j] as number;
        break;
      }
      for (let j = 0; j < stride; j++) a[k * stride + j] = a[from * stride + j] as number;
      k = from;
    }
  }
}

/**
 * Whether kept[p, end) goes on with b[start, stop) and a separator: where the kept bytes go on after
 * them, or -1.
 */
function sameSpan(kept: Buffer, p: number, end: number, b: Buffer, start: number, stop: number): number {
  if (stop - start >= end - p) return -1;
  for (let i = start; i < stop; i++) if (kept[p++] !== b[i]) return -1;
  return kept[p] === SEPARATOR ? p + 1 : -1;
}

/** A target's last scrape in seconds, from its bytes where they settle it (no string made). */
function lastScrapeOf(read: TargetRead): number | undefined {
  if (read.lastScrapeStart >= 0 && read.lastScrapeFlags === 0) {
    const seconds = lastScrapeSecondsOfBytes(read.bytes, read.lastScrapeStart, read.lastScrapeEnd);
    if (seconds !== null) return seconds;
  }
  return lastScrapeSeconds(read.lastScrape);
}

const same = (a: number, b: number) => a === b || (Number.isNaN(a) && Number.isNaN(b));

/** What a per-target family was last packed as. */
export interface PackedAs {
  hash: string;
  start: Uint8Array;
}

/** The per-target series of one source's answers, poll after poll. */
export class TargetTable implements TargetSeries {
  // Identities: bytes in idArena, chained by hash; each names its series.
  private readonly idArena = new BufferArena();
  private idStart: Int32Array = new Int32Array(1024);
  private idLength: Int32Array = new Int32Array(1024);
  private idHash: Int32Array = new Int32Array(1024);
  private idSeries: Int32Array = new Int32Array(1024);
  private ids = 0;
  private readonly idIndex = new HashIndex((id) => this.idHash[id] as number);

  // Series: rendered labels in pairsArena, chained by their hash; their pool (as written) and values.
  // Once large, in the line writer's memory where WebAssembly runs, so that it writes the families' lines
  // from them (the exposition's per-target families); small ones stay in a Buffer (no instance made).
  private pairsArena: ByteArena = new BufferArena();
  /**
   * Per series s, side by side at s * PLACE (one cache miss for a series the upstream's order leads to,
   * where four arrays were four): where its rendered labels start in the arena and their length, the
   * poll it was last met in, and the hash of its plain identity.
   */
  private places: Int32Array = new Int32Array(1024 * PLACE);
  private pairsHash: Uint32Array = new Uint32Array(1024);
  private pools: string[] = [];
  private series = 0;
  private readonly seriesIndex = new HashIndex((s) => this.pairsHash[s] as number);
  /** Series found by a plain identity: its hash, and whether it has one. */
  private plainKnown: Uint8Array = new Uint8Array(1024);
  private readonly plainIndex = new HashIndex((s) => this.places[s * PLACE + PLAIN_HASH] as number);
  private layout: Layout | undefined;
  /**
   * Values by series: this poll's for the series met in it, until then the last poll's. Side by side,
   * series s's at s * VALUES: the upstream lists targets in a new order every poll, and a series' values
   * in one place are one cache miss to read and replace where five columns were five.
   */
  private values: Float64Array = new Float64Array(1024 * VALUES);
  /** Whether a value of family v of a series met in both polls moved; whether targets merged this poll. */
  private readonly moved = SERIES_VALUES.map(() => false);
  private merged = false;

  private poll = 0;
  /** The series met this poll, in the order met. */
  private met: Uint32Array = new Uint32Array(1024);
  private metCount = 0;
  /** Of those, met in the last poll too. */
  private metLastPoll = 0;
  private lastOrder: Uint32Array | undefined;
  private orderKept = false;
  private readonly valuesRead = new Array<number>(VALUES);

  constructor(private readonly extraLabels: readonly TargetLabel[]) {}

  /** Starts a poll: every series is unmet until a target of it is added. */
  begin(): void {
    this.poll++;
    this.moved.fill(false);
    this.merged = false;
    this.metCount = 0;
    this.metLastPoll = 0;
  }

  /** Distinct series met this poll. */
  get size(): number {
    return this.metCount;
  }

  /**
   * Reads ahead the memory add() reads for these targets: each one's first hash slot, then the place,
   * values and labels of the series found there. A real Prometheus lists its targets in a new order on
   * every poll, so at 100k targets nearly every one of those reads misses the cache, and add() waited
   * for four or five of them in a row per target (~40 ms a poll in two of them alone); read here, a
   * batch's misses overlap, the reads of one pass not waiting for each other.
   */
  warm(reads: readonly TargetRead[], n: number): void {
    const plain = this.plainIndex;
    if (this.warmFound.length < n) this.warmFound = new Int32Array(n);
    const found = this.warmFound;
    for (let i = 0; i < n; i++) {
      const read = reads[i] as TargetRead;
      found[i] = read.identityHashed ? plain.entry(plain.first(read.identityHash)) : -1;
    }
    const { places, values } = this;
    const labels = this.pairsArena.bytes;
    let sum = 0;
    for (let i = 0; i < n; i++) {
      const s = found[i] as number;
      if (s < 0 || s >= this.series) continue;
      // The values and labels may lie across two cache lines (the labels ~100 bytes): each end of them.
      sum += (places[s * PLACE + PLAIN_HASH] as number) + (values[s * VALUES] as number);
      sum += values[s * VALUES + VALUES - 1] as number;
      const start = places[s * PLACE + START] as number;
      const end = start + (places[s * PLACE + LENGTH] as number) - 1;
      sum += (labels[start] ?? 0) + (labels[(start + end) >> 1] ?? 0) + (labels[end] ?? 0);
    }
    this.warmedSum = sum;
  }

  private warmFound = new Int32Array(0);
  /** What warm() read, added up: stored, so that the compiler does not leave its reads out as unused. */
  warmedSum = 0;

  /** Adds a target read this poll; true when it merged into a series another target made (a collision). */
  add(read: TargetRead): boolean {
    const s = this.seriesOfTarget(read);
    const values = targetValues(this.valuesRead, read, lastScrapeOf(read));
    const kept = this.values;
    const at = s * VALUES;
    if (this.places[s * PLACE + SEEN] === this.poll) {
      this.merged = true;
      for (let v = 0; v < VALUES; v++) kept[at + v] = mergeValue(v, kept[at + v] as number, values[v] as number);
      return true;
    }
    // A series met last poll still holds that poll's values: whether they moved is seen as they are replaced.
    const metLastPoll = this.places[s * PLACE + SEEN] === this.poll - 1;
    if (metLastPoll) this.metLastPoll++;
    this.places[s * PLACE + SEEN] = this.poll;
    if (this.metCount === this.met.length) this.met = grownUint32(this.met, this.met.length * 2);
    this.met[this.metCount++] = s;
    for (let v = 0; v < VALUES; v++) {
      const value = values[v] as number;
      if (metLastPoll && !this.moved[v] && !same(kept[at + v] as number, value)) this.moved[v] = true;
      kept[at + v] = value;
    }
    return false;
  }

  /** The series met this poll in the exporter's order: the last poll's order when they are the same series. */
  finish(): Uint32Array {
    const last = this.lastOrder;
    this.orderKept = last !== undefined && this.metLastPoll === this.metCount && this.metCount === last.length;
    if (!this.orderKept) {
      const order = orderSeries(this.met.subarray(0, this.metCount), {
        pool: (i) => this.pools[i] as string,
        hash: (i) => this.pairsHash[i] as number,
        compare: (a, b) => this.comparePairs(a, b),
      });
      this.layOut(order);
      this.lastOrder = this.renumber(order);
    }
    return this.lastOrder as Uint32Array;
  }

  /**
   * Moves the series' rendered labels into the order they are written in, the series not met this poll
   * after them: the lines of a family are then written from one pass over the arena, not from a jump
   * to a new place for each line (as the upstream listed the targets when they were first met).
   */
  private layOut(order: Uint32Array): void {
    const old = this.pairsArena;
    if (old.used >= LINES_ARENA_MIN_BYTES && !(old instanceof LinesArena)) this.pairsArena = LinesArena.create() ?? old;
    const arena = this.pairsArena;
    // Into a new arena, the blocks are moved from the old one's memory, which nothing writes over; in the
    // same arena, from a copy, written back in order over them (the arena keeps its memory).
    const from = arena === old ? Buffer.from(old.bytes.subarray(0, old.used)) : old.bytes;
    arena.clear();
    const move = (s: number) => {
      const start = this.pairsStartOf(s);
      const at = arena.reserve(this.pairsLength(s));
      from.copy(arena.bytes, at, start, start + this.pairsLength(s));
      this.places[s * PLACE + START] = at;
    };
    for (let k = 0; k < order.length; k++) move(order[k] as number);
    for (let s = 0; s < this.series; s++) if (this.places[s * PLACE + SEEN] !== this.poll) move(s);
  }

  /**
   * Numbers the series in the order they are written in (`order`, then those not met this poll, as
   * layOut placed their labels), so that whatever walks them in that order (writing a family's lines,
   * at every poll and every plain scrape) walks their places and values in memory order, not from a
   * cache miss to the next as the upstream listed the targets. Returns the order as it is now: 0, 1, ...
   */
  private renumber(order: Uint32Array): Uint32Array {
    const n = this.series;
    const renumbered = new Int32Array(n);
    const was = new Int32Array(n);
    let k = 0;
    for (; k < order.length; k++) {
      const s = order[k] as number;
      renumbered[s] = k;
      was[k] = s;
    }
    for (let s = 0; s < n; s++) {
      if (this.places[s * PLACE + SEEN] === this.poll) continue;
      renumbered[s] = k;
      was[k++] = s;
    }
    reorder(this.places, was, PLACE);
    reorder(this.values, was, VALUES);
    reorder(this.pairsHash, was, 1);
    reorder(this.plainKnown, was, 1);
    this.pools = Array.from(was, (s) => this.pools[s] as string);
    for (let id = 0; id < this.ids; id++) this.idSeries[id] = renumbered[this.idSeries[id] as number] as number;
    this.plainIndex.renumber(renumbered);
    this.seriesIndex.renumber(renumbered);
    const now = new Uint32Array(order.length);
    for (let i = 0; i < now.length; i++) now[i] = i;
    return now;
  }

  /**
   * Whether family v holds the same values as in the last poll, for the same series in the same order
   * (merged targets this poll: not known, so no).
   */
  sameAsLast(v: number): boolean {
    return this.orderKept && !this.merged && !this.moved[v];
  }

  /**
   * Whether series and identities no target named for a while outnumber those met this poll: such a
   * table is not kept (the next poll starts again, decoding every target once more).
   */
  get sparse(): boolean {
    const live = this.metCount;
    return this.series > 2 * live + 1024 || this.ids > 2 * live + 1024;
  }

  /**
   * Family v's packed lines as last written from this table, if they were packed: their hash (or name,
   * exposition/pack.ts) and the start of each line (the family's name and the source's labels).
   */
  readonly packedAs: (PackedAs | undefined)[] = SERIES_VALUES.map(() => undefined);

  /** Polls begun so far: while it stays the same, the values and the labels' places stay as they are. */
  get polls(): number {
    return this.poll;
  }

  /** The series in the order the last poll's lines were written in (finish). */
  get order(): Uint32Array {
    return this.lastOrder ?? new Uint32Array(0);
  }

  /** Memory held between polls, in bytes (arenas, columns, indices). */
  get bytes(): number {
    const perId = 4 * 4; // four Int32Arrays
    const perSeries = 4 * PLACE + 4 + 1 + 8 + VALUES * 8; // a place, a hash, a flag, a pool, the values
    return (
      this.idArena.bytes.length +
      this.pairsArena.held +
      this.idStart.length * perId +
      this.pairsHash.length * perSeries +
      this.met.byteLength +
      this.idIndex.bytes +
      this.seriesIndex.bytes +
      this.plainIndex.bytes
    );
  }

  value(v: number, i: number): number {
    return this.values[i * VALUES + v] as number;
  }

  pairsLength(i: number): number {
    return this.places[i * PLACE + LENGTH] as number;
  }

  writePairs(out: Buffer, offset: number, i: number): number {
    const start = this.pairsStartOf(i);
    return this.pairsArena.bytes.copy(out, offset, start, start + this.pairsLength(i));
  }

  /**
   * Where series s's labels are in the lines arena (from `places[s * placeStride]`, for
   * `places[s * placeStride + 1]` bytes) and its values (`values[s * valueStride + v]` for family v): the
   * table's own arrays, as they are until the next poll begins.
   */
  seriesArrays(): { places: Int32Array; placeStride: number; values: Float64Array; valueStride: number } {
    return { places: this.places, placeStride: PLACE, values: this.values, valueStride: VALUES };
  }

  get linesArena(): LinesArena | undefined {
    return this.pairsArena instanceof LinesArena ? this.pairsArena : undefined;
  }

  pairsStartOf(i: number): number {
    return this.places[i * PLACE + START] as number;
  }

  // --- identities ---

  /** The series of a target: found by its identity, or made for it. */
  private seriesOfTarget(read: TargetRead): number {
    const h = read.identityHashed
      ? read.identityHash
      : identityHash(read.bytes, read.poolStart, read.poolEnd, read.labelStart, read.labelEnd);
    // The usual target, plain ASCII without escapes, is told by its series' rendered labels themselves.
    const plain = this.plainIndex;
    for (let at = plain.first(h); plain.entry(at) >= 0; at = plain.next(at)) {
      const s = plain.entry(at);
      if (this.places[s * PLACE + PLAIN_HASH] === h && this.isPlainIdentity(s, read)) return s;
    }
    if (read.plain()) return this.newPlainIdentity(read, h);
    const index = this.idIndex;
    for (let at = index.first(h); index.entry(at) >= 0; at = index.next(at)) {
      const id = index.entry(at);
      if (this.idHash[id] === h && this.isIdentity(id, read)) return this.idSeries[id] as number;
    }
    // Made first: a new identity may grow idSeries, and `this.idSeries[...]` would read the old array.
    const id = this.newIdentity(read, h);
    return this.idSeries[id] as number;
  }

  /**
   * Whether the series' rendered labels are the target's spans as they are: for a plain target, what
   * the text format writes of a value is its bytes, so the labels are its identity and none is kept
   * apart. The labels' names are the table's own, in its order (`layout`).
   */
  private isPlainIdentity(s: number, read: TargetRead): boolean {
    const layout = this.layoutOf(read);
    const kept = this.pairsArena.bytes;
    const b = read.bytes;
    let p = this.pairsStartOf(s);
    const end = p + this.pairsLength(s);
    for (let j = 0; j < layout.sources.length; j++) {
      p += layout.prefix[j] as number;
      const source = layout.sources[j] as number;
      let start = 0;
      let stop = 0;
      if (source === POOL) {
        start = read.poolStart;
        stop = read.poolEnd;
      } else if (source >= 0 && (read.labelStart[source] as number) >= 0) {
        start = read.labelStart[source] as number;
        stop = read.labelEnd[source] as number;
      }
      if (stop - start >= end - p) return false;
      for (let i = start; i < stop; i++) if (kept[p++] !== b[i]) return false;
      if (kept[p++] !== QUOTE) return false;
    }
    return p === end;
  }

  private newPlainIdentity(read: TargetRead, hash: number): number {
    const s = this.seriesOf(this.render(read), wellFormed(read.scrapePool));
    // A series first made by another spelling of the same labels is found by this one from now on too.
    if (!this.plainKnown[s]) {
      this.plainKnown[s] = 1;
      this.places[s * PLACE + PLAIN_HASH] = hash;
      this.plainIndex.add(s, hash);
    }
    return s;
  }

  private renders = 0;
  /** Targets decoded and rendered the slow way (render) since the table was made: each new one once. */
  get rendered(): number {
    return this.renders;
  }

  /** A new target's labels, decoded and rendered as the reference path renders them. */
  private render(read: TargetRead): Buffer {
    this.renders++;
    return Buffer.from(labelPairs(targetLabels(read.toActiveTarget(), this.extraLabels)), "utf8");
  }

  /** Where each rendered label's value comes from, and the bytes before it (`,name="`). */
  private layoutOf(read: TargetRead): Layout {
    if (this.layout) return this.layout;
    // The labels' names and order as targets.ts writes them; a later one of the same name wins.
    const names = Object.keys(targetLabels({ scrapePool: "", labels: {} }, this.extraLabels));
    const from = new Map<string, number>([
      ["scrape_pool", POOL],
      ["job", read.labelNames.indexOf("job")],
      ["instance", read.labelNames.indexOf("instance")],
    ]);
    for (const { from: name, to } of this.extraLabels) from.set(to, read.labelNames.indexOf(name));
    this.layout = {
      sources: Int32Array.from(names, (name) => from.get(name) ?? -1),
      prefix: Int32Array.from(names, (name, j) => (j > 0 ? 1 : 0) + Buffer.byteLength(name) + 2),
    };
    return this.layout;
  }

  private isIdentity(id: number, read: TargetRead): boolean {
    const kept = this.idArena.bytes;
    const end = (this.idStart[id] as number) + (this.idLength[id] as number);
    let p = sameSpan(kept, this.idStart[id] as number, end, read.bytes, read.poolStart, read.poolEnd);
    const { labelStart, labelEnd } = read;
    for (let k = 0; k < labelStart.length && p >= 0; k++) {
      const start = labelStart[k] as number;
      p =
        start >= 0
          ? sameSpan(kept, p, end, read.bytes, start, labelEnd[k] as number)
          : sameSpan(kept, p, end, read.bytes, 0, 0);
    }
    return p === end;
  }

  private newIdentity(read: TargetRead, hash: number): number {
    const b = read.bytes;
    const { labelStart, labelEnd } = read;
    let length = read.poolEnd - read.poolStart + 1;
    for (let k = 0; k < labelStart.length; k++) {
      const start = labelStart[k] as number;
      length += (start >= 0 ? (labelEnd[k] as number) - start : 0) + 1;
    }
    let at = this.idArena.reserve(length);
    const arena = this.idArena.bytes;
    at += b.copy(arena, at, read.poolStart, read.poolEnd);
    arena[at++] = SEPARATOR;
    for (let k = 0; k < labelStart.length; k++) {
      const start = labelStart[k] as number;
      if (start >= 0) at += b.copy(arena, at, start, labelEnd[k] as number);
      arena[at++] = SEPARATOR;
    }
    if (this.ids === this.idStart.length) {
      const size = this.ids * 2;
      this.idStart = grownInt32(this.idStart, size);
      this.idLength = grownInt32(this.idLength, size);
      this.idHash = grownInt32(this.idHash, size);
      this.idSeries = grownInt32(this.idSeries, size);
    }
    const id = this.ids++;
    this.idStart[id] = at - length;
    this.idLength[id] = length;
    this.idHash[id] = hash;
    this.idIndex.add(id, hash);
    this.idSeries[id] = this.seriesOf(this.render(read), wellFormed(read.scrapePool));
    return id;
  }

  // --- series ---

  private seriesOf(pairs: Buffer, pool: string): number {
    const hash = hashBytes(pairs, 0, pairs.length);
    const arena = this.pairsArena;
    const index = this.seriesIndex;
    for (let at = index.first(hash); index.entry(at) >= 0; at = index.next(at)) {
      const s = index.entry(at);
      const start = this.pairsStartOf(s);
      if (this.pairsHash[s] === hash && pairs.equals(arena.bytes.subarray(start, start + this.pairsLength(s))))
        return s;
    }
    if (this.series === this.pairsHash.length) this.growSeries(this.series * 2);
    const s = this.series++;
    const at = arena.reserve(pairs.length);
    pairs.copy(arena.bytes, at);
    this.places[s * PLACE + START] = at;
    this.places[s * PLACE + LENGTH] = pairs.length;
    this.pairsHash[s] = hash;
    this.seriesIndex.add(s, hash);
    this.places[s * PLACE + SEEN] = 0;
    this.pools[s] = pool;
    return s;
  }

  private growSeries(size: number): void {
    this.places = grownInt32(this.places, size * PLACE);
    this.pairsHash = grownUint32(this.pairsHash, size);
    this.plainKnown = grownUint8(this.plainKnown, size);
    this.values = grownFloat64(this.values, size * VALUES);
  }

  private comparePairs(a: number, b: number): number {
    const bytes = this.pairsArena.bytes;
    const as = this.pairsStartOf(a);
    const bs = this.pairsStartOf(b);
    return bytes.compare(bytes, bs, bs + this.pairsLength(b), as, as + this.pairsLength(a));
  }
}
