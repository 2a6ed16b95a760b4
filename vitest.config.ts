import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Integration tests start real servers; give them room but keep the unit tests snappy.
    testTimeout: 20_000,
    hookTimeout: 60_000,
    globalSetup: ["test/harness/global-setup.ts"],
  },
});
