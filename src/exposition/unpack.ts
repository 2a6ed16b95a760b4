import { promisify } from "node:util";
import { constants, inflateRaw } from "node:zlib";
import pLimit from "p-limit";
import { readMembers } from "./member-readers.js";
import { type FamilyLines, isPacked, type PackedLines, plainLength } from "./pack.js";

/** Plain lines written again, in a buffer to hand back (`written`) once the response took them. */
export interface AgainPiece {
  bytes: Uint8Array;
  written(): void;
}

/** A packed family's plain lines written again by what wrote them (a decoder thread), piece by piece. */
export interface LinesWrittenAgain {
  /** The next piece; null once all were written; undefined when writing stopped (the rest is in the members). */
  next(): Promise<AgainPiece | null | undefined>;
  /** Ends the writing: pieces not handed back yet are dropped. */
  close(): void;
}

/** A packed family's lines written again, or undefined when nothing can write them. */
export type WriteAgain = (family: PackedLines) => LinesWrittenAgain | undefined;

const inflateRawAsync = promisify(inflateRaw);
/** A member's plain bytes: deflate data that ends in a sync flush, not a final block (gzip-stream.ts). */
const inflate = (member: Uint8Array, options: { chunkSize: number }) =>
  inflateRawAsync(member, { ...options, finishFlush: constants.Z_SYNC_FLUSH });

/**
 * Members inflating at once, all scrapes together: half of Node's thread pool (4 threads unless
 * UV_THREADPOOL_SIZE says otherwise), so however many plain scrapes arrive, the rest of the pool is
 * left to what polls need of it (gunzipping answers, DNS lookups).
 */
export const INFLATE_THREADS = Math.max(1, Math.floor((Number(process.env.UV_THREADPOOL_SIZE) || 4) / 2));
const inflateSlot = pLimit(INFLATE_THREADS);

// A member's plain bytes, while something still holds them (a response writing them, or garbage not yet
// collected), or while they are being inflated: scrapes at the same time share them rather than each
// inflating the same bytes. Only weak references: this never keeps plain bytes alive.
const inflated = new WeakMap<Uint8Array, WeakRef<Buffer> | Promise<Buffer>>();

function memberText(members: readonly Uint8Array[], i: number, size: number): Promise<Buffer> {
  const member = members[i] as Uint8Array;
  // Looked up and set in one go (no await in between), so scrapes at the same time find each other.
  const known = inflated.get(member);
  const plain = known instanceof WeakRef ? known.deref() : known;
  if (plain) return Promise.resolve(plain);
  // Read from the moment it is queued until the thread pool is done with it (member-readers.ts).
  const done = readMembers([members]);
  // Output room for the whole member, so it comes out in one piece rather than 16 KiB pieces joined.
  const pending = inflateSlot(() => inflate(member, { chunkSize: Math.max(64, size + 64) })).then(
    (text) => {
      done();
      inflated.set(member, new WeakRef(text));
      return text;
    },
    (error: unknown) => {
      done();
      inflated.delete(member);
      throw error;
    },
  );
  inflated.set(member, pending);
  return pending;
}

/**
 * Members one scrape asks for ahead of the one it is writing. Inflating a 1 MiB member takes its output
 * in fresh pages (the image's MALLOC_MMAP_THRESHOLD_), so inflating them one at a time made a plain
 * scrape of 63 MB (100k targets) take ~95 ms against ~26 ms for the same bytes from memory; three ahead,
 * inflated by two threads, ~40 ms.
 */
export const INFLATE_AHEAD = 3;

/**
 * The plain bytes of pieces, in order: plain ones as they are, a packed one member by member, each
 * inflated in the thread pool (never on the event loop), INFLATE_AHEAD ahead of the one the consumer
 * holds, and only as the consumer asks for more. So a consumer that reads at its own pace (a response
 * with backpressure) holds the plain bytes of a few members, never those of a family. Scrapes at the
 * same time share what they inflate (memberText), so however many there are, they hold no more than
 * one plain copy of the exposition between them.
 */
export async function* plainChunks(parts: readonly FamilyLines[], from = 0): AsyncGenerator<Uint8Array> {
  // `from`: plain bytes of the parts already had, skipped (whole members not inflated).
  let skip = from;
  for (const part of parts) {
    if (!isPacked(part)) {
      if (skip < part.byteLength) yield skip > 0 ? part.subarray(skip) : part;
      skip = Math.max(0, skip - part.byteLength);
      continue;
    }
    let first = 0;
    while (first < part.members.length && skip >= (part.sizes[first] as number)) skip -= part.sizes[first++] as number;
    const text = (i: number) => {
      const plain = memberText(part.members, i, part.sizes[i] ?? 0);
      // A member asked for ahead is never awaited if the client goes away first: its failure is not
      // left unhandled (which would end the process); one that is awaited still throws there.
      plain.catch(() => {});
      return plain;
    };
    const ahead: Promise<Buffer>[] = [];
    let next = first;
    for (; next < Math.min(first + INFLATE_AHEAD, part.members.length); next++) ahead.push(text(next));
    while (ahead.length > 0) {
      const plain = await (ahead.shift() as Promise<Buffer>);
      if (next < part.members.length) ahead.push(text(next++));
      yield skip > 0 ? plain.subarray(skip) : plain;
      skip = 0;
    }
  }
}

/** The pieces as one plain buffer (for answers built whole, such as a probe's). */
export async function plainText(parts: readonly FamilyLines[]): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of plainChunks(parts)) chunks.push(chunk);
  return Buffer.concat(
    chunks,
    parts.reduce((n, part) => n + plainLength(part), 0),
  );
}
