import { afterEach, describe, expect, it, vi } from "vitest";
import { convertTargets, TargetSummariser } from "../../src/convert/targets.js";
import { renderTargets, renderTargetsKept } from "../../src/exposition/target-lines.js";
import { renderSampleSet } from "../../src/exposition/text-format.js";
import type { ActiveTarget, TargetsResponse } from "../../src/upstream/payloads.js";

/** `count` targets in three pools; `instance` may name a target's instance otherwise (a long one). */
function summary(count: number, instance = (i: number) => `host-${i}:9100`, duration = (i: number) => i / 1000) {
  const summariser = new TargetSummariser({ perTarget: true, extraLabels: [] });
  for (const target of activeTargets(count, instance, duration)) summariser.add(target);
  return summariser.finish({ droppedTargets: [], droppedTargetCounts: undefined });
}

function activeTargets(
  count: number,
  instance: (i: number) => string,
  duration: (i: number) => number,
): ActiveTarget[] {
  const targets: ActiveTarget[] = [];
  for (let i = 0; i < count; i++) {
    targets.push({
      labels: { job: `job-${i % 3}`, instance: instance(i) },
      scrapePool: `job-${i % 3}`,
      health: i % 7 === 0 ? "down" : "up",
      lastError: i % 7 === 0 ? "connection refused" : "",
      lastScrape: "2026-11-21T04:59:43.422194916Z",
      lastScrapeDuration: duration(i),
      scrapeInterval: "30s",
      scrapeTimeout: "10s",
    });
  }
  return targets;
}

afterEach(() => vi.restoreAllMocks());

describe("renderTargets", () => {
  it("writes the lines convertTargets and renderSampleSet write, whatever the values' text takes", () => {
    // Values of 20 characters (3.141592653589793e-7) and more: more text than the room first set aside
    // for a family's formatted values, which then grows; infinities and zero too.
    const duration = (i: number) =>
      i % 50 === 0 ? Number.POSITIVE_INFINITY : i % 50 === 1 ? 0 : Math.PI * 1e-7 * (i + 1) + i * 1e9;
    const instance = (i: number) => `host-${i}:9100`;
    const fast = renderTargets(summary(500, instance, duration), 'source="p"');
    const payload = {
      status: "success",
      data: { activeTargets: activeTargets(500, instance, duration), droppedTargets: [] },
    };
    const reference = renderSampleSet(
      convertTargets(payload as TargetsResponse, { perTarget: true, extraLabels: [] }),
      'source="p"',
    );
    const text = (families: typeof fast.families) =>
      families.map(([name, lines]) => [name, Buffer.from(lines).toString("latin1")]);
    expect(text(fast.families)).toEqual(text(reference));
    expect(Buffer.from(fast.families.find(([n]) => n.includes("duration"))?.[1] ?? []).toString()).toContain(
      "} +Inf\n",
    );
  });
});

describe("renderTargetsKept", () => {
  it("hands each family to keep as soon as it is written, before the next one is rendered", () => {
    const plain = renderTargets(summary(500), 'source="p"');
    const events: string[] = [];
    const allocUnsafe = Buffer.allocUnsafe.bind(Buffer);
    vi.spyOn(Buffer, "allocUnsafe").mockImplementation((size: number) => {
      events.push("render");
      return allocUnsafe(size);
    });
    const kept = renderTargetsKept(summary(500), 'source="p"', (lines) => {
      events.push("keep");
      return { token: Buffer.from(lines).toString("latin1") };
    });
    vi.restoreAllMocks();

    // The five per-target families: each one's buffers (its values' text, its lines) are kept before the
    // next one's are allocated, so a decoder thread that packs in `keep` holds one family's plain lines at
    // a time.
    const runs = events.filter((event, i) => event !== events[i - 1]);
    expect(runs.slice(0, 10)).toEqual(Array.from({ length: 5 }, () => ["render", "keep"]).flat());
    // Same families, same order, same bytes as the plain rendering; what keep returned in their place.
    expect(kept.series).toBe(plain.series);
    expect(kept.families.map(([name, l]) => [name, l.token])).toEqual(
      plain.families.map(([name, lines]) => [name, Buffer.from(lines).toString("latin1")]),
    );
  });

  it("hands a family over in pieces of whole lines, no larger than asked unless one line is, the same bytes in the end", () => {
    const plain = renderTargets(summary(500), 'source="p"');
    const pieceBytes = 1000;
    const seen: { name: string; sizes: number[]; text: string }[] = [];
    const kept = renderTargetsKept(
      summary(500),
      'source="p"',
      (lines) => Buffer.from(lines).toString("latin1"),
      undefined,
      (pieces, name, bytes) => {
        // Each piece read as it comes: the next is written over it.
        const parts = Array.from(pieces, (p) => Buffer.from(p).toString("latin1"));
        const text = parts.join("");
        expect(text.length).toBe(bytes);
        seen.push({ name, sizes: parts.map((p) => p.length), text });
        for (const part of parts) expect(part.endsWith("\n")).toBe(true);
        return text;
      },
      pieceBytes,
    );
    expect(seen.map((s) => s.name)).toEqual(plain.families.slice(0, 5).map(([name]) => name));
    for (const { sizes } of seen) {
      expect(sizes.length).toBeGreaterThan(10);
      expect(Math.max(...sizes)).toBeLessThanOrEqual(pieceBytes);
    }
    expect(kept.families).toEqual(plain.families.map(([name, lines]) => [name, Buffer.from(lines).toString("latin1")]));
    // A line longer than a piece is a piece of its own.
    const long = renderTargetsKept<Uint8Array[]>(
      summary(3),
      "",
      (l) => [l],
      undefined,
      (pieces) => Array.from(pieces, (p) => Uint8Array.from(p)),
      10,
    );
    for (const [, pieces] of long.families.slice(0, 5)) {
      for (const piece of pieces) expect(Buffer.from(piece).toString().split("\n").length).toBe(2);
    }
  });

  it("writes every piece of a family into the same memory (no fresh pages for each piece)", () => {
    // Pieces of 64 KiB: never from Node's shared pool of small buffers (8 KiB on Node 20, 64 KiB on 24),
    // so pieces in fresh memory would each have an ArrayBuffer of their own.
    const pieceBytes = 64 * 1024;
    const memory = new Map<string, Set<ArrayBufferLike>>();
    let pieces = 0;
    renderTargetsKept(
      summary(3000),
      'source="p"',
      (lines) => lines,
      undefined,
      (all, name) => {
        for (const piece of all) {
          pieces++;
          memory.set(name, (memory.get(name) ?? new Set()).add(piece.buffer));
        }
        return undefined; // written whole after all
      },
      pieceBytes,
    );
    expect(pieces).toBeGreaterThan(5 * 2);
    expect(memory.size).toBe(5);
    // One buffer per family, however many pieces it was written in.
    for (const buffers of memory.values()) expect(buffers.size).toBe(1);
  });

  // KeepPieces promises pieces of whole lines "at most `pieceBytes` each unless one line is longer"
  // (pack-cache.ts relies on it: "each at most a member's worth"). Pieces share one buffer; a line longer
  // than a piece gets memory of its own, and the pieces after it are cut at pieceBytes again (they were
  // once cut at the long line's size: an upstream label value of a few MiB made every following gzip
  // member of that family a few MiB of plain lines, each inflated whole when served).
  it("keeps every piece of more than one line within pieceBytes after a line longer than a piece", () => {
    const pieceBytes = 1000;
    const longBytes = 20_000;
    const long = (i: number) => (i === 0 ? "x".repeat(longBytes) : `host-${i}:9100`);
    const plain = renderTargets(summary(500, long), 'source="p"');
    const sizes: { lines: number; bytes: number }[] = [];
    const kept = renderTargetsKept(
      summary(500, long),
      'source="p"',
      (lines) => Buffer.from(lines).toString("latin1"),
      undefined,
      (pieces) => {
        const parts = Array.from(pieces, (p) => Buffer.from(p).toString("latin1"));
        for (const part of parts) sizes.push({ lines: part.split("\n").length - 1, bytes: part.length });
        return parts.join("");
      },
      pieceBytes,
    );
    // The bytes are right either way: only the pieces' sizes break the promise.
    expect(kept.families).toEqual(plain.families.map(([name, lines]) => [name, Buffer.from(lines).toString("latin1")]));
    expect(sizes.some((s) => s.bytes > longBytes)).toBe(true); // the long line is met (in each family)
    const oversized = sizes.filter((s) => s.lines > 1 && s.bytes > pieceBytes);
    expect(oversized, `pieces of several lines larger than ${pieceBytes} bytes`).toEqual([]);
  });
});
