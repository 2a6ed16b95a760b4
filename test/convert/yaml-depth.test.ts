import { readdirSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isCollection, isPair, parseAllDocuments, stringify } from "yaml";
import { nestsTooDeeply, YAML_NESTING_LIMIT, yamlNestingBound } from "../../src/convert/yaml-depth.js";
import { alertmanagerStatusResponse, prometheusConfigResponse } from "../../src/upstream/payloads.js";
import { fixtureText, upstreamFixture } from "../helpers/fixtures.js";

/** Collections nested in a JS value (an empty one counts), walked without recursion. */
function valueDepth(value: unknown): number {
  let max = 0;
  const todo: Array<[unknown, number]> = [[value, 0]];
  for (let next = todo.pop(); next; next = todo.pop()) {
    const [v, d] = next;
    if (v === null || typeof v !== "object") continue;
    max = Math.max(max, d + 1);
    for (const child of Object.values(v)) todo.push([child, d + 1]);
  }
  return max;
}

/** Collections nested in what the parser builds from a text, whatever errors it recovers from. */
function parsedDepth(text: string): number {
  let max = 0;
  const todo: Array<[unknown, number]> = parseAllDocuments(text, { logLevel: "silent" }).flatMap((doc) =>
    "contents" in doc ? [[doc.contents, 0] as [unknown, number]] : [],
  );
  for (let next = todo.pop(); next; next = todo.pop()) {
    const [node, d] = next;
    if (isCollection(node)) {
      max = Math.max(max, d + 1);
      for (const item of node.items) todo.push([item, d + 1]);
    } else if (isPair(node)) todo.push([node.key, d], [node.value, d]);
  }
  return max;
}

const value: fc.Arbitrary<unknown> = fc.letrec<{ node: unknown }>((tie) => ({
  node: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null), fc.constantFrom("a: b", "[x]", "# c", "'q'")),
    fc.array(tie("node"), { maxLength: 3 }),
    fc.dictionary(fc.string({ maxLength: 6 }), tie("node"), { maxKeys: 3 }),
  ),
})).node;

/** The same value nested `depth` times, one shape per way YAML nests. */
const deep: Record<string, (depth: number) => string> = {
  "flow sequences": (d) => "[".repeat(d) + "]".repeat(d),
  "flow mappings": (d) => `${"{a: ".repeat(d)}1${"}".repeat(d)}`,
  "block mappings": (d) => `${Array.from({ length: d }, (_, i) => `${" ".repeat(i)}a:`).join("\n")} 1\n`,
  "block sequences on one line": (d) => `${"- ".repeat(d)}x\n`,
  "indented block sequences": (d) => `${Array.from({ length: d }, (_, i) => `${" ".repeat(2 * i)}-`).join("\n")} x\n`,
  "block and flow mixed": (d) => {
    const block = Array.from({ length: Math.floor(d / 4) }, (_, i) => `${" ".repeat(2 * i)}- a:`);
    const flow = Math.ceil(d / 4);
    return `${block.join("\n")} ${"[{a: ".repeat(flow)}1${"}]".repeat(flow)}\n`;
  },
};

describe("yamlNestingBound", () => {
  it("is at least the depth of any value, as the yaml package writes it in block or flow style", () => {
    fc.assert(
      fc.property(
        value,
        fc.constantFrom("block", "flow", "any") as fc.Arbitrary<"block" | "flow" | "any">,
        (v, style) => {
          const text = stringify(v, { collectionStyle: style });
          return yamlNestingBound(text) >= valueDepth(v);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("is at least the depth the parser builds from any text, broken YAML included", () => {
    // Pieces that steer YAML's lexer: quotes, comments, block scalars, indicators, flow, documents.
    const piece = fc.constantFrom(
      ...["[", "]", "{", "}", ",", ": ", ":", "- ", "-", "? ", '"', "'", "''", "#", " ", "  ", "\t", "a", "\\"],
      ...["\n", "\n ", "\n  ", "\n    ", "\r\n", "|", ">", "|-", "|2", "&a ", "*a", "!t ", "---\n", "...\n", "%Y\n"],
    );
    const text = fc.array(piece, { maxLength: 60 }).map((pieces) => pieces.join(""));
    fc.assert(
      fc.property(text, (t) => yamlNestingBound(t) >= parsedDepth(t)),
      { numRuns: 3000 },
    );
  });

  it("counts quoted, commented and block-scalar brackets as text, not nesting", () => {
    const brackets = "[".repeat(500);
    expect(yamlNestingBound(`a: "${brackets}"\nb: '${brackets}'\nc: 1 # ${brackets}\nd: |\n  ${brackets}\n`)).toBe(2);
  });

  it.each(Object.entries(deep))("refuses %s 5000 levels deep, and passes 30 of them", (_, text) => {
    expect(nestsTooDeeply(text(5000))).toBe(true);
    expect(yamlNestingBound(text(5000))).toBeGreaterThanOrEqual(5000);
    // A flow collection counts up to 3 (its possible implicit pair, a possible error's block map).
    expect(parsedDepth(text(30))).toBe(30);
    expect(yamlNestingBound(text(30))).toBeLessThanOrEqual(YAML_NESTING_LIMIT);
  });

  it("stops counting once past the limit", () => {
    const bound = yamlNestingBound(deep["flow sequences"]?.(100_000) ?? "", YAML_NESTING_LIMIT);
    expect(bound).toBeGreaterThan(YAML_NESTING_LIMIT);
    expect(bound).toBeLessThan(YAML_NESTING_LIMIT + 3);
  });

  it("passes real configurations well within the limit: Prometheus's, Alertmanager's, the exporter's", () => {
    const texts = [
      upstreamFixture("prometheus-config.json", prometheusConfigResponse).data.yaml,
      upstreamFixture("prometheus-config-replica-b.json", prometheusConfigResponse).data.yaml,
      upstreamFixture("alertmanager-status-clustered.json", alertmanagerStatusResponse).config.original,
      upstreamFixture("alertmanager-status-standalone.json", alertmanagerStatusResponse).config.original,
      ...readdirSync(new URL("../fixtures/config/", import.meta.url))
        .filter((name) => name.endsWith(".yml"))
        .map((name) => fixtureText(`config/${name}`)),
    ];
    expect(texts.length).toBeGreaterThan(10);
    for (const text of texts) {
      expect(yamlNestingBound(text)).toBeGreaterThanOrEqual(parsedDepth(text));
      expect(yamlNestingBound(text)).toBeLessThan(20);
    }
  });

  it("passes an Alertmanager route tree 12 levels deep", () => {
    let routes = "";
    for (let level = 12; level > 0; level--) {
      const pad = " ".repeat(4 * level);
      routes = `${pad}- receiver: r${level}\n${pad}  matchers: ['level="${level}"', "team=~\\"a|b\\""]\n${routes ? `${pad}  routes:\n${routes}` : ""}`;
    }
    const text = `route:\n  receiver: r0\n  group_by: [alertname]\n  routes:\n${routes}receivers:\n- name: r0\n`;
    expect(parsedDepth(text)).toBe(2 * 12 + 3);
    expect(nestsTooDeeply(text)).toBe(false);
  });
});
