// Reads a /metrics exposition as it streams in, without holding it: how many series each family has,
// and the lines of a few small families kept whole (a 500k-target exposition is ~350 MB of text).

export class ExpositionTally {
  /** Bytes of text read. */
  bytes = 0;
  /** Series (sample lines) per metric name. */
  readonly series = new Map<string, number>();
  /** Sample lines of the families asked for, whole. */
  readonly lines: string[] = [];
  private carry = "";

  constructor(private readonly keep: ReadonlySet<string>) {}

  push(chunk: Uint8Array): void {
    this.bytes += chunk.length;
    // latin1 maps every byte to one character, so a chunk cut inside a UTF-8 sequence is harmless:
    // names are ASCII, and kept lines are decoded again below.
    const text = this.carry + Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length).toString("latin1");
    const last = text.lastIndexOf("\n");
    if (last < 0) {
      this.carry = text;
      return;
    }
    this.carry = text.slice(last + 1);
    let at = 0;
    while (at <= last) {
      const end = text.indexOf("\n", at);
      this.line(text, at, end);
      at = end + 1;
    }
  }

  /** The end of the exposition: a last line without its newline is counted too. */
  end(): this {
    if (this.carry) this.line(this.carry, 0, this.carry.length);
    this.carry = "";
    return this;
  }

  private line(text: string, start: number, end: number): void {
    if (end === start || text.charCodeAt(start) === 0x23) return; // empty, or # HELP / # TYPE
    let stop = start;
    while (stop < end) {
      const c = text.charCodeAt(stop);
      if (c === 0x7b || c === 0x20) break; // { or space
      stop++;
    }
    const name = text.slice(start, stop);
    this.series.set(name, (this.series.get(name) ?? 0) + 1);
    if (this.keep.has(name)) this.lines.push(Buffer.from(text.slice(start, end), "latin1").toString("utf8"));
  }

  /** The value of the kept series of `name` whose labels include every pair given (NaN if none). */
  value(name: string, labels: Record<string, string> = {}): number {
    const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
    for (const line of this.lines) {
      const space = line.lastIndexOf(" ");
      const head = line.slice(0, space);
      const brace = head.indexOf("{");
      if ((brace < 0 ? head : head.slice(0, brace)) !== name) continue;
      const pairs = brace < 0 ? "" : head.slice(brace);
      if (wanted.every((pair) => pairs.includes(`{${pair}`) || pairs.includes(`,${pair}`)))
        return Number(line.slice(space + 1));
    }
    return Number.NaN;
  }
}
