import bcrypt from "bcryptjs";

// bcrypt's work doubles with each step of cost (2^cost rounds): a wrong password took 5 ms for a
// cost-4 user and 400 ms for a cost-12 one, which told users apart, and an unknown user from both.
// So every failed check does the work of one compare at the highest cost M in the file: after a hash
// of cost c, decoys of costs c, c+1, ..., M-1 (2^c + 2^c + 2^(c+1) + ... + 2^(M-1) = 2^M); for an
// unknown user, one decoy of cost M. Work rather than a sleep: the one bcrypt thread stays busy as
// long, so requests sent side by side cannot tell the users apart either. The compare and its decoys
// are one job in the bcrypt queue (bcrypt-worker.ts), so every failed login also waits its turn once.

/** The cost of a bcrypt hash (`$2y$10$...` is 10), or undefined for anything else. */
export function bcryptCost(hash: string): number | undefined {
  const match = /^\$2[aby]\$(\d\d)\$/.exec(hash);
  return match ? Number(match[1]) : undefined;
}

/** A well-formed hash of this cost that no password matches (a random salt, an all-zero digest). */
function decoyHash(cost: number): string {
  return `${bcrypt.genSaltSync(cost)}${".".repeat(31)}`;
}

/** What a failed check of one users table compares, so that each costs as much as any other. */
export class EqualCost {
  /** The highest cost in the table. */
  readonly max: number;
  private readonly decoys = new Map<number, string>();

  constructor(hashes: Iterable<string>) {
    // The web config accepts bcrypt hashes only; 10 (bcrypt's default) if that ever changes.
    this.max = Math.max(4, ...[...hashes].map((h) => bcryptCost(h) ?? 10));
  }

  /** The decoys to compare after a wrong password for `hash`, or instead of it for an unknown user. */
  padding(hash: string | undefined): string[] {
    if (hash === undefined) return [this.decoy(this.max)];
    const padding: string[] = [];
    for (let cost = bcryptCost(hash) ?? this.max; cost < this.max; cost++) padding.push(this.decoy(cost));
    return padding;
  }

  private decoy(cost: number): string {
    let decoy = this.decoys.get(cost);
    if (decoy === undefined) {
      decoy = decoyHash(cost);
      this.decoys.set(cost, decoy);
    }
    return decoy;
  }
}
