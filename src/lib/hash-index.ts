// Entries (0, 1, 2, ...) found by a 32-bit hash, kept in one typed array (open addressing, linear
// probing, at most half full): a table of a few hundred thousand entries that a Map would keep as as
// many heap objects for the garbage collector to walk, in 8 to 16 bytes an entry. Equal hashes are
// told apart by the caller, who walks the probe sequence:
//
//   for (let at = index.first(hash); index.entry(at) >= 0; at = index.next(at)) ...

const EMPTY = -1;

export class HashIndex {
  private slots = new Int32Array(1024).fill(EMPTY);
  private mask = 1023;
  private count = 0;

  /** `hashOf(entry)`: the hash an entry was added with (the index is rebuilt from it as it grows). */
  constructor(private readonly hashOf: (entry: number) => number) {}

  /** Where the probe sequence of `hash` starts. */
  first(hash: number): number {
    return hash & this.mask;
  }

  /** The entry at a place of the sequence; negative where it ends. */
  entry(at: number): number {
    return this.slots[at] as number;
  }

  next(at: number): number {
    return (at + 1) & this.mask;
  }

  /** Adds an entry (not there yet) under its hash. */
  add(entry: number, hash: number): void {
    if (2 * (this.count + 1) > this.slots.length) this.grow();
    this.place(entry, hash);
    this.count++;
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
