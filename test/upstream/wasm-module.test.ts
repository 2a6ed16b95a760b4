import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { compileModule, MODULES, moduleSource } from "../../scripts/build-wasm.mjs";
import { WasmTargetReader } from "../../src/upstream/wasm/wasm-target-reader.js";

describe("the targets reader's WebAssembly module", () => {
  it.each(MODULES.map((m) => [m.source, m] as const))(
    "%s: the committed module is what it compiles to (node scripts/build-wasm.mjs writes it)",
    async (_, module) => {
      const committed = readFileSync(new URL(`../../${module.target}`, import.meta.url), "utf8");
      expect(committed).toBe(moduleSource(module, await compileModule(module)));
    },
    60_000,
  );

  it("leaves every target to the scanner where WebAssembly is not there (node --jitless), with the same result", () => {
    const scanner = fileURLToPath(new URL("../../src/upstream/targets/answer-reader.ts", import.meta.url));
    const script = `
      const { TargetsAnswerReader } = await import(${JSON.stringify(scanner)});
      const answer = Buffer.from('{"status":"success","data":{"activeTargets":[{"labels":{"job":"a","instance":"h:1"},"scrapePool":"a","health":"up"}]}}');
      const targets = [];
      const reader = new TargetsAnswerReader(["job", "instance"], (t) => targets.push(t.toActiveTarget()));
      reader.write(answer);
      console.log(JSON.stringify({ whole: reader.end() !== undefined, targets, byWasm: reader.wasmTargets, wasm: typeof WebAssembly }));`;
    const run = spawnSync(process.execPath, ["--jitless", "--import", "tsx", "--input-type=module", "-e", script], {
      encoding: "utf8",
    });
    expect(run.status, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      whole: true,
      targets: [{ labels: { job: "a", instance: "h:1" }, scrapePool: "a", health: "up", lastError: "" }],
      byWasm: 0,
      wasm: "undefined",
    });
  }, 60_000);

  it("has one instance per set of keys in a thread, not one per answer read", () => {
    const make = (labels: string[]) => WasmTargetReader.create(["labels", "scrapePool"], labels, 4096);
    const first = make(["job", "instance"]);
    expect(first).toBeDefined();
    expect(make(["job", "instance"])).toBe(first);
    expect(make(["job", "instance", "team"])).not.toBe(first);
  });

  it("keeps the instances of the sets of keys most recently asked for, and makes one for any other", () => {
    const make = (i: number) => WasmTargetReader.create(["labels"], ["job", `extra${i}`], 4096);
    const kept = make(0);
    for (let i = 1; i < 40; i++) {
      expect(make(i)).toBeDefined();
      expect(make(0)).toBe(kept); // asked for again and again: kept
    }
    const early = make(1);
    for (let i = 100; i < 140; i++) make(i);
    expect(make(1)).toBeDefined();
    expect(make(1)).not.toBe(early); // let go, made again
  });
});
