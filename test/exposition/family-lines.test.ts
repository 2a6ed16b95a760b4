import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { afterEach, describe, expect, it, vi } from "vitest";
import { TargetsRounds } from "../../scripts/bench/generate.js";
import { SampleSet } from "../../src/convert/samples.js";
import type { TargetSeries } from "../../src/convert/series-columns.js";
import type { TargetTable } from "../../src/convert/target-table.js";
import { PER_TARGET_FAMILIES, type TargetsSummary } from "../../src/convert/targets.js";
import { packPieces } from "../../src/exposition/pack.js";
import { renderTargets, renderTargetsKept } from "../../src/exposition/target-lines.js";
import { LinesArena } from "../../src/lib/lines-arena.js";
import type { DecoderMemory } from "../../src/poll/decode-types.js";
import { TargetsDecoder } from "../../src/poll/targets-fast-path.js";
import { decodeOptions } from "../helpers/decode-options.js";

// The per-target families' lines are written by a WebAssembly line writer (assembly/family-lines.ts)
// from rendered labels kept in its memory (src/lib/lines-arena.ts), and by JavaScript where it is not
// there (target-lines.ts' FamilyWriter). Both must give the same bytes, in the same pieces.

afterEach(() => vi.restoreAllMocks());

// One memory for every case (an instance each would reserve address space for each until a collection).
const arena = LinesArena.create() as LinesArena;

/** Series whose rendered labels are blocks in a line writer's memory; `hidden`: the same, the memory not told. */
function arenaSeries(blocks: readonly Uint8Array[], values: readonly (readonly number[])[]) {
  arena.clear();
  const starts = blocks.map((block) => {
    const at = arena.reserve(block.length);
    arena.bytes.set(block, at);
    return at;
  });
  const base: TargetSeries = {
    value: (v, i) => values[v]?.[i] ?? Number.NaN,
    pairsLength: (i) => blocks[i]?.length ?? 0,
    writePairs: (out, offset, i) => {
      const start = starts[i] as number;
      return arena.bytes.copy(out, offset, start, start + (blocks[i]?.length ?? 0));
    },
  };
  return {
    inArena: { ...base, linesArena: arena, pairsStartOf: (i: number) => starts[i] as number },
    hidden: base,
  };
}

function summaryOf(series: TargetSeries, order: number[]): TargetsSummary {
  return { series, order: Uint32Array.from(order), pools: new SampleSet() };
}

/** Each family's pieces, copied as they come (the next is written over the last). */
function pieces(summary: TargetsSummary, prefix: string, pieceBytes: number) {
  const seen: { name: string; pieces: string[]; atLeast: number }[] = [];
  renderTargetsKept<string>(
    summary,
    prefix,
    () => "whole",
    undefined,
    (written, name, atLeast) => {
      seen.push({ name, pieces: Array.from(written, (p) => Buffer.from(p).toString("latin1")), atLeast });
      return "kept";
    },
    pieceBytes,
  );
  return seen;
}

// Values each way of writing them: from the digits (m / 10^s), by JavaScript (exponents, more than 15
// digits, infinities), none (NaN), and the edges between.
const EDGE_VALUES = [
  0,
  -0,
  1,
  -1,
  0.5,
  1.5e-7,
  1e-6,
  0.000001234,
  9.99999e-7,
  1764230000.123,
  1764230000.1234567,
  0.012345678,
  0.1 + 0.2,
  Math.PI,
  -Math.E,
  999999999999999,
  1e15,
  123456789012345.6,
  1e21,
  2 ** 53,
  Number.MIN_VALUE,
  Number.MAX_VALUE,
  Number.POSITIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
  Number.NaN,
  // Every count of digits (1 to 15) at every scale (0 to 9): all nines, a one and zeros, every digit.
  ...Array.from({ length: 15 }, (_, d) => d + 1).flatMap((digits) =>
    Array.from({ length: 10 }, (_, scale) =>
      [10 ** digits - 1, 10 ** (digits - 1), Number("1234567890123456".slice(0, digits))].map((m) => m / 10 ** scale),
    ).flat(),
  ),
];

const block = fc
  .array(fc.constantFrom('job="a"', ',instance="h:9100"', "é", "\u{1F600}", 'x="\\""', ",", "z".repeat(300)), {
    maxLength: 6,
  })
  .map((parts) => Buffer.from(parts.join(""), "utf8"));
const value = fc.oneof(
  fc.constantFrom(...EDGE_VALUES),
  fc.double(),
  fc.integer({ min: -1e6, max: 1e6 }).map((m) => m / 1000),
  fc.integer({ min: 0, max: 2 ** 31 }).map((ns) => ns / 1e9),
  // Up to 15 digits at any scale, as counts, timestamps and durations are.
  fc
    .tuple(fc.integer({ min: 1, max: 999_999_999_999_999 }), fc.integer({ min: 0, max: 9 }), fc.boolean())
    .map(([m, scale, negative]) => (negative ? -m : m) / 10 ** scale),
);

describe("the WebAssembly line writer", () => {
  it("runs here", () => {
    expect(arena).toBeInstanceOf(LinesArena);
  });

  it("writes the lines and pieces the JavaScript writer writes, whatever the labels, values and piece size", () => {
    const used = vi.spyOn(LinesArena.prototype, "pieces");
    fc.assert(
      fc.property(
        fc.array(block, { minLength: 1, maxLength: 40 }),
        fc.array(fc.array(value, { minLength: 40, maxLength: 40 }), { minLength: 5, maxLength: 5 }),
        fc.constantFrom("", 'source="p"', 'source="é"'),
        fc.constantFrom(64, 300, 1000, 2 ** 20),
        (blocks, values, prefix, pieceBytes) => {
          const { inArena, hidden } = arenaSeries(blocks, values);
          // Any order, some series not written at all.
          const order = blocks.map((_, i) => i).filter((i) => i % 5 !== 4);
          order.reverse();
          const wasm = pieces(summaryOf(inArena, order), prefix, pieceBytes);
          const js = pieces(summaryOf(hidden, order), prefix, pieceBytes);
          expect(wasm.map(({ name, pieces }) => ({ name, pieces }))).toEqual(
            js.map(({ name, pieces }) => ({ name, pieces })),
          );
          // The bound it hands on is never above the bytes written.
          for (const { pieces, atLeast } of wasm) expect(atLeast).toBeLessThanOrEqual(pieces.join("").length);
          // The same bytes as the lines written whole.
          const whole = renderTargets(summaryOf(hidden, order), prefix).families;
          expect(wasm.map(({ name, pieces }) => [name, pieces.join("")])).toEqual(
            whole.map(([name, lines]) => [name, Buffer.from(lines).toString("latin1")]),
          );
        },
      ),
      { numRuns: 300 },
    );
    expect(used).toHaveBeenCalled();
  });

  it("writes runs of one value as the JavaScript writer does (the writer reuses the last value's text)", () => {
    // Runs of one value, edge values and values JavaScript writes among them, -0 after 0, NaN (no line)
    // inside a run: the text kept from the value before must be the one written, and only then.
    const run = fc.tuple(fc.oneof(value, fc.constant(-0)), fc.integer({ min: 1, max: 6 }), fc.boolean());
    fc.assert(
      fc.property(fc.array(run, { minLength: 1, maxLength: 12 }), (runs) => {
        const column = runs.flatMap(([x, n, gap]) => {
          const values = Array.from({ length: n }, () => x);
          if (gap && n > 1) values[1] = Number.NaN;
          return values;
        });
        const blocks = column.map((_, i) => Buffer.from(`job="j",instance="h-${i}"`));
        const values = PER_TARGET_FAMILIES.map((_, v) => (v === 0 ? column : column.map(() => 1)));
        const { inArena, hidden } = arenaSeries(blocks, values);
        const order = blocks.map((_, i) => i);
        const written = (families: ReturnType<typeof pieces>) => families.map(({ name, pieces }) => ({ name, pieces }));
        expect(written(pieces(summaryOf(inArena, order), "", 300))).toEqual(
          written(pieces(summaryOf(hidden, order), "", 300)),
        );
      }),
      { numRuns: 300 },
    );
  });

  it("writes every edge value as the JavaScript writer does, in a family large enough to be packed", () => {
    const n = 5000;
    const blocks = Array.from({ length: n }, (_, i) => Buffer.from(`job="j",instance="host-${i}:9100"`));
    const values = PER_TARGET_FAMILIES.map((_, v) =>
      Array.from({ length: n }, (_, i) => EDGE_VALUES[(i + v) % EDGE_VALUES.length] as number),
    );
    const { inArena, hidden } = arenaSeries(blocks, values);
    const order = blocks.map((_, i) => i);
    const wasm = pieces(summaryOf(inArena, order), 'source="p"', 2 ** 20);
    expect(wasm.map((f) => f.name)).toEqual([...PER_TARGET_FAMILIES]);
    expect(wasm).toEqual(
      pieces(summaryOf(hidden, order), 'source="p"', 2 ** 20).map((f, i) => ({ ...f, atLeast: wasm[i]?.atLeast })),
    );
    const text = wasm.map((f) => f.pieces.join("")).join("");
    for (const written of ["} +Inf\n", "} -Inf\n", "} 1e+21\n", "} 5e-324\n", "} 0.30000000000000004\n", "} 0\n"])
      expect(text).toContain(written);
    expect(text).not.toContain("NaN");
  });
});

describe("a source's table of series", () => {
  it("keeps a large answer's rendered labels in the line writer's memory, a small one's in a Buffer", () => {
    const kept = new Map<string, unknown>();
    const memory: DecoderMemory = { take: (key) => kept.get(key), keep: (key, table) => kept.set(key, table) };
    const options = decodeOptions();
    const tableOf = (targets: number) => {
      kept.clear();
      const decoder = new TargetsDecoder(options, memory);
      decoder.write(new TargetsRounds(targets).answer(0));
      // As a decoder thread finishes: large per-target families packed as they are written.
      const result = decoder.finishPacked(
        (lines) => lines,
        () => undefined,
        (pieces) => ({ ...packPieces(pieces), hash: "new" }),
      );
      expect(result).toBeDefined();
      return [...kept.values()][0] as TargetTable;
    };
    const large = tableOf(2000).linesArena as LinesArena;
    expect(large).toBeInstanceOf(LinesArena);
    // What it holds: the blocks and the room its lines were written in, not the memory's whole size.
    expect(large.held).toBeGreaterThan(large.used + 2 ** 20);
    expect(large.held).toBeLessThanOrEqual(large.bytes.length);
    expect(tableOf(10).linesArena).toBeUndefined();
  });
});

describe("without WebAssembly (node --jitless)", () => {
  it("keeps the rendered labels in a Buffer and writes the same lines in JavaScript", () => {
    const decode = (wasm: string, packed: string) => `
      const { TargetsRounds } = await import(${JSON.stringify(fileURLToPath(new URL("../../scripts/bench/generate.ts", import.meta.url)))});
      const { TargetsDecoder } = await import(${JSON.stringify(wasm)});
      const { packPieces } = await import(${JSON.stringify(packed)});
      const { createHash } = await import("node:crypto");
      const kept = new Map();
      const memory = { take: (k) => kept.get(k), keep: (k, t) => kept.set(k, t) };
      const options = { replicaFacts: false, perTarget: true, limit: undefined, targetLabels: [], labelPrefix: 'source="s"', maxBytes: 2 ** 28 };
      const rounds = new TargetsRounds(2000);
      const hashes = [];
      for (const round of [0, 1]) {
        const decoder = new TargetsDecoder(options, memory);
        decoder.write(rounds.answer(round));
        const hash = createHash("sha256");
        const result = decoder.finishPacked(
          (lines) => { hash.update(lines); return lines; },
          () => undefined,
          (pieces) => { for (const piece of pieces) hash.update(piece); return packPieces([]); },
        );
        hashes.push([result.series, hash.digest("hex")]);
      }
      console.log(JSON.stringify({ hashes, inWasm: [...kept.values()][0].linesArena !== undefined }));`;
    const run = (flags: string[]) => {
      const script = decode(
        fileURLToPath(new URL("../../src/poll/targets-fast-path.ts", import.meta.url)),
        fileURLToPath(new URL("../../src/exposition/pack.ts", import.meta.url)),
      );
      const child = spawnSync(process.execPath, [...flags, "--import", "tsx", "--input-type=module", "-e", script], {
        encoding: "utf8",
      });
      expect(child.status, child.stderr).toBe(0);
      return JSON.parse(child.stdout) as { hashes: [number, string][]; inWasm: boolean };
    };
    const jitless = run(["--jitless"]);
    const wasm = run([]);
    expect(jitless.inWasm).toBe(false);
    expect(wasm.inWasm).toBe(true);
    expect(jitless.hashes).toEqual(wasm.hashes);
    expect(jitless.hashes[0]?.[0]).toBeGreaterThan(2000);
  }, 60_000);
});
