// `npm run test:docker`: the production image on a real Docker engine (.ci/run runs it where one
// can be had). Kept out of `npm test` and the soak: it builds an image.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/docker/**/*.test.ts"],
    setupFiles: ["test/support/setup.ts"],
    globalSetup: ["test/support/globalSetup.ts"],
    testTimeout: 10 * 60_000,
    hookTimeout: 10 * 60_000,
    pool: "forks",
    maxWorkers: 1,
  },
});
