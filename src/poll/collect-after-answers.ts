import type { Collect } from "../lib/collector.js";

// A decoder thread's young generation, after a large answer, holds the last of its garbage, among it
// buffers whose memory only the collector frees (zlib's output, families handed over): V8 collects it
// once more is allocated, which a warm thread idle between polls does not do. Until then that memory
// stayed in glibc's arena, among what the next poll allocated, and left holes there when at last freed.
// Collecting the young generation once the thread's answers are done frees it while nothing else is
// allocated. 100k targets, gzip, Node 24, the image's env, alternated: RSS between polls 5-8 MB lower,
// CPU the same within the noise (a scavenge of a few MiB of young generation). A full collection freed
// about as much and cost ~150 ms of CPU a poll (the thread's whole heap marked and compacted by V8's
// helper threads).

/** Answer bytes read (as they came, compressed or not) since the last collection that make one worth it. */
export const BYTES_WORTH_COLLECTING = 2 ** 20;
/** How long no answer is open before collecting: a poll's answers end at about the same time. */
export const QUIET_MS = 100;

/** When a decoder thread collects its young generation: once its answers, large enough together, are done. */
export class CollectAfterAnswers {
  private bytes = 0;
  private timer: NodeJS.Timeout | undefined;
  /** Collections so far. */
  collections = 0;

  /** The collector, taken at the first collection (`take`): a thread that never streams never takes one. */
  private collect: Collect | undefined;
  private taken = false;

  constructor(
    private readonly take: () => Collect | undefined,
    private readonly quietMs = QUIET_MS,
    private readonly worthBytes = BYTES_WORTH_COLLECTING,
  ) {}

  /** Bytes of an answer read. */
  read(bytes: number): void {
    this.bytes += bytes;
  }

  /** An answer opened: a collection waiting is put off until the answers are done again. */
  opened(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** An answer ended (read, given up or dropped), `open` still open. */
  ended(open: number): void {
    if (open > 0 || this.bytes < this.worthBytes) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.bytes = 0;
      if (!this.taken) {
        this.taken = true;
        this.collect = this.take();
      }
      if (this.collect === undefined) return;
      this.collections++;
      this.collect({ type: "minor" });
    }, this.quietMs);
    this.timer.unref();
  }
}
