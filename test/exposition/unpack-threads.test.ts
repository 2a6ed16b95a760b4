import { afterEach, describe, expect, it, vi } from "vitest";

// zlib's inflateRaw, counted: how many members are inflating in the thread pool at any moment.
const pool = vi.hoisted(() => ({ now: 0, most: 0 }));
vi.mock("node:zlib", async (original) => {
  const zlib = await original<typeof import("node:zlib")>();
  const inflateRaw = (buffer: Uint8Array, options: object, done: (error: Error | null, result: Buffer) => void) => {
    pool.now++;
    pool.most = Math.max(pool.most, pool.now);
    zlib.inflateRaw(buffer, options, (error, result) => {
      pool.now--;
      done(error, result);
    });
  };
  return { ...zlib, inflateRaw };
});

const { packLines } = await import("../../src/exposition/pack.js");
const { INFLATE_AHEAD, INFLATE_THREADS, plainChunks } = await import("../../src/exposition/unpack.js");

/** `count` sample lines of about 100 bytes each, `seed` changing their values. */
function lines(count: number, seed: number): Buffer {
  let text = "";
  for (let i = 0; i < count; i++)
    text += `promstatus_target_up{source="prom",scrape_pool="node",instance="host-${i}.example:9100"} ${i * seed}\n`;
  return Buffer.from(text);
}

async function read(chunks: AsyncGenerator<Uint8Array>): Promise<Buffer> {
  const out: Uint8Array[] = [];
  for await (const chunk of chunks) out.push(chunk);
  return Buffer.concat(out);
}

afterEach(() => {
  pool.most = 0;
});

describe("plainChunks in the thread pool", () => {
  it("inflates members ahead of the one a scrape is writing, in more than one thread", async () => {
    const text = lines(60_000, 1); // ~6 MB: six members
    const packed = packLines(text);
    expect(packed.members.length).toBeGreaterThan(INFLATE_AHEAD);
    expect((await read(plainChunks([packed]))).equals(text)).toBe(true);
    // One scrape alone keeps both of its threads busy (Node's pool of 4, half of it).
    expect(pool.most).toBeGreaterThan(1);
    expect(pool.most).toBeLessThanOrEqual(INFLATE_THREADS);
  });

  it("never inflates in more than half of Node's thread pool, however many scrapes there are", async () => {
    // Twelve scrapes of twelve families (nothing shared between them), all at once.
    const texts = Array.from({ length: 12 }, (_, i) => lines(30_000, i + 2));
    const bodies = await Promise.all(texts.map((text) => read(plainChunks([packLines(text)]))));
    bodies.forEach((body, i) => {
      expect(body.equals(texts[i] as Buffer)).toBe(true);
    });
    expect(pool.most).toBe(INFLATE_THREADS);
  });

  it("leaves no failure unhandled when a scrape stops before the members it asked for ahead", async () => {
    const packed = packLines(lines(60_000, 7));
    // A member that is not deflate data: its inflation fails after the scrape is gone.
    packed.members[2] = Buffer.from([0xff, 0xff, 0xff, 0xff]);
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    try {
      const chunks = plainChunks([packed]);
      await chunks.next();
      await chunks.return(undefined);
      await vi.waitFor(() => expect(pool.now).toBe(0));
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(unhandled).toEqual([]);
      // The failure is still the scrape's when it gets that far.
      await expect(read(plainChunks([packed]))).rejects.toThrow();
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });
});
