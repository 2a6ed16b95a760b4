import { promisify } from "node:util";
import { gunzip } from "node:zlib";
import { type FamilyLines, isPacked, plainLength } from "./pack.js";

const inflate = promisify(gunzip);

// A member's plain bytes, while something still holds them (a response writing them, or garbage not yet
// collected), or while they are being inflated: scrapes at the same time share them rather than each
// inflating the same bytes. Only weak references: this never keeps plain bytes alive.
const inflated = new WeakMap<Uint8Array, WeakRef<Buffer> | Promise<Buffer>>();

function memberText(member: Uint8Array, size: number): Promise<Buffer> {
  // Looked up and set in one go (no await in between), so scrapes at the same time find each other.
  const known = inflated.get(member);
  const plain = known instanceof WeakRef ? known.deref() : known;
  if (plain) return Promise.resolve(plain);
  // Output room for the whole member, so it comes out in one piece rather than 16 KiB pieces joined.
  const pending = inflate(member, { chunkSize: Math.max(64, size + 64) }).then(
    (text) => {
      inflated.set(member, new WeakRef(text));
      return text;
    },
    (error: unknown) => {
      inflated.delete(member);
      throw error;
    },
  );
  inflated.set(member, pending);
  return pending;
}

/**
 * The plain bytes of pieces, in order: plain ones as they are, a packed one member by member, each
 * inflated in the thread pool (never on the event loop) only when the consumer asks for the next
 * chunk. So a consumer that reads at its own pace (a response with backpressure) holds the plain
 * bytes of a member or two, never those of a whole family.
 */
export async function* plainChunks(parts: readonly FamilyLines[]): AsyncGenerator<Uint8Array> {
  for (const part of parts) {
    if (!isPacked(part)) {
      yield part;
      continue;
    }
    for (let i = 0; i < part.members.length; i++)
      yield await memberText(part.members[i] as Uint8Array, part.sizes[i] ?? 0);
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
