import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { escapeLabelValue } from "../../src/convert/label-pairs.js";
import type { Labels, Sample } from "../../src/convert/samples.js";
import { formatValue } from "../../src/exposition/format-value.js";
import { renderSamples } from "../../src/exposition/text-format.js";

// The buffer-writing renderer against the text format written the plain way, on random samples:
// unicode, escapes, empty values, shared and distinct label objects, every kind of number.

const reference = (name: string, prefix: string, samples: readonly Sample[]) =>
  samples
    .map(({ labels, value }) => {
      const own = Object.entries(labels).map(([k, v]) => `${k}="${escapeLabelValue(v)}"`);
      const all = [prefix, ...own].filter((s) => s !== "").join(",");
      return `${name}${all ? `{${all}}` : ""} ${formatValue(value)}\n`;
    })
    .join("");

const labelName = fc.stringMatching(/^[a-zA-Z_][a-zA-Z0-9_]{0,8}$/);
const labels = fc.dictionary(labelName, fc.string({ unit: "binary" }), { maxKeys: 4 });
const value = fc.oneof(
  fc.double(),
  fc.integer(),
  fc.constantFrom(0, -0, Number.NaN, Infinity, -Infinity, 1795384379.526),
);

describe("renderSamples", () => {
  it("writes exactly the text format, byte for byte", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("promstatus_target_up", "promstatus_x"),
        fc.constantFrom("", 'source="s"', 'source="ünï \\"q\\""'),
        fc.array(labels, { minLength: 1, maxLength: 5 }),
        fc.array(fc.tuple(fc.nat(), value), { maxLength: 30 }),
        (name, prefix, labelSets, picks) => {
          // Samples share label objects, as a target's several series do.
          const samples = picks.map(([i, v]) => ({ labels: labelSets[i % labelSets.length] as Labels, value: v }));
          expect(renderSamples(name, prefix, samples).toString("utf8")).toBe(reference(name, prefix, samples));
        },
      ),
      { numRuns: 2000 },
    );
  });
});
