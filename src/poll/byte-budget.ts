interface Share {
  held: number;
}

/**
 * Bytes that answers read whole may hold at once while they wait for their decoder. A download takes
 * bytes as its pieces arrive and waits (its socket paused) while the budget is spent. The oldest
 * download holding bytes never waits, so one always goes on and gives its bytes back: none waits for
 * ever, and at most one answer's size is ever over the budget.
 */
export class ByteBudget {
  private used = 0;
  /** Shares holding bytes, oldest first. */
  private readonly holders = new Set<Share>();
  private readonly waiting: { share: Share; bytes: number; resolve(): void }[] = [];

  constructor(private readonly limit: () => number) {}

  /** A share of the budget for one answer: take as pieces arrive, give all back at the end. */
  share(signal?: AbortSignal): { take(bytes: number): Promise<void>; giveBack(): void } {
    const share: Share = { held: 0 };
    return {
      take: async (bytes) => {
        if (this.mustWait(share, bytes)) await this.wait(share, bytes, signal);
        else this.grant(share, bytes);
      },
      giveBack: () => {
        this.used -= share.held;
        share.held = 0;
        this.holders.delete(share);
        this.wake();
      },
    };
  }

  /** Bytes held now. */
  get inUse(): number {
    return this.used;
  }

  private mustWait(share: Share, bytes: number): boolean {
    const oldest = this.holders.values().next().value;
    return oldest !== undefined && oldest !== share && this.used + bytes > this.limit();
  }

  private grant(share: Share, bytes: number): void {
    this.used += bytes;
    share.held += bytes;
    this.holders.add(share);
  }

  private wait(share: Share, bytes: number, signal: AbortSignal | undefined): Promise<void> {
    return new Promise((resolve, reject) => {
      const abort = () => {
        const i = this.waiting.indexOf(waiter);
        if (i >= 0) this.waiting.splice(i, 1);
        reject(signal?.reason);
      };
      const waiter = {
        share,
        bytes,
        resolve: () => {
          signal?.removeEventListener("abort", abort);
          resolve();
        },
      };
      signal?.addEventListener("abort", abort, { once: true });
      this.waiting.push(waiter);
    });
  }

  private wake(): void {
    while (this.waiting.length > 0) {
      const next = this.waiting[0] as (typeof this.waiting)[number];
      if (this.mustWait(next.share, next.bytes)) return;
      this.waiting.shift();
      this.grant(next.share, next.bytes); // counted now, so the next waiter sees it
      next.resolve();
    }
  }
}
