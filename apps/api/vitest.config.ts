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
    // Two test files at a time on either database. PostgreSQL's pass ran one at a time while test
    // databases were migrated per file and the PDF worker ran unbundled, and left a third of the CPU
    // idle; with database templates and the bundled worker, two files took 10 minutes instead of 15
    // and no test came near its limit (2026-11-29; the slow PDF tests carry their own).
    maxWorkers: 2,
  },
});
