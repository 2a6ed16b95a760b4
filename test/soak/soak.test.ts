import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../", import.meta.url));

// The soak script (npm run soak) at its full 1,000 cycles: it checks every scrape and the memory
// curve itself; here its verdict and summary are asserted.
describe("soak", () => {
  it("runs 1,000 changing poll cycles under concurrent scrapes with valid output and flat memory", () => {
    const result = spawnSync(
      process.execPath,
      ["--expose-gc", "--import", "tsx", "scripts/soak.ts", "--cycles=1000", "--scrapers=4"],
      { cwd: root, encoding: "utf8", timeout: 180_000 },
    );
    const summary = JSON.parse(result.stdout) as {
      cycles: number;
      scrapes: number;
      problemCount: number;
      problems: string[];
      heapGrowthMiB: number;
    };
    expect(summary.problems).toEqual([]);
    expect(summary.problemCount).toBe(0);
    expect(summary.cycles).toBe(1000);
    expect(summary.scrapes).toBeGreaterThan(1000);
    expect(result.status).toBe(0);
  }, 200_000);
});
