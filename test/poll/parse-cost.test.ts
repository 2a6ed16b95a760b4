import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { targetsAnswer } from "../../scripts/bench/generate.js";
import { HOSTILE_SHAPES, REALISTIC_SHAPES } from "../../scripts/json-shapes.js";
import { measureParseHeap } from "../../scripts/parse-cost.js";
import { DecodePool } from "../../src/poll/decode-pool.js";
import { MARGIN, parseHeapCost } from "../../src/poll/parse-cost.js";

// The estimate against what JSON.parse takes on the runtime under test (the test matrix runs Node.js 20
// and 24), measured in a fresh worker thread per shape (scripts/parse-cost.ts prints the whole table:
// a realistic targets answer takes 0.9 times its text, `[[],…]` 13 times, `[{"34":0},…]` 40 times).

const SIZE = 1_000_000;
const estimateOf = (text: string) => parseHeapCost(Buffer.from(text, "utf8"));

describe("parseHeapCost against the heap JSON.parse takes", () => {
  // The text is counted whole (Node.js 20 holds it on the heap); what is parsed is counted with a margin
  // (MARGIN, 1.25): 1.2 and 16 KiB leave room for the measurement's own noise.
  const BOUND = 1.2;
  const NOISE = 16 * 1024;
  expect(MARGIN).toBeGreaterThanOrEqual(1.25);

  for (const [name, make] of Object.entries({ ...HOSTILE_SHAPES, ...REALISTIC_SHAPES })) {
    it(`is above it with a margin: ${name}`, async () => {
      const bytes = Buffer.from(make(SIZE), "utf8");
      const heap = await measureParseHeap(bytes);
      const estimate = parseHeapCost(bytes);
      expect(estimate + NOISE).toBeGreaterThanOrEqual(heap.text + BOUND * heap.parse);
    });
  }

  it("leaves the estimate of realistic answers within 1.5 to 6 bytes a byte (not refusing what parses)", () => {
    for (const [name, make] of Object.entries(REALISTIC_SHAPES)) {
      const bytes = Buffer.from(make(SIZE), "utf8");
      const perByte = parseHeapCost(bytes) / bytes.length;
      expect(perByte, name).toBeGreaterThan(1.5);
      expect(perByte, name).toBeLessThan(6);
    }
  });
});

describe("parseHeapCost: a worker whose heap is the estimate parses the answer and lives on", () => {
  // In a process of its own: were the estimate short, V8 would abort that process, not the test run.
  const shapes = [
    "empty arrays [[],…]",
    "empty objects [{},…]",
    "nested arrays [[[…]]]",
    "objects, index key {34:0}",
    "objects, one distinct key each",
    "objects, values changing kind",
    "boxed -0 [[],-0,…]",
    "many keys {k:{},…}",
  ];
  it(`for ${shapes.length} of the shapes that take the most`, () => {
    const script = fileURLToPath(new URL("../../scripts/parse-cost.ts", import.meta.url));
    const run = spawnSync(
      process.execPath,
      ["--import", "tsx", script, "--survive", "--size=4000000", ...shapes.map((s) => `--shape=${s}`)],
      { encoding: "utf8", timeout: 120_000 },
    );
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    const lines = run.stdout.trim().split("\n");
    expect(lines).toHaveLength(shapes.length);
    for (const line of lines) expect(JSON.parse(line)).toMatchObject({ survived: true });
  }, 150_000);
});

describe("parseHeapCost: what it reads", () => {
  it("counts brackets, braces, commas, colons and quotes inside strings as characters, not structure", () => {
    const plain = estimateOf('{"keyabcde":["abcdefghijklmnopqrstuvwxyz0123"]}');
    // The same lengths as written, escapes included.
    expect(estimateOf('{"keyabcde":["[[[{{{,,,:::\\"\\"]]]}}}\\\\xyz012"]}')).toBe(plain);
    expect(estimateOf('{"k\\"[{,:y":["abcdefghijklmnopqrstuvwxyz0123"]}')).toBe(plain);
    // A real bracket is structure: an array more.
    expect(estimateOf('{"keyabcde":[["abcdefghijklmnopqrstuvwxyz01"]]}')).toBeGreaterThan(plain);
  });

  it("counts a key sequence met before as fields only, a new one as a map", () => {
    const same = estimateOf(`[${'{"a":1,"b":2}'.repeat(2).replace("}{", "},{")}]`);
    const other = estimateOf('[{"a":1,"b":2},{"b":1,"a":2}]');
    expect(other).toBeGreaterThan(same);
  });

  it("counts a text with a character above U+00FF twice (V8 stores it as two bytes a character)", () => {
    const latin1 = Buffer.from(`["${"é".repeat(1000)}"]`, "utf8");
    const wide = Buffer.from(`["${"Ā".repeat(1000)}"]`, "utf8");
    expect(latin1.length).toBe(wide.length);
    expect(parseHeapCost(wide) - parseHeapCost(latin1)).toBeGreaterThanOrEqual(wide.length);
  });

  it("stops counting once over the limit", () => {
    const bomb = Buffer.from(`{"x":[${"[],".repeat(2_000_000)}[]]}`);
    const whole = parseHeapCost(bomb);
    const stopped = parseHeapCost(bomb, 1_000_000);
    expect(stopped).toBeGreaterThan(1_000_000);
    expect(stopped).toBeLessThan(whole);
  });

  it("never throws on bytes that are not JSON", () => {
    for (const text of ["", '"', '{"a', "[1,", '{"1":', "\\", "\u00ff\u00fe", "[-", '["\\u', "]]]}}}", "tru"])
      expect(parseHeapCost(Buffer.from(text, "latin1"))).toBeGreaterThanOrEqual(text.length);
  });
});

describe("parseHeapCost against the decoder's budget", () => {
  it("does not refuse a 100k-target answer with the default --decoder.memory-limit, nor one with a wide character", () => {
    const budget = new DecodePool().parseBudget();
    const answer = targetsAnswer(100_000);
    expect(answer.length).toBeGreaterThan(75_000_000);
    expect(answer.length).toBeLessThanOrEqual(budget.bytes);
    expect(parseHeapCost(Buffer.from(answer))).toBeLessThan(budget.heapBytes);
    const wide = answer.replace('"job":"node"', '"job":"nodeĀ"');
    expect(parseHeapCost(Buffer.from(wide))).toBeLessThan(budget.heapBytes);
  }, 60_000);
});
