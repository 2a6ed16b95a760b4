import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { compileTargetsScan, moduleSource } from "../../scripts/build-wasm.mjs";

describe("the targets reader's WebAssembly module", () => {
  it("is what assembly/targets-scan.ts compiles to (node scripts/build-wasm.mjs writes it)", async () => {
    const committed = readFileSync(new URL("../../src/upstream/wasm/targets-scan-module.ts", import.meta.url), "utf8");
    expect(committed).toBe(moduleSource(await compileTargetsScan()));
  }, 60_000);
});
