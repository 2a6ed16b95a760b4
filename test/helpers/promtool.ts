import { spawnSync } from "node:child_process";
import { findBinaries } from "../harness/binaries.js";

/** Runs `promtool check metrics` on an exposition; returns its complaints (empty when accepted). */
export function promtoolCheckMetrics(exposition: string): { status: number | null; output: string } {
  const result = spawnSync(findBinaries().promtool, ["check", "metrics"], { input: exposition, encoding: "utf8" });
  return { status: result.status, output: `${result.stdout}${result.stderr}`.trim() };
}
