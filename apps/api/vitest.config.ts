import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts"],
    globalSetup: ["src/testing/global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Test files of one worker share its loaded modules: each importing the whole service anew
    // cost 240 of the suite's 1,000 seconds. No test may rely on a module's state being fresh.
    isolate: false,
    // On PGlite two test files at a time (one at a time took 26 minutes on a 2-core machine, two
    // 22, before the database images and the bundled worker). On PostgreSQL one: the database server needs those cores too, and two files beside
    // it ran PDF-worker tests past their limits on a busy machine.
    maxWorkers: process.env.DATABASE_URL ? 1 : 2,
  },
});
