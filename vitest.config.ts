import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    reporters: ["default", "json"],
    outputFile: { json: ".vitest-report.json" },
    testTimeout: 60_000,
    // Setup that simulates and grades a dataset outlasts the 10 s default on a loaded two-core machine.
    hookTimeout: 60_000,
    // A worker per core: vitest's default leaves one idle, which on two cores runs the files one by one.
    maxWorkers: availableParallelism(),
    // A worker keeps the modules it loaded from one file to the next: loading the engine again for
    // every file cost more than most files' tests. No test mocks modules, and those that change
    // process state (environment variables, servers) restore it.
    isolate: false,
  },
});
