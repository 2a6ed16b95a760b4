import { describe, expect, it } from "vitest";
import { TargetSummariser } from "../../src/convert/targets.js";
import { renderTargets, renderTargetsKept } from "../../src/exposition/target-lines.js";
import type { ActiveTarget } from "../../src/upstream/payloads.js";

// KeepPieces promises pieces of whole lines "at most `pieceBytes` each unless one line is longer"
// (pack-cache.ts relies on it: "each at most a member's worth"). Pieces share one buffer; a line longer
// than a piece gets memory of its own, and the pieces after it are cut at pieceBytes again (they were
// once cut at the long line's size: an upstream label value of a few MiB made every following gzip
// member of that family a few MiB of plain lines, each inflated whole when served).

function summary(count: number, longAt: number, longBytes: number) {
  const summariser = new TargetSummariser({ perTarget: true, extraLabels: [] });
  for (let i = 0; i < count; i++) {
    const target: ActiveTarget = {
      labels: { job: "job", instance: i === longAt ? "x".repeat(longBytes) : `host-${i}:9100` },
      scrapePool: "job",
      health: "up",
      lastError: "",
      lastScrape: "2026-11-21T04:59:43.422194916Z",
      lastScrapeDuration: i / 1000,
      scrapeInterval: "30s",
      scrapeTimeout: "10s",
    };
    summariser.add(target);
  }
  return summariser.finish({ droppedTargets: [], droppedTargetCounts: undefined });
}

describe("FamilyWriter.pieces after a line longer than a piece", () => {
  it("keeps every piece of more than one line within pieceBytes", () => {
    const pieceBytes = 1000;
    const longBytes = 20_000;
    const plain = renderTargets(summary(500, 0, longBytes), 'source="p"');
    const sizes: { lines: number; bytes: number }[] = [];
    const kept = renderTargetsKept(
      summary(500, 0, longBytes),
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
