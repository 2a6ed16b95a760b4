import { promisify } from "node:util";
import { gunzip } from "node:zlib";
import { type FamilyLines, isPacked, plainLength } from "./pack.js";

const inflate = promisify(gunzip);

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
    for (let i = 0; i < part.members.length; i++) {
      // Output room for the whole member, so it comes out in one piece rather than 16 KiB pieces joined.
      const size = part.sizes[i] ?? 0;
      yield await inflate(part.members[i] as Uint8Array, { chunkSize: Math.max(64, size + 64) });
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
