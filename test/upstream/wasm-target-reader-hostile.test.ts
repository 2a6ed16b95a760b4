import fc from "fast-check";
import { beforeEach, describe, expect, it } from "vitest";
import { identityHash } from "../../src/convert/identity-hash.js";
import { TargetsAnswerReader, wasmReaderFor } from "../../src/upstream/targets/answer-reader.js";
import { TARGET_FIELDS } from "../../src/upstream/targets/scanner.js";
import type { TargetRead } from "../../src/upstream/targets/target-read.js";

// A hostile upstream against the WebAssembly targets reader: every answer here is read by the reader
// with the module and by the JavaScript scanner alone, and both must hand over the same targets (texts,
// spans, flags) and end the same way; an answer either accepts must be JSON. The module's window is
// shared by the readers of the same keys in a thread, so the bytes past a piece's zero guard are filled
// with garbage (quotes, backslashes, bytes above ASCII, braces) before each write.

const FIELDS = TARGET_FIELDS;
const LABELS = ["job", "instance", "jo", "jobs", "a", "b", "é", ""];

const GARBAGE = [
  Buffer.from('"'),
  Buffer.from("\\"),
  Buffer.from([0x80]),
  Buffer.from("}"),
  Buffer.from('"}'),
  Buffer.from('\\"'),
  Buffer.from("1"),
  Buffer.from(" "),
  Buffer.from([0xff, 0x22]),
];

/** A canonical text of a target handed over: everything a consumer reads, -0 told from 0. */
function describeTarget(t: TargetRead): string {
  const a = t.toActiveTarget();
  return JSON.stringify([
    a,
    Object.is(t.lastScrapeDuration, -0) ? "-0" : null,
    [t.poolStart, t.poolEnd, t.poolFlags, t.lastScrapeStart, t.lastScrapeEnd, t.lastScrapeFlags],
    [...t.labelStart],
    [...t.labelEnd],
    [...t.labelFlags],
    t.plain(),
    t.identityHashed ? t.identityHash : identityHash(t.bytes, t.poolStart, t.poolEnd, t.labelStart, t.labelEnd),
    t.health,
    t.lastError,
    t.scrapePool,
    t.lastScrape ?? null,
  ]);
}

interface Outcome {
  answer: string;
  reads: string[];
  byWasm: number;
  threw: string | undefined;
}

function readOnce(
  bytes: Buffer,
  cuts: readonly number[],
  useWasm: boolean,
  labels: readonly string[],
  garbage: Buffer | undefined,
): Outcome {
  const reads: string[] = [];
  const reader = new TargetsAnswerReader(labels, (t) => reads.push(describeTarget(t)), undefined, useWasm);
  const shared = useWasm ? wasmReaderFor(labels) : undefined;
  // The garbage goes where the reader reads: its window is the shared instance's.
  const window = (reader as unknown as { window: Buffer }).window;
  if (shared !== undefined && window !== shared.window) throw new Error("not the reader's instance");
  let threw: string | undefined;
  const write = (piece: Buffer) => {
    if (shared !== undefined && garbage !== undefined) shared.window.fill(garbage);
    try {
      reader.write(piece);
    } catch (e) {
      threw = String(e);
    }
  };
  let from = 0;
  for (const cut of [...new Set(cuts.map((c) => Math.min(c, bytes.length)))].sort((a, b) => a - b)) {
    write(Buffer.from(bytes.subarray(from, cut)));
    from = cut;
  }
  write(Buffer.from(bytes.subarray(from)));
  let answer: string;
  try {
    answer = JSON.stringify(reader.end()) ?? "undefined";
  } catch (e) {
    answer = `threw ${String(e)}`;
  }
  return { answer, reads, byWasm: reader.wasmTargets, threw };
}

/** Random answers per property; PROMSTATUS_HOSTILE_RUNS raises it for a longer hunt. */
const RUNS = Number(process.env.PROMSTATUS_HOSTILE_RUNS ?? 5000);
let cases = 0;
let wasmTargets = 0;
const failures: string[] = [];

/** Both readers on the bytes; the first difference as text, or undefined. */
function differs(
  bytes: Buffer,
  cuts: readonly number[] = [],
  labels: readonly string[] = LABELS,
  garbage?: Buffer,
): string | undefined {
  cases++;
  const wasm = readOnce(bytes, cuts, true, labels, garbage);
  const js = readOnce(bytes, cuts, false, labels, undefined);
  wasmTargets += wasm.byWasm;
  const show = () => `input ${JSON.stringify(bytes.toString("latin1"))} cuts ${JSON.stringify(cuts)}`;
  if (wasm.threw !== undefined || js.threw !== undefined) return `${show()}: write threw ${wasm.threw} / ${js.threw}`;
  if (wasm.answer !== js.answer) return `${show()}: end() wasm ${wasm.answer} js ${js.answer}`;
  for (let i = 0; i < Math.max(wasm.reads.length, js.reads.length); i++)
    if (wasm.reads[i] !== js.reads[i]) return `${show()}: target ${i} wasm ${wasm.reads[i]} js ${js.reads[i]}`;
  if (wasm.answer !== "undefined") {
    try {
      JSON.parse(bytes.toString("utf8"));
    } catch {
      return `${show()}: accepted, yet not JSON`;
    }
  }
  return undefined;
}

/**
 * Both readers on the bytes, with each garbage past the guard (or, for the large loops, the next one in
 * turn); a difference is kept in `failures`.
 */
function check(bytes: Buffer, cuts: readonly number[] = [], labels: readonly string[] = LABELS, every = true): void {
  for (const garbage of every ? [undefined, ...GARBAGE] : [GARBAGE[cases % (GARBAGE.length + 1)]]) {
    const d = differs(bytes, cuts, labels, garbage);
    if (d !== undefined) {
      failures.push(d);
      return;
    }
  }
}

const answerOf = (...targets: string[]) =>
  Buffer.from(`{"status":"success","data":{"activeTargets":[${targets.join(",")}],"droppedTargets":[]}}`);
const plainTarget = (pool = "p", extra = "") =>
  `{"labels":{"job":"j","instance":"i"${extra}},"scrapePool":"${pool}","health":"up","lastError":"","lastScrape":"2026-11-21T05:00:00Z","lastScrapeDuration":0.5,"scrapeInterval":"15s","scrapeTimeout":"10s"}`;

// --- pieces of a hostile target ---------------------------------------------------------------------

const ESCAPES = [
  '\\"',
  "\\\\",
  "\\/",
  "\\b",
  "\\f",
  "\\n",
  "\\r",
  "\\t",
  "\\u00e9",
  "\\u0041",
  "\\uD83D\\uDE00",
  "\\uDFFF",
];
const BAD_ESCAPES = ["\\x", "\\u12G4", "\\u12", "\\U0041", "\\", "\\'", "\\0"];
const rawBytes = (...b: number[]) => Buffer.from(b).toString("latin1");
const stringBody = fc
  .array(
    fc.oneof(
      { weight: 6, arbitrary: fc.stringMatching(/^[a-z0-9 :.\-_/]{0,20}$/) },
      { weight: 3, arbitrary: fc.constantFrom(...ESCAPES) },
      { weight: 1, arbitrary: fc.constantFrom(...BAD_ESCAPES) },
      { weight: 2, arbitrary: fc.constantFrom("é", "€", "😀", rawBytes(0xff), rawBytes(0x80), rawBytes(0xc3)) },
      { weight: 1, arbitrary: fc.constantFrom(rawBytes(0x00), rawBytes(0x1f), rawBytes(0x0a), rawBytes(0x7f)) },
    ),
    { maxLength: 6 },
  )
  .map((parts) => parts.join(""));
const str = stringBody.map((s) => `"${s}"`);
const ws = fc.constantFrom("", "", "", " ", "\n", "\t\r ", " \u000b", "\u00a0");
const NUMBERS = [
  "0",
  "-0",
  "-0.0",
  "0.5",
  "01",
  "-",
  "1.",
  "1e",
  "1e+",
  "1e-",
  "1E5",
  "1e309",
  "-1e309",
  "1e-400",
  "123456789012345678901234567890",
  "9007199254740993",
  ".5",
  "+1",
  "1.5e+3",
  "-01",
  "0x10",
  "1_0",
  "Infinity",
  "NaN",
  "2.",
  "0e0",
  "1e00000000000000000000000001",
];
const number = fc.oneof(fc.constantFrom(...NUMBERS), fc.double({ noNaN: true, noDefaultInfinity: true }).map(String));
const deep = fc
  .tuple(fc.integer({ min: 60, max: 67 }), fc.boolean())
  .map(([d, obj]) => (obj ? `${'{"k":'.repeat(d)}1${"}".repeat(d)}` : `${"[".repeat(d)}${"]".repeat(d)}`));
const value: fc.Arbitrary<string> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    str,
    number,
    fc.constantFrom("true", "false", "null", "tru", "nul", "falsey", "nulll", "True"),
    fc.array(tie("value"), { maxLength: 3 }).map((vs) => `[${vs.join(",")}]`),
    fc
      .array(fc.tuple(str, tie("value")), { maxLength: 3 })
      .map((ms) => `{${ms.map(([k, v]) => `${k}:${v}`).join(",")}}`),
    deep,
  ),
})).value;
const fieldKey = fc.oneof(
  fc.constantFrom(...FIELDS),
  fc.constantFrom(
    "label",
    "labelsx",
    "scrapePoo",
    "health ",
    "lastScrapeDurationX",
    "lastScrap",
    "discoveredLabels",
    "scrapeUrl",
    "labe\\u006cs",
    "scrape\\u0050ool",
    "lab\u00e9ls",
    "",
    `labels${rawBytes(0xff)}`,
  ),
);
const labelKey = fc.oneof(
  fc.constantFrom(...LABELS),
  fc.constantFrom(
    "jo\\u0062",
    "j\\u006f",
    "instanc",
    "instancee",
    "\\u00e9",
    "e\u0301",
    rawBytes(0xe9),
    "c",
    "__name__",
  ),
);
const labelsObject = fc
  .array(fc.tuple(labelKey, ws, fc.oneof({ weight: 9, arbitrary: str }, { weight: 1, arbitrary: value })), {
    maxLength: 5,
  })
  .map((ms) => `{${ms.map(([k, s, v]) => `"${k}"${s}:${s}${v}`).join(",")}}`);
const memberValue = (key: string) => {
  if (key === "labels") return fc.oneof({ weight: 8, arbitrary: labelsObject }, { weight: 1, arbitrary: value });
  if (key === "lastScrapeDuration") return fc.oneof({ weight: 8, arbitrary: number }, { weight: 1, arbitrary: value });
  if (key === "health") return fc.oneof(fc.constantFrom('"up"', '"down"', '"unknown"', '"u\\u0070"', '"UP"'), str);
  return fc.oneof({ weight: 8, arbitrary: str }, { weight: 1, arbitrary: value });
};
const member = fieldKey.chain((k) => fc.tuple(fc.constant(k), ws, ws, memberValue(k)));
const target = fc
  .tuple(fc.array(member, { maxLength: 9 }), ws, fc.boolean())
  .map(
    ([ms, s, trailing]) =>
      `{${s}${ms.map(([k, a, b, v]) => `"${k}"${a}:${b}${v}`).join(`${s},`)}${trailing ? "," : ""}${s}}`,
  );
const element = fc.oneof({ weight: 9, arbitrary: target }, { weight: 1, arbitrary: value });

// The same shapes, valid JSON: most such targets are the module's to read, so what it reads is compared.
const validStr = fc
  .array(
    fc.oneof(
      { weight: 6, arbitrary: fc.stringMatching(/^[a-z0-9 :.\-_/]{0,24}$/) },
      { weight: 3, arbitrary: fc.constantFrom(...ESCAPES) },
      { weight: 2, arbitrary: fc.constantFrom("é", "€", "😀", rawBytes(0xff), rawBytes(0x80), rawBytes(0xc3)) },
    ),
    { maxLength: 6 },
  )
  .map((parts) => `"${parts.join("")}"`);
const validWs = fc.constantFrom("", "", "", " ", "\n", "\t\r ");
const validNumber = fc.oneof(
  fc.constantFrom("0", "-0", "-0.0", "0.5", "1E5", "1e309", "-1e309", "1e-400", "9007199254740993", "1.5e+3", "0e0"),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map(String),
);
const validValue: fc.Arbitrary<string> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    validStr,
    validNumber,
    fc.constantFrom("true", "false", "null"),
    fc.array(tie("value"), { maxLength: 3 }).map((vs) => `[${vs.join(",")}]`),
    fc
      .array(fc.tuple(validStr, tie("value")), { maxLength: 3 })
      .map((ms) => `{${ms.map(([k, v]) => `${k}:${v}`).join(",")}}`),
  ),
})).value;
const validLabels = fc
  .array(fc.tuple(labelKey, validWs, validStr), { maxLength: 5 })
  .map((ms) => `{${ms.map(([k, s, v]) => `"${k}"${s}:${s}${v}`).join(",")}}`);
const validMember = fc
  .constantFrom(...FIELDS, "discoveredLabels", "scrapeUrl", "label", "labelsx", "lab\u00e9ls", "")
  .chain((k) =>
    fc.tuple(
      fc.constant(k),
      validWs,
      k === "labels"
        ? fc.oneof({ weight: 9, arbitrary: validLabels }, { weight: 1, arbitrary: validValue })
        : k === "lastScrapeDuration"
          ? fc.oneof({ weight: 9, arbitrary: validNumber }, { weight: 1, arbitrary: validValue })
          : fc.oneof({ weight: 9, arbitrary: validStr }, { weight: 1, arbitrary: validValue }),
    ),
  );
const validTarget = fc
  .uniqueArray(validMember, { maxLength: 10, selector: ([k]) => k })
  .chain((ms) => fc.tuple(fc.constant(ms), validWs, fc.boolean()))
  .map(([ms, s, dup]) => {
    const members = ms.map(([k, w, v]) => `${w}"${k}"${w}:${w}${v}${w}`);
    // Now and then a field twice (the module leaves that to the scanner, which gives up).
    if (dup && members.length > 0 && ms.length % 7 === 0) members.push(members[0] as string);
    return `{${s}${members.join(",")}${s}}`;
  });

describe("the WebAssembly targets reader against a hostile upstream", { timeout: 120_000 }, () => {
  beforeEach(() => {
    failures.length = 0;
  });

  it("hands over random hostile targets as the scanner does, cut anywhere, with garbage past the guard", () => {
    fc.assert(
      fc.property(
        fc.array(element, { minLength: 1, maxLength: 6 }),
        fc.array(fc.nat({ max: 2000 }), { maxLength: 6 }),
        fc.constantFrom(...GARBAGE),
        (targets, cuts, garbage) => {
          const d = differs(answerOf(...targets), cuts, LABELS, garbage);
          expect(d).toBeUndefined();
        },
      ),
      { numRuns: RUNS },
    );
  });

  it("hands over random valid targets as the scanner does, cut anywhere, with garbage past the guard", () => {
    const before = wasmTargets;
    let total = 0;
    fc.assert(
      fc.property(
        fc.array(validTarget, { minLength: 1, maxLength: 6 }),
        fc.array(fc.nat({ max: 2000 }), { maxLength: 4 }),
        fc.constantFrom(...GARBAGE),
        (targets, cuts, garbage) => {
          total += targets.length;
          expect(differs(answerOf(...targets), cuts, LABELS, garbage)).toBeUndefined();
        },
      ),
      { numRuns: RUNS },
    );
    expect(wasmTargets - before).toBeGreaterThan(0.3 * total);
  });

  it("agrees on token soup: targets of JSON's punctuation, field names and odd bytes in any order", () => {
    const token = fc.constantFrom(
      '"',
      '"',
      '"',
      "\\",
      ":",
      ",",
      "{",
      "}",
      "[",
      "]",
      " ",
      "u",
      "0",
      "1",
      "e",
      "-",
      ".",
      "+",
      "a",
      "true",
      "nul",
      '"labels"',
      '"labels":{',
      '"job":',
      '"scrapePool":',
      '"lastScrapeDuration":',
      '"health":"up"',
      "\\u00",
      "\\uD800",
      rawBytes(0x80),
      rawBytes(0xff),
      rawBytes(0x00),
      rawBytes(0x1f),
      "é",
    );
    const soupTarget = fc.array(token, { maxLength: 40 }).map((ts) => `{${ts.join("")}}`);
    fc.assert(
      fc.property(
        fc.array(fc.oneof(soupTarget, target), { minLength: 1, maxLength: 4 }),
        fc.array(fc.nat({ max: 600 }), { maxLength: 3 }),
        fc.constantFrom(...GARBAGE),
        (targets, cuts, garbage) => {
          expect(differs(answerOf(...targets), cuts, LABELS, garbage)).toBeUndefined();
        },
      ),
      { numRuns: RUNS },
    );
  });

  it("never traps, and reads a target the same whatever lies past the guard, wherever the piece ends in the window", () => {
    // write() turns any exception (a trap included) into giving up, so the module is called here directly.
    const shared = wasmReaderFor(LABELS);
    if (shared === undefined) throw new Error("no instance");
    const full = 256 * 1024;
    fc.assert(
      fc.property(
        fc.oneof(validTarget, target),
        fc.nat({ max: 40 }),
        fc.constantFrom(...GARBAGE),
        fc.boolean(),
        (text, cutBy, garbage, atEnd) => {
          const bytes = Buffer.from(text, "latin1");
          const length = Math.max(0, bytes.length - (cutBy % 3 === 0 ? cutBy : 0));
          const n = atEnd ? full : 1000 + length;
          const p = n - length;
          // Read with zeros past the guard, then with garbage: the same end and, when read, the same record.
          const readWith = (past: Buffer | number) => {
            shared.window.fill(past);
            bytes.copy(shared.window, p, 0, length);
            shared.window.fill(0, n, n + 8);
            const end = shared.target(p, n);
            return { end, record: end >= 0 ? [...shared.record] : [] };
          };
          const clean = readWith(0);
          expect(clean.end === -1 || (clean.end > p && clean.end <= n)).toBe(true);
          expect(readWith(garbage)).toEqual(clean);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it("agrees on single-byte mutations of valid answers", () => {
    const base = answerOf(plainTarget("p1"), plainTarget("p\\u00e9", ',"a":"é\\n"'), plainTarget("pool-three"));
    const interesting = [
      0x22, 0x5c, 0x00, 0x1f, 0x20, 0x2c, 0x3a, 0x7b, 0x7d, 0x5b, 0x5d, 0x80, 0xff, 0x30, 0x2d, 0x65, 0x75,
    ];
    for (let at = 0; at < base.length; at++)
      for (const byte of interesting) {
        const replaced = Buffer.from(base);
        replaced[at] = byte;
        check(replaced, [], LABELS, false);
        check(Buffer.concat([base.subarray(0, at), Buffer.from([byte]), base.subarray(at)]), [], LABELS, false);
      }
    for (let at = 0; at < base.length; at++) check(Buffer.concat([base.subarray(0, at), base.subarray(at + 1)]));
    expect(failures).toEqual([]);
  });

  it("agrees on escapes, bytes above ASCII and control bytes at every place relative to 16-byte blocks", () => {
    const inserts = [
      ...ESCAPES,
      ...BAD_ESCAPES,
      "é",
      rawBytes(0xff),
      rawBytes(0x80),
      rawBytes(0x00),
      rawBytes(0x1f),
      "\\u00",
    ];
    for (let pad = 0; pad < 34; pad++)
      for (let at = 0; at < 36; at++)
        for (const ins of inserts) {
          const body = `${"x".repeat(at)}${ins}${"y".repeat(Math.max(0, 20 - at))}`;
          const prefix = " ".repeat(pad);
          const targets = [
            `${prefix}{"labels":{"job":"${body}"},"scrapePool":"p"}`,
            `{"scrapePool":"${body}","health":"up"}`,
            `{"x":"${body}","lastScrape":"${body}","labels":{}}`,
            `{"${body}":1,"scrapePool":"q"}`,
          ];
          check(answerOf(...targets), [], LABELS, false);
        }
    expect(failures).toEqual([]);
  });

  it("agrees wherever the answer is cut, on every byte (a \\u escape cut by the guard included)", () => {
    const answer = answerOf(
      `{"labels":{"job":"a\\u00e9b","instance":"\\uD83D\\uDE00"},"scrapePool":"p\\"q","lastScrapeDuration":-1.5e-3,"health":"down","x":[{"y":[true,false,null]}]}`,
      plainTarget("éé"),
      `{"lastError":"${"\\\\".repeat(20)}","scrapeInterval":"1m","scrapeTimeout":"${"z".repeat(40)}\\u0041"}`,
    );
    for (let at = 0; at <= answer.length; at++)
      for (const g of [undefined, ...GARBAGE]) {
        const d = differs(answer, [at], LABELS, g);
        if (d !== undefined) failures.push(d);
      }
    for (let at = 0; at < answer.length; at += 3) {
      const d = differs(answer, [at, at + 1, at + 2, at + 7], LABELS, Buffer.from("\\"));
      if (d !== undefined) failures.push(d);
    }
    expect(failures).toEqual([]);
  });

  it("agrees on every number edge as lastScrapeDuration, with whitespace around it", () => {
    for (const n of NUMBERS)
      for (const s of ["", " ", "\n", "\t"])
        for (const after of ["}", ',"x":1}', `${s}}`, ' ,"scrapePool":"p"}'])
          check(answerOf(`{"lastScrapeDuration"${s}:${s}${n}${after}`, `{"scrapePool":"p","lastScrapeDuration":${n}}`));
    expect(failures).toEqual([]);
  });

  it("agrees on nesting at depth 62 to 66 in unread fields and labels", () => {
    for (let d = 60; d <= 67; d++) {
      const arr = `${"[".repeat(d)}${"]".repeat(d)}`;
      const obj = `${'{"k":'.repeat(d)}null${"}".repeat(d)}`;
      const mixed = `${'[{"k":'.repeat(d >> 1)}1${"}]".repeat(d >> 1)}`;
      for (const v of [arr, obj, mixed, `${arr.slice(0, -1)}`, `${obj}}`]) {
        check(answerOf(`{"x":${v},"scrapePool":"p"}`));
        check(answerOf(`{"labels":{"job":${v}},"scrapePool":"p"}`));
        check(answerOf(`{"labels":${v},"scrapePool":"p"}`));
      }
    }
    expect(failures).toEqual([]);
  });

  it("agrees on targets at the window's end (256 KiB) in a single chunk", () => {
    const head = '{"status":"success","data":{"activeTargets":[';
    const t = plainTarget("p", ',"a":"\\u00e9"');
    for (let shift = -80; shift <= 80; shift++) {
      // Filler target so that the second target's bytes straddle the window's end at `shift`.
      const fillLen = 256 * 1024 - head.length - t.length + shift - 40;
      const filler = `{"x":"${"f".repeat(Math.max(0, fillLen))}"}`;
      check(answerOf(filler, t, t), [], LABELS, false);
      check(answerOf(filler, `{"lastScrapeDuration":12345}`, t), [], LABELS, false);
      check(answerOf(filler, `{"scrapePool":"${"\\u0041".repeat(10)}"}`, t), [], LABELS, false);
    }
    expect(failures).toEqual([]);
  });

  it("agrees with many label names (47-49), names of 62-64 bytes, equal lengths, non-ASCII names", () => {
    const sets: string[][] = [];
    for (const count of [47, 48, 49])
      sets.push(Array.from({ length: count }, (_, i) => `l${String(i).padStart(2, "0")}`));
    for (const len of [62, 63, 64]) sets.push(["job", "x".repeat(len), `${"x".repeat(len - 1)}y`]);
    sets.push(["é", "e", "ab", "ba", "aa", "bb", "ü", "\uD800", "a\uFFFD", "job"]);
    sets.push(["job", "job", "instance"]);
    sets.push(["", "job"]);
    sets.push(
      Array.from({ length: 48 }, (_, i) => `${"k".repeat(62)}${String.fromCharCode(65 + (i % 26))}`.slice(-63)),
    );
    for (const labels of sets) {
      const pairs = labels.map((l, i) => `${JSON.stringify(l)}:"v${i}"`);
      const rawPairs = labels.map((l, i) => `"${l}":"w${i}\\u00e9"`);
      const targets = [
        `{"labels":{${pairs.join(",")}},"scrapePool":"p"}`,
        `{"labels":{${rawPairs.join(",")}},"scrapePool":"p"}`,
        `{"labels":{${[...pairs].reverse().join(",")},${pairs.join(",")}},"scrapePool":"p"}`,
        `{"labels":{"${"x".repeat(63)}":"a","${"x".repeat(64)}":"b","${"x".repeat(65)}":"c"}}`,
      ];
      const bytes = answerOf(...targets);
      for (const g of [undefined, ...GARBAGE]) {
        const d = differs(bytes, [], labels, g);
        if (d !== undefined) failures.push(d);
      }
    }
    expect(failures).toEqual([]);
  });

  it("agrees when readers of the same and of other labels are interleaved piece by piece", () => {
    const answers = [
      answerOf(plainTarget("a"), `{"scrapePool":"${"\\\\".repeat(30)}"}`, plainTarget("b")),
      answerOf(`{"labels":{"job":"${"q".repeat(100)}"}}`, plainTarget("é")),
      answerOf(plainTarget("c", ',"a":"1"')),
    ];
    const labelSets = [LABELS, LABELS, ["job", "a"]];
    for (const step of [1, 2, 5, 16, 17, 31, 64, 100]) {
      const reads: string[][] = answers.map(() => []);
      const readers = answers.map(
        (_, i) =>
          new TargetsAnswerReader(labelSets[i] as string[], (t) => (reads[i] as string[]).push(describeTarget(t))),
      );
      const longest = Math.max(...answers.map((a) => a.length));
      for (let at = 0; at < longest; at += step)
        for (const [i, a] of answers.entries())
          if (at < a.length) readers[i]?.write(Buffer.from(a.subarray(at, Math.min(a.length, at + step))));
      for (const [i, a] of answers.entries()) {
        // The JavaScript scanner alone, fed the same pieces (a target cut by a piece is carried, its spans then the carry's).
        const cuts = Array.from({ length: Math.ceil(a.length / step) }, (_, j) => j * step);
        const alone = readOnce(a, cuts, false, labelSets[i] as string[], undefined);
        expect(JSON.stringify(readers[i]?.end()) ?? "undefined", `answer ${i} step ${step}`).toBe(alone.answer);
        expect(reads[i], `answer ${i} step ${step}`).toEqual(alone.reads);
        expect(alone.answer).not.toBe("undefined");
      }
    }
  });

  it("ran many cases, and the module read many targets itself", () => {
    console.log(`hostile cases: ${cases}, targets the module read: ${wasmTargets}`);
    expect(wasmTargets).toBeGreaterThan(1000);
  });
});
