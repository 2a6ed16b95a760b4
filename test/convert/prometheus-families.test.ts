import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { POLL, PROMETHEUS, SOURCE_FAMILIES } from "../../src/catalogue/families.js";

const metricsDoc = readFileSync(fileURLToPath(new URL("../../docs/metrics.md", import.meta.url)), "utf8");

describe("the Prometheus status families", () => {
  const families = [POLL.supported, ...Object.values(PROMETHEUS)];

  it("are all served (SOURCE_FAMILIES: their HELP, TYPE and labels reserved)", () => {
    for (const f of families) expect(SOURCE_FAMILIES).toContain(f);
  });

  it("are each documented in docs/metrics.md", () => {
    for (const f of families) expect(metricsDoc, f.name).toContain(`\`${f.name}\``);
  });
});
