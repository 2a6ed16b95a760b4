import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Integration tests start real servers; give them room but keep the unit tests snappy.
    testTimeout: 20_000,
    hookTimeout: 60_000,
    globalSetup: ["test/harness/global-setup.ts"],
    // Vitest's default (a worker less than the cores) runs the files one at a time on a two-core
    // machine, yet most of their time is spent waiting on real servers and timers: two at once took
    // the suite from 476 s to 259 s there, with the same results.
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});
