// Entries (0, 1, 2, ...) found by a 32-bit hash, kept in one typed array (open addressing, linear
// probing, at most half full): a table of a few hundred thousand entries that a Map would keep as as
// many heap objects for the garbage collector to walk, in 8 to 16 bytes an entry. Equal hashes are
// told apart by the caller, who walks the probe sequence:
//
//   for (let at = index.first(hash); index.entry(at) >= 0; at = index.next(at)) ...
//
// A sequence is never walked further than MAX_PROBE_STEPS: the hashes it keeps may come from an upstream
// (a target's identity), and one that chose its entries to share a hash (hash flooding: the hashes'
// seeds are in the source) would make every lookup walk all of them, n²/2 steps for n entries. Past the
// bound, next() throws; the targets reader then gives the answer up to the reference path, whose Maps
// V8 hashes with a random seed. Hashes nobody chose, at most half the slots full, walk a few steps: a
// run of 256 occupied slots has a probability of about e^-49 at a given place.

const EMPTY = -1;
/** The most steps one probe sequence may take. */
export const MAX_PROBE_STEPS = 256;

/** A probe sequence longer than any the index's hashes would give by chance: they were chosen to collide. */
export class ProbeLimitError extends Error {
  constructor() {
    super(`a hash index probe walked more than ${MAX_PROBE_STEPS} slots (hashes chosen to collide)`);
  }
}

export class HashIndex {
  private slots = new Int32Array(1024).fill(EMPTY);
  private mask = 1023;
  private count = 0;
  /** Steps taken since the last first(). */
  private steps = 0;

  /** `hashOf(entry)`: the hash an entry was added with (the index is rebuilt from it as it grows). */
  constructor(private readonly hashOf: (entry: number) => number) {}

  /** Where the probe sequence of `hash` starts. */
  first(hash: number): number {
    this.steps = 0;
    return hash & this.mask;
  }

  /** The entry at a place of the sequence; negative where it ends. */
  entry(at: number): number {
    return this.slots[at] as number;
  }

  next(at: number): number {
    if (++this.steps > MAX_PROBE_STEPS) throw new ProbeLimitError();
    return (at + 1) & this.mask;
  }

  /** Adds an entry (not there yet) under its hash. */
  add(entry: number, hash: number): void {
    if (2 * (this.count + 1) > this.slots.length) this.grow();
    this.place(entry, hash);
    this.count++;
  }

  /** Entries numbered anew: entry e is `renumbered[e]` from now on (under the same hash). */
  renumber(renumbered: Int32Array): void {
    const slots = this.slots;
    for (let at = 0; at < slots.length; at++) {
      const entry = slots[at] as number;
      if (entry !== EMPTY) slots[at] = renumbered[entry] as number;
    }
  }

  get bytes(): number {
    return this.slots.byteLength;
  }

  private place(entry: number, hash: number): void {
    let at = hash & this.mask;
    while (this.slots[at] !== EMPTY) at = (at + 1) & this.mask;
    this.slots[at] = entry;
  }

  private grow(): void {
    const old = this.slots;
    this.slots = new Int32Array(old.length * 2).fill(EMPTY);
    this.mask = this.slots.length - 1;
    for (const entry of old) if (entry !== EMPTY) this.place(entry, this.hashOf(entry));
  }
}
