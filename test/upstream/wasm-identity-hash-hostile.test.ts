import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { identityHash } from "../../src/convert/identity-hash.js";
import { TargetsAnswerReader, wasmReaderFor } from "../../src/upstream/targets/answer-reader.js";

// The WebAssembly reader's identity hash (assembly/targets-scan.ts, record slot 0) against
// identityHash() over the spans it recorded, where the module reads words past a span's end and masks
// them: spans at a piece's end (answers larger than the 256 KiB window, cut anywhere), empty and absent
// labels, as many label keys as the module takes (48) and one more, and garbage past the zero guard
// (the window is shared by the readers of the same keys in a thread, so it holds whatever came before).

const keys = (n: number) => Array.from({ length: n }, (_, i) => (i === 0 ? "job" : i === 1 ? "instance" : `k${i}`));
const VALUES = ["", "a", "ab", "abc", "abcd", "abcde", "é", "\\u0041", 'q\\"', "\\\\", "x".repeat(11)];

interface Target {
  pool: string;
  labels: (string | undefined)[];
  /** The labels as the target's last field, their last span 3 bytes before its end (else the pool's 2). */
  labelsLast: boolean;
}

/** The answer, and where each target ends (a cut there ends a piece just after a span's end). */
function answer(targets: readonly Target[], names: readonly string[], pad: number): { bytes: Buffer; ends: number[] } {
  const text = targets.map(({ pool, labels, labelsLast }) => {
    const set = labels.flatMap((v, i) => (v === undefined ? [] : [`"${names[i]}":"${v}"`]));
    const rest = `"health":"up","lastError":"","lastScrape":"2026-11-21T05:00:00Z","lastScrapeDuration":1,"scrapeInterval":"15s","scrapeTimeout":"10s"`;
    return labelsLast
      ? `{${rest},"scrapePool":"${pool}","labels":{${set.join(",")}}}`
      : `{"labels":{${set.join(",")}},${rest},"scrapePool":"${pool}"}`;
  });
  // A first target padded so that the others' ends fall anywhere against the window's.
  const first = `{"labels":{"job":"${"p".repeat(pad)}"},"scrapePool":"pad","health":"up"}`;
  const head = `{"status":"success","data":{"activeTargets":[${first}`;
  const ends: number[] = [];
  let at = Buffer.byteLength(head);
  for (const t of text) {
    at += 1 + Buffer.byteLength(t);
    ends.push(at);
  }
  const bytes = Buffer.from(`${head}${text.map((t) => `,${t}`).join("")}],"droppedTargets":[]}}`);
  return { bytes, ends };
}

/** Reads `bytes` in the pieces `cuts` makes, garbage past the guard; each target's two hashes, module's first. */
function hashes(bytes: Buffer, cuts: readonly number[], names: readonly string[], garbage: number) {
  const pairs: [number, number][] = [];
  let byModule = 0;
  const reader = new TargetsAnswerReader(names, (t) => {
    if (!t.identityHashed) return;
    byModule++;
    pairs.push([t.identityHash, identityHash(t.bytes, t.poolStart, t.poolEnd, t.labelStart, t.labelEnd)]);
  });
  const shared = wasmReaderFor(names);
  let from = 0;
  for (const at of [...cuts.filter((c) => c < bytes.length).sort((a, b) => a - b), bytes.length]) {
    shared?.window.fill(garbage);
    reader.write(Buffer.from(bytes.subarray(from, at)));
    from = at;
  }
  return { pairs, byModule, ended: reader.end() !== undefined };
}

const target = (labelCount: number): fc.Arbitrary<Target> =>
  fc.record({
    pool: fc.constantFrom(...VALUES),
    labels: fc.array(fc.option(fc.constantFrom(...VALUES), { nil: undefined }), {
      minLength: labelCount,
      maxLength: labelCount,
    }),
    labelsLast: fc.boolean(),
  });

describe("the module's identity hash against identityHash() over its spans", () => {
  it.each([2, 47, 48])("is the same with %i label keys, spans at a piece's end, garbage past the guard", (n) => {
    const names = keys(n);
    let byModule = 0;
    fc.assert(
      fc.property(
        fc.array(target(n), { minLength: 1, maxLength: 12 }),
        fc.integer({ min: 0, max: 300 * 1024 }),
        fc.array(fc.integer({ min: 1, max: 400 * 1024 }), { maxLength: 2 }),
        fc.array(fc.nat(), { maxLength: 4 }),
        fc.constantFrom(0x00, 0x22, 0x5c, 0xff, 0x41),
        (targets, pad, cuts, atEnds, garbage) => {
          const { bytes, ends } = answer(targets, names, pad);
          const pieces = [...cuts, ...atEnds.map((i) => ends[i % ends.length] as number)];
          const read = hashes(bytes, pieces, names, garbage);
          expect(read.ended).toBe(true);
          for (const [module, js] of read.pairs) expect(module).toBe(js);
          byModule += read.byModule;
        },
      ),
      { numRuns: 60 },
    );
    expect(byModule).toBeGreaterThan(60); // the module read most of them
  });

  it("is not computed by the module with 49 label keys (the JavaScript scanner reads them)", () => {
    const names = keys(49);
    const { bytes } = answer([{ pool: "p", labels: names.map(() => "v"), labelsLast: true }], names, 0);
    const read = hashes(bytes, [], names, 0x22);
    expect(read.ended).toBe(true);
    expect(read.byModule).toBe(0);
  });
});
