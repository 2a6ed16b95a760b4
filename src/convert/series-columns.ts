import type { LinesArena } from "../lib/lines-arena.js";
import type { Labels } from "./samples.js";
import { stableOrder } from "./series-order.js";

/** Per-target series as the line writer reads them (exposition/target-lines.ts). */
export interface TargetSeries {
  /** Value v (an index into SERIES_VALUES) of series i; NaN where it has none. */
  value(v: number, i: number): number;
  /** Bytes of series i's rendered labels. */
  pairsLength(i: number): number;
  /** Writes series i's rendered labels at `offset`; the bytes written. */
  writePairs(out: Buffer, offset: number, i: number): number;
  /** The line writer's memory the rendered labels are kept in, if they are (lib/lines-arena.ts). */
  readonly linesArena?: LinesArena | undefined;
  /** Where series i's rendered labels start in `linesArena`. */
  pairsStartOf?(i: number): number;
}

/** Node's own writers behind Buffer#write, without its per-call argument handling (a million calls). */
type Writable = Buffer & {
  latin1Write(text: string, offset: number): number;
  utf8Write(text: string, offset: number): number;
};

// The per-target series of a large answer (500k at 500k targets), kept until they are written: as
// columns, not an object per series. A series is its rendered labels (also its key) and five numbers,
// NaN where it has none; an object per series, with its labels as another object, took ~600 bytes each
// and cost the garbage collector more than reading the answer did.

/** The values a per-target series has, in the order its families are written. */
export const SERIES_VALUES = ["up", "duration", "lastScrape", "interval", "timeout"] as const;
export type SeriesValue = (typeof SERIES_VALUES)[number];

/** How two targets with the same labels merge: a down target is never hidden, the worst figure wins. */
const MERGE: Record<SeriesValue, (a: number, b: number) => number> = {
  up: Math.min,
  duration: Math.max,
  lastScrape: Math.min,
  interval: Math.min,
  timeout: Math.min,
};

/** Value v of a series that already has `a` merged with another target's `b` (NaN: none). */
export function mergeValue(v: number, a: number, b: number): number {
  if (Number.isNaN(a)) return b;
  if (Number.isNaN(b)) return a;
  return (MERGE[SERIES_VALUES[v] as SeriesValue] as (a: number, b: number) => number)(a, b);
}

export class SeriesColumns implements TargetSeries {
  private readonly index = new Map<string, number>();
  readonly pairs: string[] = [];
  readonly pools: string[] = [];
  /** Each series' labels as an object: kept only for the reference converter, which adds samples by them. */
  readonly labels: Labels[] | undefined;
  private readonly columns: Float64Array[];
  private capacity = 1024;
  size = 0;

  constructor(keepLabels: boolean) {
    this.labels = keepLabels ? [] : undefined;
    this.columns = SERIES_VALUES.map(() => new Float64Array(this.capacity));
  }

  /** Adds a series, or merges it into the one with the same labels; true when it merged. */
  add(pairs: string, pool: string, labels: Labels | undefined, values: readonly number[]): boolean {
    const seen = this.index.get(pairs);
    if (seen !== undefined) {
      for (let v = 0; v < SERIES_VALUES.length; v++) {
        const column = this.columns[v] as Float64Array;
        column[seen] = mergeValue(v, column[seen] as number, values[v] as number);
      }
      return true;
    }
    if (this.size === this.capacity) this.grow();
    const i = this.size++;
    this.index.set(pairs, i);
    this.pairs.push(pairs);
    this.pools.push(pool);
    if (labels) this.labels?.push(labels);
    for (let v = 0; v < SERIES_VALUES.length; v++) (this.columns[v] as Float64Array)[i] = values[v] as number;
    return false;
  }

  /** Value `v` (an index into SERIES_VALUES) of series i; NaN where it has none. */
  value(v: number, i: number): number {
    return (this.columns[v] as Float64Array)[i] as number;
  }

  pairsLength(i: number): number {
    return Buffer.byteLength(this.pairs[i] as string);
  }

  writePairs(out: Buffer, offset: number, i: number): number {
    const pairs = this.pairs[i] as string;
    return (out as Writable).utf8Write(pairs, offset);
  }

  /** The series' indices in the exporter's own stable order (series-order.ts). */
  order(): Uint32Array {
    return stableOrder(this.pairs, this.pools);
  }

  private grow(): void {
    this.capacity *= 2;
    for (let v = 0; v < this.columns.length; v++) {
      const grown = new Float64Array(this.capacity);
      grown.set(this.columns[v] as Float64Array);
      this.columns[v] = grown;
    }
  }
}
