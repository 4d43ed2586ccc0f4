// Slow checks kept out of `npm test`: `npm run test:soak` (also run by .ci/run). Long timeouts on purpose.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/soak/**/*.test.ts"],
    setupFiles: ["test/support/setup.ts"],
    globalSetup: ["test/support/globalSetup.ts"],
    testTimeout: 15 * 60_000,
    hookTimeout: 5 * 60_000,
    pool: "forks",
    // The build check runs npm ci and tsc: one heavy file at a time on a 2-core machine.
    maxWorkers: 1,
    fileParallelism: false,
  },
});
