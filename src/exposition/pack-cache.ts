import { createHash } from "node:crypto";
import { BoundedMap } from "../lib/bounded-map.js";
import { joinViews } from "../lib/joined-views.js";
import { releaseAll } from "../lib/release-memory.js";
import { MEMBER_PLAIN_BYTES, type PackedLines, packLines, packPieces } from "./pack.js";

// Most of a large answer's families are the same bytes from one poll to the next: a target's up,
// scrape interval and timeout rarely change, only its last scrape and duration do (3 of the 5
// per-target families of a steady fleet). Their compressed members are kept from the last poll and given
// again when the bytes are, so a poll compresses only what changed (100k targets: 36 of 63 MB of lines
// not compressed again).

/** Members kept per decoder thread, at most: ~250k targets' steady families; older keys go first. */
export const PACK_CACHE_BYTES = 16 * 2 ** 20;

const sha256 = (lines: Uint8Array) => createHash("sha256").update(lines).digest("hex");

/** A packed family with members of its own: what is handed out may be moved to another thread. */
const copied = (packed: PackedLines): PackedLines => ({
  ...packed,
  members: joinViews(packed.members),
  sizes: [...packed.sizes],
});

const packedBytes = (packed: PackedLines) => packed.members.reduce((n, m) => n + m.byteLength, 0);

/**
 * A kept family: its members, or none for a family that changes every poll (`volatile`: kept members
 * were replaced before anyone asked for them again, as the last scrape times and durations of a fleet
 * are every poll). `asked` once its writer asked for it again, knowing the bytes the same.
 */
type Kept = PackedLines & { asked?: boolean; volatile?: boolean };

/** The last packed lines of each family (by a key naming source and family), reused while unchanged. */
export class PackCache {
  private readonly entries: BoundedMap<Kept>;
  /** Families given from the cache instead of compressed again. */
  hits = 0;

  /** Bytes of the members kept now. */
  get bytes(): number {
    return this.entries.bytes;
  }

  /**
   * `drop` is given the members of each family the cache lets go (replaced, pushed out): its own copies, as what it
   * hands out is copied again, so by default they are freed at once. Left to the collector, a few polls'
   * worth of the families that change every poll (~4 MB a poll at 100k targets) stayed resident between
   * polls, until a full collection.
   */
  constructor(maxBytes = PACK_CACHE_BYTES, drop: (members: readonly Uint8Array[]) => void = releaseAll) {
    this.entries = new BoundedMap(packedBytes, { bytes: maxBytes }, (kept) => {
      drop(kept.members);
    });
  }

  /** The kept members of `key` if they are the lines of this hash (their writer knows they are the same again), else undefined. */
  again(key: string, hash: string): PackedLines | undefined {
    const kept = this.entries.get(key);
    if (kept === undefined || kept.hash !== hash) return undefined;
    kept.asked = true;
    this.entries.set(key, kept); // the newest again
    // A volatile family kept no members: written again, and kept in full from then on.
    if (kept.volatile) return undefined;
    this.hits++;
    return copied(kept);
  }

  /**
   * Lines known to be new, given in pieces of whole lines (each at most a member's worth): each piece
   * compressed into a member as it comes, so the lines are never whole in memory; kept under `newName`,
   * with no members if the family is volatile (100k targets: the ~2.5 MB of the two families that move
   * every poll not copied and held between polls for nothing).
   */
  packPieces(key: string, pieces: Iterable<Uint8Array>, newName: string): PackedLines {
    const packed: PackedLines = { ...packPieces(pieces), hash: newName };
    const before = this.entries.get(key);
    const volatile = before !== undefined && !before.asked;
    this.entries.set(key, volatile ? { ...packed, members: [], sizes: [], volatile } : copied(packed));
    return packed;
  }

  /**
   * `lines` packed: the kept members if they are of the same bytes, else newly compressed (and kept).
   * `newName`, for lines known to differ from any kept, stands for their hash (a name never given to
   * other bytes): 60 MB of lines are not hashed to learn what their writer knows.
   */
  pack(key: string, lines: Uint8Array, newName?: string): PackedLines {
    // Lines their writer knows to be new bytes come with a name of their own instead of a content hash.
    const hash = newName ?? sha256(lines);
    const kept = newName === undefined ? this.entries.get(key) : undefined;
    if (kept !== undefined && kept.hash === hash && kept.length === lines.length) {
      kept.asked = true;
      this.hits++;
      this.entries.set(key, kept); // the newest again
      return copied(kept);
    }
    const packed = packLines(lines, MEMBER_PLAIN_BYTES, hash);
    this.entries.set(key, copied(packed));
    return packed;
  }
}
