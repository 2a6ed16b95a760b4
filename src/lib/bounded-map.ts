// A cache of values whose sizes add up to a budget: the oldest set go first. Both the decoder's kept
// gzip members (exposition/pack-cache.ts) and the probe results kept for min_interval
// (probe/recent-results.ts) are bounded this way.

export interface MapBudget {
  /** Sizes of all values kept, at most. */
  bytes: number;
  /** Values kept, at most. */
  count?: number;
  /** A value larger than this is not kept at all (it would push out many smaller ones); `bytes` by default. */
  entryBytes?: number;
}

/** A Map bounded by the sizes of its values; setting a key makes it the newest. */
export class BoundedMap<V> {
  // A Map iterates in insertion order: the first entry is the oldest.
  private readonly entries = new Map<string, V>();
  private total = 0;

  constructor(
    private readonly sizeOf: (value: V) => number,
    private readonly budget: MapBudget,
    /** Called with each value that leaves: deleted, replaced by another, pushed out, or cleared. */
    private readonly onDrop: (value: V) => void = () => {},
  ) {}

  /** Sizes of the values kept now. */
  get bytes(): number {
    return this.total;
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: string): V | undefined {
    return this.entries.get(key);
  }

  /**
   * Keeps `value` as the newest, the oldest going while over budget; false (and none kept for `key`) when
   * it is too large. Every value given is either kept or dropped (onDrop), the one it replaces dropped.
   */
  set(key: string, value: V): boolean {
    if (this.entries.get(key) === value) {
      // The same value again: only made the newest, never dropped.
      this.entries.delete(key);
      this.entries.set(key, value);
      return true;
    }
    this.delete(key);
    const size = this.sizeOf(value);
    if (size > (this.budget.entryBytes ?? this.budget.bytes)) {
      this.onDrop(value);
      return false;
    }
    this.entries.set(key, value);
    this.total += size;
    const count = this.budget.count ?? Number.POSITIVE_INFINITY;
    while (this.entries.size > count || this.total > this.budget.bytes) {
      this.delete(this.entries.keys().next().value as string);
    }
    return true;
  }

  delete(key: string): void {
    const value = this.entries.get(key);
    if (value === undefined) return;
    this.entries.delete(key);
    this.total -= this.sizeOf(value);
    this.onDrop(value);
  }

  clear(): void {
    const values = [...this.entries.values()];
    this.entries.clear();
    this.total = 0;
    for (const value of values) this.onDrop(value);
  }

  /** Entries, oldest first; deleting while iterating is safe. */
  [Symbol.iterator](): IterableIterator<[string, V]> {
    return this.entries[Symbol.iterator]();
  }
}
