import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// V8 compiles a typed-array read that once went past the array's end to a slower form, for good: the
// scanner read chunks twice as slowly as one whole buffer when a chunk's end was found by reading past
// it. The reader keeps zero bytes after what it reads instead; this holds it to that, on the running
// Node.js, by V8's own account of why it threw optimised code away, and where.
describe("the streaming targets reader on chunks", () => {
  it("never reads past the end of a buffer (no out-of-bounds deoptimisation in the exporter's code)", () => {
    const script = fileURLToPath(new URL("./scripts/read-in-chunks.ts", import.meta.url));
    const run = spawnSync(process.execPath, ["--trace-deopt-verbose", "--import", "tsx", script], {
      encoding: "utf8",
      timeout: 120_000,
      maxBuffer: 1024 * 2 ** 20,
    });
    expect(run.status, run.stderr).toBe(0);
    const reading = run.stdout.slice(run.stdout.indexOf("READING\n"));
    expect(reading).toContain("TARGETS 80000");
    // Optimised code was built and run (else there is nothing to deoptimise and nothing is shown).
    expect(run.stdout).toMatch(/deoptimiz|TURBOFAN|MAGLEV/);
    // Each bailout is followed by where it happened, `;;; deoptimize at <file:line:column>`. Node's own
    // code may deoptimise so (its file system callbacks did on Node 24): only the exporter's counts.
    const places: string[] = [];
    const lines = reading.split("\n");
    lines.forEach((line, i) => {
      if (!line.includes("reason: out of bounds")) return;
      const at = lines.slice(i + 1, i + 4).find((l) => l.includes("deoptimize at"));
      places.push(at?.trim() ?? line);
    });
    expect(places.filter((place) => !place.includes("<node:"))).toEqual([]);
  }, 150_000);
});
