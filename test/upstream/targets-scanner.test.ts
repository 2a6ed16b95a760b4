import { readdirSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { leanTargetsAnswer, targetsAnswer } from "../../scripts/bench/generate.js";
import { identityHash } from "../../src/convert/identity-hash.js";
import { type DecodeOptions, type DecodeResult, decodeAnswer } from "../../src/poll/decode.js";
import { decodeTargetsFast } from "../../src/poll/targets-fast-path.js";
import type { ActiveTarget } from "../../src/upstream/payloads.js";
import { scanTargetsAnswer, TargetsAnswerReader } from "../../src/upstream/targets/answer-reader.js";
import { fixtureText } from "../helpers/fixtures.js";
import { prometheus3Targets } from "../helpers/prometheus-3-targets.js";

// The scanner is a fast path beside the reference (JSON.parse and the zod schema): wherever it does not
// give up, the daemon must serve byte for byte what the reference path gives; on anything JSON.parse
// refuses it must give up, so the failure reason and message are the reference's own.

const NON_ASCII_NAMES = ["a\uFFFD", "\uFFFD", "\uFFFD\uFFFD", "\uFFFD\uFFFD\uFFFD", "\uD800", "é"];
/** Keys as raw bytes, valid or not, that decode to (or near) those names by WHATWG's rules. */
const RAW_KEYS = [
  [0x61, 0xff], // "a\uFFFD"
  [0xff],
  [0xc3], // a lead byte with nothing after it
  [0xe2, 0x82], // a three-byte sequence cut short: one U+FFFD
  [0xe2, 0x82, 0xc3], // two
  [0xed, 0xa0, 0x80], // a surrogate encoded as UTF-8 is invalid: three
  [0xf0, 0x9f, 0x98], // a four-byte sequence cut short: one
  [0xef, 0xbf, 0xbd], // U+FFFD itself
  [0xc3, 0xa9], // "é"
  [0x65, 0xcc, 0x81], // "e" and a combining accent: not "é"
];

const OPTION_SETS: DecodeOptions[] = [
  {
    replicaFacts: false,
    perTarget: true,
    limit: undefined,
    targetLabels: [],
    labelPrefix: 'source="s"',
    maxBytes: 2 ** 28,
  },
  {
    replicaFacts: true,
    perTarget: false,
    limit: undefined,
    targetLabels: [],
    labelPrefix: 'source="s"',
    maxBytes: 2 ** 28,
  },
  {
    replicaFacts: true,
    perTarget: true,
    limit: undefined,
    // Names an object has on its prototype, and one JSON.parse makes an own key of.
    targetLabels: [
      { from: "namespace", to: "namespace" },
      { from: "constructor", to: "ctor" },
      { from: "__proto__", to: "proto" },
    ],
    labelPrefix: 'source="s",group="g"',
    maxBytes: 2 ** 28,
  },
  {
    replicaFacts: false,
    perTarget: true,
    limit: undefined,
    // Names beyond ASCII, which keys written as invalid UTF-8 spell once decoded (RAW_KEYS below).
    targetLabels: NON_ASCII_NAMES.map((from, i) => ({ from, to: `n${i}` })),
    labelPrefix: 'source="s"',
    maxBytes: 2 ** 28,
  },
  // The flavors whose answers are published differently: no dropped counts, warnings always counted.
  {
    replicaFacts: true,
    perTarget: true,
    limit: undefined,
    targetLabels: [],
    labelPrefix: 'source="s"',
    maxBytes: 2 ** 28,
    flavor: "victoriametrics",
  },
  {
    replicaFacts: false,
    perTarget: false,
    limit: undefined,
    targetLabels: [],
    labelPrefix: 'source="s"',
    maxBytes: 2 ** 28,
    flavor: "thanos",
  },
];

/** Both paths' results, comparable (rendered lines as text, facts as plain arrays). */
function bothPaths(bytes: Buffer, options: DecodeOptions) {
  const job = { endpoint: "targets" as const, body: bytes, encoding: undefined, options };
  return { fast: comparable(decodeAnswer(job)), reference: comparable(decodeAnswer(job, { reference: true })) };
}

function comparable(result: DecodeResult) {
  if (!result.ok) return { ok: result.ok, reason: result.reason, message: result.message };
  const { ok } = result;
  const families = result.families.map(([name, lines]) => [name, Buffer.from(lines).toString("utf8")]);
  const facts =
    result.facts?.kind === "prometheus"
      ? { targets: [...result.facts.targets], health: [...result.facts.health] }
      : result.facts;
  return { ok, families, series: result.series, facts, warnings: result.warnings };
}

function expectSameOutput(bytes: Buffer, options: DecodeOptions) {
  const { fast, reference } = bothPaths(bytes, options);
  expect(fast).toEqual(reference);
  return reference;
}

const recorded = (): [string, string][] => [
  ["prometheus-targets.json (Debian's 2.42)", fixtureText("upstream/prometheus-targets.json")],
  ...readdirSync(new URL("../fixtures/upstream/groups/", import.meta.url))
    .filter((f) => f.includes("targets"))
    .map((f): [string, string] => [f, fixtureText(`upstream/groups/${f}`)]),
  [
    "Prometheus 3 model",
    prometheus3Targets(
      {
        active: [
          { scrapePool: "node", labels: { job: "node", instance: "a:9100" }, health: "up" },
          { scrapePool: "node", labels: { job: "node", instance: "b:9100" }, health: "down", lastError: "EOF" },
        ],
        pools: [{ name: "node", keptDropped: [{ __address__: "c:9100", job: "node" }], droppedCount: 4 }],
      },
      new URLSearchParams(),
    ),
  ],
  ["bench answer", targetsAnswer(300)],
  ["lean bench answer", leanTargetsAnswer(300)],
  // Other backends: VictoriaMetrics and vmagent 1.79.5 (real), 1.150.0 and Thanos Query 0.42.4 (cited fakes).
  ...backendTargets(),
];

function backendTargets(): [string, string][] {
  const files = (dir: string) =>
    readdirSync(new URL(`../fixtures/backends/${dir}/`, import.meta.url))
      .filter((f) => f.includes("targets") && f.endsWith(".json"))
      .map((f): [string, string] => [`${dir}/${f}`, fixtureText(`backends/${dir}/${f}`)]);
  return ["victoriametrics-1.79", "victoriametrics-1.150", "thanos-0.42"].flatMap(files);
}

describe("targets scanner: recorded answers", () => {
  it.each(recorded())("reads %s itself (no fallback) and serves what the reference serves", (_name, text) => {
    const bytes = Buffer.from(text);
    for (const options of OPTION_SETS) {
      expect(decodeTargetsFast(bytes, options)).toBeDefined();
      const result = expectSameOutput(bytes, options);
      expect(result.ok).toBe(true);
    }
  });

  it("gives up on every truncation of a recorded answer, so the reference's error stands", () => {
    const text = fixtureText("upstream/prometheus-targets.json");
    const bytes = Buffer.from(text);
    for (let end = 0; end < bytes.length - 1; end++) {
      const cut = bytes.subarray(0, end);
      // Whitespace at the end aside, a cut answer is not JSON.
      if (cut.toString().trim() === text.trim()) continue;
      expect(scanTargetsAnswer(cut, ["job", "instance"]), `cut at ${end}`).toBeUndefined();
      const { fast, reference } = bothPaths(cut, OPTION_SETS[0] as DecodeOptions);
      expect(fast).toEqual(reference);
      expect(reference.ok).toBe(false);
      expect(decodeAnswer(job(cut)).fallback, `cut at ${end}: said to have fallen back`).toBe(true);
    }
  });

  it("gives up wherever one byte of a recorded answer is changed into something JSON.parse refuses", () => {
    const bytes = Buffer.from(targetsAnswer(1));
    const replacements = [0x00, 0x0a, 0x22, 0x5c, 0x2c, 0x7d, 0x5d, 0x7b, 0x3a, 0x30, 0x41, 0xff];
    let refused = 0;
    for (let at = 0; at < bytes.length; at++) {
      for (const byte of replacements) {
        if (bytes[at] === byte) continue;
        const changed = Buffer.from(bytes);
        changed[at] = byte;
        const valid = parsesAsJson(changed);
        const scanned = scanTargetsAnswer(changed, ["job", "instance"]);
        if (!valid) {
          refused++;
          expect(scanned, `byte ${byte} at ${at}`).toBeUndefined();
        }
        expect(comparable(decodeAnswer(job(changed)))).toEqual(
          comparable(decodeAnswer(job(changed), { reference: true })),
        );
      }
    }
    expect(refused).toBeGreaterThan(500);
  });
});

const job = (body: Buffer) => ({
  endpoint: "targets" as const,
  body,
  encoding: undefined,
  options: OPTION_SETS[2] as DecodeOptions,
});

// --- random answers -------------------------------------------------------------------------------

/** A JSON text written piece by piece: random whitespace, escapes and raw (even invalid) UTF-8. */
type Json =
  | { kind: "object"; entries: [key: Str, value: Json][] }
  | { kind: "array"; items: Json[] }
  | { kind: "string"; value: Str }
  | { kind: "raw"; text: string };
/** A string's content: text, each character written plainly or as an escape; or raw bytes. */
type Str = { text: string; escapeEvery: number } | { bytes: number[] };

const text = fc.oneof(
  { weight: 4, arbitrary: fc.string({ maxLength: 12 }) },
  { weight: 2, arbitrary: fc.string({ unit: "binary", maxLength: 12 }) },
  { weight: 2, arbitrary: fc.constantFrom("", "up", "down", "unknown", "node", "30s", "15s", "2026-11-21T05:00:00Z") },
  { weight: 1, arbitrary: fc.constantFrom("123", "__proto__", "constructor", "job", "instance", 'a"b', "a\\b\n") },
);
const str: fc.Arbitrary<Str> = fc.oneof(
  { weight: 8, arbitrary: fc.record({ text, escapeEvery: fc.constantFrom(0, 0, 0, 1, 3) }) },
  { weight: 1, arbitrary: fc.record({ bytes: fc.array(fc.integer({ min: 0x80, max: 0xff }), { maxLength: 4 }) }) },
);
const scalar: fc.Arbitrary<Json> = fc.oneof(
  str.map((value) => ({ kind: "string" as const, value })),
  fc
    .oneof(
      fc.constantFrom("null", "true", "false", "0", "-0", "1e400", "-1.5E-3", "0.1", "123456789012345678901"),
      fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => JSON.stringify(n)),
    )
    .map((text) => ({ kind: "raw" as const, text })),
);
const key = (names: string[]) =>
  fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...names).map((t) => ({ text: t, escapeEvery: 0 })) },
    { weight: 1, arbitrary: fc.constantFrom(...names).map((t) => ({ text: t, escapeEvery: 2 })) },
    { weight: 1, arbitrary: str },
    { weight: 1, arbitrary: fc.constantFrom(...RAW_KEYS).map((bytes) => ({ bytes })) },
  );
const keyText = ([k]: [Str, Json]) => ("text" in k ? k.text : Buffer.from(k.bytes).toString());
/** An object of keys from `names` (or others): mostly each once, sometimes repeated (JSON.parse: last wins). */
const object = (names: string[], value: fc.Arbitrary<Json>, maxLength = 6) =>
  fc
    .oneof(
      { weight: 6, arbitrary: fc.uniqueArray(fc.tuple(key(names), value), { maxLength, selector: keyText }) },
      { weight: 1, arbitrary: fc.array(fc.tuple(key(names), value), { maxLength }) },
    )
    .map((entries): Json => ({ kind: "object", entries }));
const { nested } = fc.letrec<{ nested: Json }>((tie) => ({
  nested: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    scalar,
    fc.array(tie("nested"), { maxLength: 3 }).map((items): Json => ({ kind: "array", items })),
    object(["a", "job"], tie("nested"), 3),
  ),
}));
const stringValue = str.map((value): Json => ({ kind: "string", value }));
const plain = (text: string): Json => ({ kind: "string", value: { text, escapeEvery: 0 } });
const labelSet = fc.oneof(
  {
    weight: 20,
    arbitrary: object(
      ["job", "instance", "namespace", "constructor", "__proto__", "pod", ...NON_ASCII_NAMES],
      stringValue,
    ),
  },
  { weight: 1, arbitrary: nested },
);
const targetField = (name: string): fc.Arbitrary<[Str, Json]> => {
  const typical: Record<string, fc.Arbitrary<Json>> = {
    labels: labelSet,
    discoveredLabels: labelSet,
    // Often a target not scraped yet, as each server writes it: down, no error, a time at or before the epoch.
    health: fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom("up", "down", "unknown").map(plain) },
      { weight: 1, arbitrary: stringValue },
    ),
    lastError: fc.oneof({ weight: 3, arbitrary: fc.constant(plain("")) }, { weight: 1, arbitrary: stringValue }),
    lastScrape: fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom(...SCRAPE_TIMES).map(plain) },
      { weight: 1, arbitrary: stringValue },
    ),
    lastScrapeDuration: fc.double({ noNaN: true }).map((n) => ({ kind: "raw", text: JSON.stringify(n) })),
  };
  return fc.tuple(
    fc.constant({ text: name, escapeEvery: 0 }),
    fc.oneof({ weight: 40, arbitrary: typical[name] ?? stringValue }, { weight: 1, arbitrary: nested }),
  );
};
/** Never scraped (Prometheus, VictoriaMetrics in UTC and in Berlin, before the epoch), scraped, no time at all. */
const SCRAPE_TIMES = [
  "0001-01-01T00:00:00Z",
  "1970-01-01T00:00:00Z",
  "1970-01-01T01:00:00+01:00",
  "1969-12-31T23:59:59.999Z",
  "1970-01-01T00:00:00.001Z",
  "2026-11-21T05:16:23.528841722Z",
  "2026-11-21T06:16:23.528+01:00",
  "never",
];
const TARGET_NAMES = [
  "labels",
  "discoveredLabels",
  "scrapePool",
  "scrapeUrl",
  "health",
  "lastError",
  "lastScrape",
  "lastScrapeDuration",
  "scrapeInterval",
  "scrapeTimeout",
];
const fullTarget = fc
  .shuffledSubarray(TARGET_NAMES)
  .chain((names) => fc.tuple(...names.map(targetField)))
  .map((entries): Json => ({ kind: "object", entries }));
/** The order Prometheus writes a target's fields in (web/api/v1/api.go, 2.42 to 3.x). */
const PROMETHEUS_ORDER = [
  "discoveredLabels",
  "labels",
  "scrapePool",
  "scrapeUrl",
  "globalUrl",
  "lastError",
  "lastScrape",
  "lastScrapeDuration",
  "health",
  "scrapeInterval",
  "scrapeTimeout",
];
/** A target in Prometheus's order, some fields left out, and now and then one key escaped or one field repeated. */
const orderedTarget = fc
  .subarray(PROMETHEUS_ORDER)
  .chain((names) =>
    fc.tuple(fc.tuple(...names.map(targetField)), fc.nat(names.length), fc.nat(names.length), fc.nat(3)),
  )
  .map(([entries, at, to, change]): Json => {
    const fields = [...entries];
    const field = fields[at];
    if (field && change === 1) fields[at] = [{ text: keyText(field), escapeEvery: 2 }, field[1]];
    if (field && change === 2) fields.splice(to, 0, field);
    return { kind: "object", entries: fields };
  });
const target: fc.Arbitrary<Json> = fc.oneof(
  { weight: 20, arbitrary: fullTarget },
  { weight: 20, arbitrary: orderedTarget },
  { weight: 1, arbitrary: object(TARGET_NAMES, nested) },
  { weight: 1, arbitrary: nested },
);
const dropped = fc.oneof(
  { weight: 4, arbitrary: object(["scrapePool", "discoveredLabels"], fc.oneof(stringValue, labelSet)) },
  { weight: 1, arbitrary: nested },
);
const counts = object(
  ["node", "123", "__proto__", "constructor", ""],
  fc.oneof(
    { weight: 6, arbitrary: fc.nat().map((n): Json => ({ kind: "raw", text: String(n) })) },
    { weight: 1, arbitrary: scalar },
  ),
);
const list = (item: fc.Arbitrary<Json>) =>
  fc.oneof(
    { weight: 6, arbitrary: fc.array(item, { maxLength: 5 }).map((items): Json => ({ kind: "array", items })) },
    { weight: 1, arbitrary: scalar },
  );
const answer: fc.Arbitrary<Json> = fc
  .record(
    {
      status: fc.oneof(
        { weight: 8, arbitrary: fc.constant<Json>({ kind: "string", value: { text: "success", escapeEvery: 0 } }) },
        { weight: 1, arbitrary: scalar },
      ),
      data: fc.oneof(
        {
          weight: 8,
          arbitrary: fc
            .record(
              {
                activeTargets: list(target),
                droppedTargets: list(dropped),
                droppedTargetCounts: fc.oneof(counts, scalar),
              },
              { requiredKeys: [] },
            )
            .chain((fields) =>
              fc
                .shuffledSubarray(Object.entries(fields), { minLength: Object.keys(fields).length })
                .chain((entries) =>
                  fc.tuple(fc.constant(entries), fc.array(fc.tuple(key(["extra"]), nested), { maxLength: 1 })),
                ),
            )
            .map(
              ([entries, extra]): Json => ({
                kind: "object",
                entries: [...entries.map(([k, v]): [Str, Json] => [{ text: k, escapeEvery: 0 }, v]), ...extra],
              }),
            ),
        },
        { weight: 1, arbitrary: nested },
      ),
      // Thanos Query's: strings (a store that failed), sometimes something else.
      warnings: fc.oneof(
        {
          weight: 4,
          arbitrary: list(fc.oneof({ weight: 6, arbitrary: stringValue }, { weight: 1, arbitrary: nested })),
        },
        { weight: 1, arbitrary: nested },
      ),
    },
    { requiredKeys: [] },
  )
  .chain((fields) =>
    fc
      .shuffledSubarray(Object.entries(fields), { minLength: Object.keys(fields).length })
      .map((entries): Json => ({ kind: "object", entries: entries.map(([k, v]) => [{ text: k, escapeEvery: 0 }, v]) })),
  );

/** Writes `json` with whitespace from `spaces` (cycled). */
function write(json: Json, spaces: string[]): Buffer {
  const out: Buffer[] = [];
  let n = 0;
  const space = () => {
    const s = spaces.length ? (spaces[n++ % spaces.length] as string) : "";
    if (s) out.push(Buffer.from(s));
  };
  const writeString = (value: Str) => {
    out.push(Buffer.from('"'));
    if ("bytes" in value) out.push(Buffer.from(value.bytes));
    else {
      let i = 0;
      for (const ch of value.text) {
        const plain = JSON.stringify(ch).slice(1, -1);
        const escaped = value.escapeEvery > 0 && i++ % value.escapeEvery === 0;
        const code = ch.codePointAt(0) as number;
        if (escaped && code <= 0xffff) out.push(Buffer.from(`\\u${code.toString(16).padStart(4, "0")}`));
        else if (escaped && ch === "/") out.push(Buffer.from("\\/"));
        else out.push(Buffer.from(plain));
      }
    }
    out.push(Buffer.from('"'));
  };
  const walk = (j: Json) => {
    space();
    if (j.kind === "raw") out.push(Buffer.from(j.text));
    else if (j.kind === "string") writeString(j.value);
    else if (j.kind === "array") {
      out.push(Buffer.from("["));
      j.items.forEach((item, i) => {
        if (i) out.push(Buffer.from(","));
        walk(item);
      });
      space();
      out.push(Buffer.from("]"));
    } else {
      out.push(Buffer.from("{"));
      j.entries.forEach(([k, v], i) => {
        if (i) out.push(Buffer.from(","));
        space();
        writeString(k);
        space();
        out.push(Buffer.from(":"));
        walk(v);
      });
      space();
      out.push(Buffer.from("}"));
    }
    space();
  };
  walk(json);
  return Buffer.concat(out);
}

const spaces = fc.array(fc.constantFrom("", "", "", " ", "\n", "\t", "\r\n  "), { maxLength: 7 });

describe("targets scanner: random answers", () => {
  it("serves what the reference serves, or gives up (escapes, unicode, key order, whitespace, nulls, unknown nested fields, duplicates, wrong types)", () => {
    let read = 0;
    let accepted = 0;
    fc.assert(
      fc.property(answer, spaces, fc.constantFrom(...OPTION_SETS), (json, ws, options) => {
        const bytes = write(json, ws);
        const scanned = decodeTargetsFast(bytes, options) !== undefined;
        if (expectSameOutput(bytes, options).ok) {
          accepted++;
          if (scanned) read++;
        }
      }),
      { numRuns: 3000 },
    );
    // The fast path must be the one taken for answers of the usual shape, not a fallback every time.
    // Most answers the reference accepts must be read by the fast path itself, not handed back.
    expect(accepted).toBeGreaterThan(500);
    expect(read / accepted).toBeGreaterThan(0.5);
  });

  it("gives up on anything JSON.parse refuses: random answers cut short or with a byte changed", () => {
    fc.assert(
      fc.property(answer, spaces, fc.nat(), fc.integer({ min: 0, max: 255 }), (json, ws, at, byte) => {
        const whole = write(json, ws);
        for (const bytes of [whole.subarray(0, at % whole.length), withByte(whole, at % whole.length, byte)]) {
          const valid = parsesAsJson(bytes);
          if (!valid) expect(scanTargetsAnswer(bytes, ["job", "instance"])).toBeUndefined();
          expectSameOutput(bytes, OPTION_SETS[2] as DecodeOptions);
        }
      }),
      { numRuns: 2000 },
    );
  });
});

/** Whether JSON.parse takes the bytes (as the reference path reads them). */
function parsesAsJson(bytes: Buffer): boolean {
  try {
    JSON.parse(bytes.toString("utf8"));
    return true;
  } catch {
    return false;
  }
}

function withByte(bytes: Buffer, at: number, byte: number): Buffer {
  const copy = Buffer.from(bytes);
  copy[at] = byte;
  return copy;
}

describe("targets scanner: extremes", () => {
  const one = (labels: string) =>
    `{"status":"success","data":{"activeTargets":[{"labels":${labels},"scrapePool":"p","health":"up"}],"droppedTargets":[]}}`;

  it("reads a huge label value itself and serves it whole", () => {
    const huge = "x".repeat(3_000_000);
    const bytes = Buffer.from(one(`{"job":"j","instance":"${huge}","discovered":"${huge}"}`));
    expect(scanTargetsAnswer(bytes, ["job", "instance"])?.data.activeTargets[0]?.labels.instance).toHaveLength(
      huge.length,
    );
    expectSameOutput(bytes, OPTION_SETS[0] as DecodeOptions);
  });

  it("gives up on nesting deeper than its stack, and the reference decides", () => {
    const deep = `${"[".repeat(200_000)}${"]".repeat(200_000)}`;
    const bytes = Buffer.from(
      `{"status":"success","data":{"activeTargets":[{"labels":{"job":"j"},"x":${deep}}],"droppedTargets":[]}}`,
    );
    expect(scanTargetsAnswer(bytes, ["job", "instance"])).toBeUndefined();
    expectSameOutput(bytes, OPTION_SETS[0] as DecodeOptions);
  });

  it("decodes escapes, lone surrogates and invalid UTF-8 in label values as JSON.parse does", () => {
    const bytes = Buffer.concat([
      Buffer.from(
        '{"status":"success","data":{"activeTargets":[{"labels":{"job":"a\\u00e9\\ud800\\n\\"\\/","instance":"',
      ),
      Buffer.from([0xe2, 0x82, 0xff, 0xc3]),
      Buffer.from('"},"scrapePool":"p","health":"up"}],"droppedTargets":[]}}'),
    ]);
    const scanned = scanTargetsAnswer(bytes, ["job", "instance"]);
    expect(scanned?.data.activeTargets[0]?.labels).toEqual(
      (JSON.parse(bytes.toString("utf8")) as { data: { activeTargets: { labels: unknown }[] } }).data.activeTargets[0]
        ?.labels,
    );
    expectSameOutput(bytes, OPTION_SETS[0] as DecodeOptions);
  });

  // JSON.parse reads the answer's text, in which invalid UTF-8 already became U+FFFD (WHATWG rules):
  // a raw 0xFF in a key names the configured label "a\uFFFD"; valid U+FFFD bytes do not name "\uD800".
  it("matches label keys with invalid UTF-8 as the decoded text does, not byte for byte", () => {
    const options: DecodeOptions = {
      ...(OPTION_SETS[0] as DecodeOptions),
      targetLabels: [
        { from: "a\uFFFD", to: "a" },
        { from: "\uFFFD\uFFFD", to: "b" },
        { from: "\uD800", to: "c" },
        { from: "é", to: "d" },
      ],
    };
    const label = (key: number[], value: string) =>
      Buffer.concat([Buffer.from('"'), Buffer.from(key), Buffer.from(`":"${value}"`)]);
    const bytes = Buffer.concat([
      Buffer.from('{"status":"success","data":{"activeTargets":[{"labels":{"job":"j",'),
      label([0x61, 0xff], "raw-ff"), // "a" + an invalid byte
      Buffer.from(","),
      label([0xe2, 0x82, 0xc3], "cut-short"), // a cut three-byte sequence, then a lone lead byte: two U+FFFD
      Buffer.from(","),
      label([0xef, 0xbf, 0xbd], "valid-fffd"), // U+FFFD itself, not the lone surrogate U+D800
      Buffer.from(","),
      label([0x65, 0xcc, 0x81], "decomposed"), // "e" + a combining accent: not "é"
      Buffer.from('},"scrapePool":"p","health":"up"}],"droppedTargets":[]}}'),
    ]);
    const reference = expectSameOutput(bytes, options);
    const lines = reference.ok ? String(reference.families.find(([n]) => n === "promstatus_target_up")?.[1]) : "";
    expect(lines).toContain('a="raw-ff"');
    expect(lines).toContain('b="cut-short"');
    expect(lines).toContain('c=""');
    expect(decodeTargetsFast(bytes, options)).toBeDefined(); // read by the fast path itself
    expect(readWhole(bytes, ["job", "a\uFFFD", "\uFFFD\uFFFD", "\uD800"])?.targets[0]?.labels).toEqual({
      job: "j",
      "a\uFFFD": "raw-ff",
      "\uFFFD\uFFFD": "cut-short",
    });
  });
});

// --- streamed ---------------------------------------------------------------------------------------

/** What the reader makes of the answer handed over in pieces cut at `cuts` (positions, any order). */
function readInChunks(
  bytes: Buffer,
  cuts: readonly number[],
  labelNames = ["job", "instance", "namespace", ...NON_ASCII_NAMES],
) {
  const targets: ActiveTarget[] = [];
  const warnings: string[] = [];
  const reader = new TargetsAnswerReader(labelNames, (t) => targets.push(t.toActiveTarget()));
  reader.onWarning = (text) => warnings.push(text);
  let from = 0;
  for (const cut of [...new Set(cuts.map((c) => Math.min(c, bytes.length)))].sort((a, b) => a - b)) {
    // Each piece a copy of its own, as a socket hands them over: nothing may keep a view of an old one.
    reader.write(Buffer.from(bytes.subarray(from, cut)));
    from = cut;
  }
  reader.write(Buffer.from(bytes.subarray(from)));
  const answer = reader.end();
  return answer ? { answer, targets, warnings } : undefined;
}

const readWhole = (bytes: Buffer, labelNames?: string[]) => readInChunks(bytes, [], labelNames);

describe("targets scanner: streamed in chunks", () => {
  it.each(recorded())("reads %s the same whatever byte it is cut at", (_name, text) => {
    const bytes = Buffer.from(text);
    const whole = readWhole(bytes);
    expect(whole).toBeDefined();
    // Every byte of a small answer; about 500 places spread over a large one.
    const step = Math.max(1, Math.floor(bytes.length / 500));
    for (let at = 0; at <= bytes.length; at += step) expect(readInChunks(bytes, [at]), `cut at ${at}`).toEqual(whole);
    // Pieces of many sizes: many cuts in one answer, inside keys, escapes, numbers and UTF-8.
    const sizes = bytes.length < 20_000 ? Array.from({ length: 40 }, (_, i) => i + 1) : [1, 3, 17, 100, 4096];
    for (const size of sizes) {
      const cuts = Array.from({ length: Math.ceil(bytes.length / size) }, (_, i) => i * size);
      expect(readInChunks(bytes, cuts), `pieces of ${size}`).toEqual(whole);
    }
  });

  it("reads multibyte UTF-8, escapes and numbers cut anywhere as it reads them whole", () => {
    const bytes = Buffer.from(
      '{"status":"success","data":{"activeTargets":[{"labels":{"job":"é€𝄞\\u00e9\\"x","instance":"ü:1"},' +
        '"scrapePool":"pööl","health":"up","lastScrapeDuration":12345.678e-3,"scrapeInterval":"15s"}],' +
        '"droppedTargets":[],"droppedTargetCounts":{"pööl":123456}}}',
    );
    const whole = readWhole(bytes);
    expect(whole?.targets[0]?.labels.job).toBe('é€𝄞é"x');
    expect(whole?.answer.data.droppedTargetCounts).toEqual({ pööl: 123456 });
    for (let a = 0; a <= bytes.length; a++)
      for (let b = a; b <= bytes.length; b += 7) expect(readInChunks(bytes, [a, b]), `cuts ${a}, ${b}`).toEqual(whole);
  });

  it("reads random answers split at random places as it reads them whole, giving up on the same ones", () => {
    fc.assert(
      fc.property(answer, spaces, fc.array(fc.nat(), { maxLength: 12 }), (json, ws, cuts) => {
        const bytes = write(json, ws);
        expect(readInChunks(bytes, cuts)).toEqual(readWhole(bytes));
      }),
      { numRuns: 3000 },
    );
  });

  it("gives up on a streamed answer cut short or changed, wherever the chunks end", () => {
    fc.assert(
      fc.property(
        answer,
        spaces,
        fc.nat(),
        fc.integer({ min: 0, max: 255 }),
        fc.array(fc.nat(), { maxLength: 6 }),
        (json, ws, at, byte, cuts) => {
          const whole = write(json, ws);
          for (const bytes of [whole.subarray(0, at % whole.length), withByte(whole, at % whole.length, byte)]) {
            const valid = parsesAsJson(bytes);
            if (!valid) expect(readInChunks(bytes, cuts)).toBeUndefined();
          }
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("keeps at most one value's bytes: a value larger than its limit gives up instead of growing", () => {
    const big = `{"status":"success","data":{"activeTargets":[{"labels":{"job":"${"x".repeat(10_000)}"}}]}}`;
    const reader = new TargetsAnswerReader(["job"], () => {}, 4096);
    const bytes = Buffer.from(big);
    let gaveUpAt = -1;
    for (let at = 0; at < bytes.length && gaveUpAt < 0; at += 1000)
      if (!reader.write(bytes.subarray(at, at + 1000))) gaveUpAt = at;
    // Given up once the target passed 4 KiB, not at the end of the answer.
    expect(gaveUpAt).toBeGreaterThan(0);
    expect(gaveUpAt).toBeLessThan(6000);
    // The same answer in one chunk is read (the limit is on what is carried between chunks).
    expect(new TargetsAnswerReader(["job"], () => {}, 4096).write(bytes)).toBe(true);
  });
});

describe("targets scanner: numbers", () => {
  // Durations are read from their digits without a string when they have no exponent and few enough
  // digits; any number must still come out as the double JSON.parse gives.
  const decimal = fc
    .tuple(
      fc.boolean(),
      fc.stringMatching(/^(0|[1-9][0-9]{0,19})$/),
      fc.option(fc.stringMatching(/^[0-9]{1,25}$/), { nil: undefined }),
    )
    .map(
      ([negative, whole, fraction]) => `${negative ? "-" : ""}${whole}${fraction === undefined ? "" : `.${fraction}`}`,
    );
  const number = fc.oneof(
    decimal,
    fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => JSON.stringify(n)),
    // Past what the fast path takes: 2^53 and beyond, 10^23 (not a double), an exponent.
    fc.constantFrom("0", "-0", "0.1", "0.124839411", "9007199254740993", "9007199254740991.5", "1e-7", "123.456E+2"),
    fc.constantFrom("0.00000000000000000000001", "3.00000000000000000000000", "7.00000000000000000000000"),
  );
  it("gives each duration as JSON.parse does", () => {
    fc.assert(
      fc.property(fc.array(number, { minLength: 1, maxLength: 20 }), (texts) => {
        const targets = texts.map(
          (t) =>
            `{"labels":{"job":"j","instance":"i"},"scrapePool":"j","health":"up","lastScrape":"2026-11-21T05:00:00Z","lastScrapeDuration":${t}}`,
        );
        const answer = `{"status":"success","data":{"activeTargets":[${targets.join(",")}],"droppedTargets":[]}}`;
        const scanned = scanTargetsAnswer(Buffer.from(answer), ["job", "instance"]);
        const parsed = JSON.parse(answer) as { data: { activeTargets: ActiveTarget[] } };
        expect(scanned?.data.activeTargets.map((t) => t.lastScrapeDuration)).toEqual(
          parsed.data.activeTargets.map((t) => t.lastScrapeDuration),
        );
      }),
      { numRuns: 3000 },
    );
  });
});

// --- the WebAssembly reader -------------------------------------------------------------------------

/** Everything a target read hands over, spans included, per target; and how many the module read. */
function readsOf(bytes: Buffer, cuts: readonly number[], useWasm: boolean, labelNames = READ_LABELS) {
  const reads: unknown[] = [];
  const reader = new TargetsAnswerReader(
    labelNames,
    (t) =>
      reads.push([
        t.toActiveTarget(),
        [t.poolStart, t.poolEnd, t.poolFlags, t.lastScrapeStart, t.lastScrapeEnd, t.lastScrapeFlags],
        [...t.labelStart],
        [...t.labelEnd],
        [...t.labelFlags],
        t.plain(),
        // The module's identity hash, or the one computed here: the same function (identity-hash.ts).
        t.identityHashed ? t.identityHash : identityHash(t.bytes, t.poolStart, t.poolEnd, t.labelStart, t.labelEnd),
      ]),
    undefined,
    useWasm,
  );
  let from = 0;
  for (const cut of [...new Set(cuts.map((c) => Math.min(c, bytes.length)))].sort((a, b) => a - b)) {
    reader.write(Buffer.from(bytes.subarray(from, cut)));
    from = cut;
  }
  reader.write(Buffer.from(bytes.subarray(from)));
  return { answer: reader.end(), reads, byWasm: reader.wasmTargets };
}
const READ_LABELS = ["job", "instance", "namespace", ...NON_ASCII_NAMES];

describe("targets scanner: the WebAssembly reader", () => {
  it("hands over every target exactly as the JavaScript scanner does, and gives up on the same answers", () => {
    let targets = 0;
    let byWasm = 0;
    fc.assert(
      fc.property(answer, spaces, fc.array(fc.nat(), { maxLength: 8 }), (json, ws, cuts) => {
        const bytes = write(json, ws);
        const wasm = readsOf(bytes, cuts, true);
        const js = readsOf(bytes, cuts, false);
        expect(wasm.answer).toEqual(js.answer);
        expect(wasm.reads).toEqual(js.reads);
        expect(js.byWasm).toBe(0);
        if (wasm.answer) {
          targets += wasm.reads.length;
          byWasm += wasm.byWasm;
        }
      }),
      { numRuns: 3000 },
    );
    // Random answers are full of what the module leaves to the scanner; it must still read many itself.
    expect(byWasm).toBeGreaterThan(0.2 * targets);
  });

  it.each(recorded())("reads %s as the JavaScript scanner does, wherever it is cut", (_name, text) => {
    const bytes = Buffer.from(text);
    expect(readsOf(bytes, [], false).answer).toBeDefined();
    const step = Math.max(1, Math.floor(bytes.length / 200));
    for (let at = 0; at <= bytes.length; at += step) {
      const wasm = readsOf(bytes, [at], true);
      const js = readsOf(bytes, [at], false);
      expect(wasm.reads, `cut at ${at}`).toEqual(js.reads);
      expect(wasm.answer).toEqual(js.answer);
    }
  });

  it("reads nearly every target of a large answer itself: only those cut by a piece's end are the scanner's", () => {
    const bytes = Buffer.from(targetsAnswer(3000));
    const cuts = Array.from({ length: Math.ceil(bytes.length / 65536) }, (_, i) => i * 65536);
    const wasm = readsOf(bytes, cuts, true);
    expect(wasm.reads).toEqual(readsOf(bytes, cuts, false).reads);
    expect(wasm.reads).toHaveLength(3000);
    expect(wasm.byWasm).toBeGreaterThan(3000 - cuts.length);
  });

  it("reads two answers at once, piece by piece in turn, as it reads each alone (readers of the same labels share an instance)", () => {
    const answers = [Buffer.from(targetsAnswer(400)), Buffer.from(targetsAnswer(400, 1))];
    const alone = answers.map((bytes) => readsOf(bytes, [], true).reads);
    const reads: unknown[][] = [[], []];
    const readers = [0, 1].map(
      (i) =>
        new TargetsAnswerReader(READ_LABELS, (t) =>
          (reads[i] as unknown[]).push([t.toActiveTarget(), t.poolStart, t.poolEnd, [...t.labelStart]]),
        ),
    );
    for (let at = 0; at < Math.max(...answers.map((a) => a.length)); at += 3001)
      for (const [i, bytes] of answers.entries()) readers[i]?.write(Buffer.from(bytes.subarray(at, at + 3001)));
    for (const [i, reader] of readers.entries()) {
      expect(reader.end()).toBeDefined();
      expect(reader.wasmTargets).toBeGreaterThan(200); // a piece of 3001 bytes cuts about one target in four
      expect((reads[i] as unknown[][]).map((r) => r[0])).toEqual((alone[i] as unknown[][]).map((r) => r[0]));
    }
  });

  it("reads an answer written from inside another reader's onTarget (same labels) as each alone", () => {
    const target = (p: string) => `{"labels":{"job":"${p}"},"scrapePool":"${p}"}`;
    const answer = (a: string, b: string) =>
      Buffer.from(`{"status":"success","data":{"activeTargets":[${target(a)},${target(b)}]}}`);
    for (const useWasm of [true, false]) {
      const innerPools: string[] = [];
      const inner = new TargetsAnswerReader(["job"], (t) => innerPools.push(t.scrapePool), undefined, useWasm);
      const outerPools: string[] = [];
      const outer = new TargetsAnswerReader(
        ["job"],
        (t) => {
          outerPools.push(t.scrapePool);
          if (outerPools.length === 1) inner.write(answer("b1", "b2"));
        },
        undefined,
        useWasm,
      );
      outer.write(answer("a1", "a2"));
      expect(outer.end()).toBeDefined();
      expect(inner.end()).toBeDefined();
      expect(outerPools).toEqual(["a1", "a2"]);
      expect(innerPools).toEqual(["b1", "b2"]);
    }
  });

  it("leaves every target to the scanner when a label name is longer than its key table takes", () => {
    const long = "l".repeat(64);
    const bytes = Buffer.from(
      `{"status":"success","data":{"activeTargets":[{"labels":{"job":"j","${long}":"v"},"scrapePool":"j","health":"up"}]}}`,
    );
    const wasm = readsOf(bytes, [], true, ["job", long]);
    expect(wasm.byWasm).toBe(0);
    expect(wasm.answer).toBeDefined();
    expect((wasm.reads[0] as [ActiveTarget])[0].labels).toEqual({ job: "j", [long]: "v" });
  });

  it("leaves deep nesting in a field nobody reads to the scanner, which decides as before", () => {
    for (const depth of [60, 70, 5000]) {
      const deep = `${"[".repeat(depth)}${"]".repeat(depth)}`;
      const bytes = Buffer.from(
        `{"status":"success","data":{"activeTargets":[{"x":${deep},"labels":{"job":"j"},"scrapePool":"j","health":"up"}]}}`,
      );
      const wasm = readsOf(bytes, [], true);
      expect(wasm.answer).toEqual(readsOf(bytes, [], false).answer);
      expect(wasm.byWasm).toBe(depth < 64 ? 1 : 0);
    }
  });
});
