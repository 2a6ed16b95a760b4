import { releaseAll } from "../lib/release-memory.js";
import { type Families, type FamilyLines, isPacked } from "./pack.js";

// A family's gzip members, once a newer poll replaced the family, are freed as soon as nothing reads
// them, not at the main thread's next full collection: until then a few polls' worth of the families
// that change every poll (~4 MB a poll at 100k targets) stayed resident between polls. Readers are
// scrapes (a socket write may hold a member's memory until the response ends) and inflates in the
// thread pool: memory is never freed under either. A family's members are counted as one (its list).

type Members = readonly Uint8Array[];
const readers = new WeakMap<Members, number>();
const retired = new WeakSet<Members>();

/** The member lists of the packed families among `parts` (plain parts are never retired). */
export const packedMembers = (parts: readonly FamilyLines[]): Members[] =>
  parts.flatMap((part) => (isPacked(part) ? [part.members] : []));

/** Marks the families' members as read until the function it returns is called (once: later calls do nothing). */
export function readMembers(families: readonly Members[]): () => void {
  for (const members of families) readers.set(members, (readers.get(members) ?? 0) + 1);
  let done = false;
  return () => {
    if (done) return;
    done = true;
    for (const members of families) {
      const left = (readers.get(members) ?? 1) - 1;
      if (left > 0) {
        readers.set(members, left);
        continue;
      }
      readers.delete(members);
      if (retired.has(members)) {
        retired.delete(members);
        releaseAll(members);
      }
    }
  };
}

/** Frees the members of a family no longer served: now if nothing reads them, else after their last reader. */
export function retireMembers(members: Members): void {
  if (readers.has(members)) retired.add(members);
  else releaseAll(members);
}

/**
 * After a poll: the packed families of the last state and of the poll's outcome that are not among
 * those now served are retired. The last state's were replaced (scrapes may still read them); an
 * outcome's that were not taken are a decoder's new copy of an unchanged family, which nothing else has.
 */
export function retireUnserved(sets: readonly (Families | undefined)[], served: Families | undefined): void {
  const kept = new Set(served?.map(([, lines]) => lines));
  const seen = new Set<FamilyLines>();
  for (const families of sets)
    for (const [, lines] of families ?? []) {
      if (!isPacked(lines) || kept.has(lines) || seen.has(lines)) continue;
      seen.add(lines);
      retireMembers(lines.members);
    }
}
