import { mkdtemp, readdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LIMITS } from "../../spec/index.ts";
import { ROOT, rehearse } from "../support/cli.ts";
import { SLOW_BEFORE_THE_FIX } from "../support/hostile.ts";

const RETAIL = join(ROOT, "examples/retail-orders.json");

/** The fastest of three runs of `run`, in milliseconds. */
async function fastest(run: () => Promise<unknown>): Promise<number> {
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 3; i++) {
    const start = performance.now();
    await run();
    best = Math.min(best, performance.now() - start);
  }
  return best;
}

describe("numeric flags have bounds, refused by name before any work", () => {
  it(
    "refuses --concurrency 100000000 (it exhausted the heap after minutes) and writes nothing",
    async () => {
      const dir = await mkdtemp(join(tmpdir(), "rehearse-bounds-"));
      const run = await rehearse(
        "simulate",
        "--spec",
        RETAIL,
        "--out",
        join(dir, "data.jsonl"),
        "--concurrency",
        "100000000",
        "--max-turns",
        "1001",
        "--rollouts",
        "5000",
      );
      expect(run.code).toBe(2);
      expect(run.stderr).toBe(
        [
          "rehearse: simulate flags is invalid (3 problems):",
          `  ✖ --concurrency: expected at most ${LIMITS.concurrency} episodes at once, got 100000000`,
          `  ✖ --max-turns: expected at most ${LIMITS.maxTurns} turns, got 1001`,
          `  ✖ --rollouts: expected at most ${LIMITS.rollouts} rollouts per situation, got 5000`,
          "",
        ].join("\n"),
      );
      expect(await readdir(dir)).toEqual([]);
    },
    SLOW_BEFORE_THE_FIX,
  );

  it(
    "refuses plan --rows 100000000, and summarises 10,000,000 rows without walking them",
    async () => {
      const refused = await rehearse("plan", "--spec", RETAIL, "--rows", "100000000");
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(
        `✖ --rows: expected at most ${LIMITS.rows} rows, got 100000000`,
      );
      const most = await rehearse("plan", "--spec", RETAIL, "--rows", String(LIMITS.rows));
      expect(most.code).toBe(0);
      expect(most.stdout).toMatch(/run {7}10000000 situations in 156250 passes/);
      // The reference grid has 64 cells: ten passes cost about what 156,250 do, as no pass is walked
      // once they repeat (walking them took about 30 µs a row: 300,000 times the 640-row plan's).
      const ratio =
        (await fastest(() => rehearse("plan", "--spec", RETAIL, "--rows", String(LIMITS.rows)))) /
        (await fastest(() => rehearse("plan", "--spec", RETAIL, "--rows", "640")));
      expect(ratio).toBeLessThan(20);
    },
    SLOW_BEFORE_THE_FIX,
  );

  it("bounds plan --json, which lists every situation, and names the summary for longer runs", async () => {
    const run = await rehearse("plan", "--spec", RETAIL, "--rows", "100001", "--json");
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      `✖ --rows: --json lists every planned situation: expected at most 100000 rows with --json, got 100001 (without --json, the summary takes up to ${LIMITS.rows})`,
    );
    expect(run.stdout).toBe("");
  });

  it("reads numbers written in decimal only: hex, octal, binary and digit separators are refused by flag", async () => {
    for (const [flag, value] of [
      ["--fault-rate", "0x1"],
      ["--rows", "0x10"],
      ["--rows", "0o7"],
      ["--rows", "0b11"],
      ["--rows", "1_000"],
    ]) {
      const run = await rehearse("plan", "--spec", RETAIL, flag as string, value as string);
      expect(run.code, value).toBe(2);
      expect(run.stderr).toMatch(new RegExp(`✖ ${flag}: expected .*, got "${value}"`));
    }
    const scientific = await rehearse("plan", "--spec", RETAIL, "--rows", "1e1");
    expect(scientific.code).toBe(0);
    expect(scientific.stdout).toMatch(/run {7}10 situations/);
  });
});

/** Numbers as a command line may carry them: decimal, at and past the bounds, and not decimal at all. */
const numberText = fc.oneof(
  fc.integer({ min: -3, max: 3 }).map(String),
  fc.constantFrom(
    "1025",
    "10000001",
    "100000000",
    "9007199254740993",
    "1e400",
    "-1e400",
    "1e3",
    "2.5",
    ".5",
    "5.",
    "+1",
    "0x1",
    "0o7",
    "0b1",
    "1_0",
    "NaN",
    "Infinity",
    "",
    " ",
    "١٢",
    "1\n",
    "--1",
  ),
  fc.string({ maxLength: 6 }),
);

describe("any numeric flag, through main(argv, io)", () => {
  it(
    "exits 0, 1 or 2 with no stack trace",
    async () => {
      const dir = await mkdtemp(join(tmpdir(), "rehearse-flags-"));
      let n = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom("plan", "simulate"),
          fc.subarray(
            ["--rows", "--fault-rate", "--seed", "--concurrency", "--max-turns", "--slip-rate"],
            { minLength: 1 },
          ),
          fc.array(numberText, { minLength: 6, maxLength: 6 }),
          async (command, flags, values) => {
            // simulate takes one row so that an accepted run is short; plan has no run flags.
            const args =
              command === "simulate" ? ["--rows", "1", "--out", join(dir, `run-${n++}.jsonl`)] : [];
            const given = flags
              .filter(
                (f) => command === "simulate" || ["--rows", "--fault-rate", "--seed"].includes(f),
              )
              .filter((f) => command === "plan" || f !== "--rows")
              .flatMap((flag, i) => [`${flag}=${values[i]}`]);
            const run = await rehearse(command, "--spec", RETAIL, ...args, ...given);
            expect([0, 1, 2]).toContain(run.code);
            expect(`${run.stdout}${run.stderr}`).not.toMatch(/^\s+at /m);
            if (run.code === 2) expect(run.stderr).toMatch(/^(rehearse: |error: )/);
          },
        ),
        { seed: 7, numRuns: 60 },
      );
    },
    SLOW_BEFORE_THE_FIX,
  );
});
