import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { flagOf } from "../../bin/options.ts";
import { planSituations } from "../../env/plan.ts";
import { simulate } from "../../env/simulate.ts";
import { DEFAULTS } from "../../spec/index.ts";
import { referenceSpec } from "../fixtures/reference-spec.ts";
import { ROOT, rehearse, rehearseProcess } from "../support/cli.ts";

const RETAIL = join(ROOT, "examples/retail-orders.json");

/** The `✖ path: message` lines of an InputError's text, as [path, message] pairs. */
const issueLines = (text: string) =>
  [...text.matchAll(/✖ (\S+): (.*)/g)].map(([, path, message]) => [path, message]);

/** The message of what `run` throws. */
async function refusal(run: () => unknown): Promise<string> {
  try {
    await run();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error("not refused");
}

describe("rehearse CLI", () => {
  it("prints its version and help", async () => {
    const pkg = JSON.parse(await readFile(join(ROOT, "package.json"), "utf8"));
    expect((await rehearse("--version")).stdout.trim()).toBe(pkg.version);
    const help = await rehearse("--help");
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/plan \[options\]/);
  });

  it("shows every default in the help from the one table the SDK applies", async () => {
    /** Each option's entry of a help text, by its flag, on one line. */
    const entries = (help: string) =>
      new Map(
        help
          .split(/\n(?= {2}-)/)
          .map((entry) => entry.replace(/\s+/g, " ").trim())
          .map((entry) => [entry.split(" ")[0], entry] as const),
      );
    const simulateHelp = entries((await rehearse("simulate", "--help")).stdout);
    for (const option of [
      "rows",
      "rollouts",
      "seed",
      "concurrency",
      "maxTurns",
      "slipRate",
      "faultRate",
    ] as const)
      expect(simulateHelp.get(flagOf(option)), option).toMatch(
        new RegExp(`\\(default ${DEFAULTS[option]}[,)]`),
      );
    const planHelp = entries((await rehearse("plan", "--help")).stdout);
    expect(planHelp.get("--fault-rate")).toContain(
      `(default ${DEFAULTS.faultRate}, or the spec's world.fault_rate)`,
    );
    expect(planHelp.get("--rows")).toContain("(default: one pass over the grid)");
  });

  it("plans the reference grid and prints the coverage of a 64-row run", async () => {
    const run = await rehearse("plan", "--spec", RETAIL, "--rows", "64", "--no-prefer-success");
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/grid {6}64 rows \(lower bound 64/);
    expect(run.stdout).toMatch(/coverage {2}381 \/ 381 pairs = 1\.000/);
  });

  it("prints the same plan as the SDK with --json", async () => {
    const run = await rehearse(
      "plan",
      "--spec",
      RETAIL,
      "--rows",
      "70",
      "--seed",
      "5",
      "--fault-rate",
      "0.2",
      "--json",
    );
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual(
      planSituations(referenceSpec, { rows: 70, seed: 5, faultRate: 0.2 }),
    );
  });

  it("refuses a bad spec with every problem and exit code 2", async () => {
    const dir = await mkdtemp(join(tmpdir(), "rehearse-cli-"));
    const path = join(dir, "bad.json");
    await writeFile(path, JSON.stringify({ name: "x", tools: [], policy: [] }));
    const run = await rehearse("plan", "--spec", path);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`${path} is invalid (2 problems)`);
    expect(run.stderr).toContain(
      "system_prompt: Invalid input: expected string, received undefined",
    );
    expect(run.stderr).toContain("tools: expected at least one tool");
  });

  it("refuses bad flags with exit code 2 and the message the SDK gives for the option, naming the flag", async () => {
    const plan = await rehearse(
      "plan",
      "--spec",
      RETAIL,
      "--fault-rate",
      "1.5",
      "--rows",
      "0",
      "--seed",
      "",
    );
    expect(plan.code).toBe(2);
    expect(plan.stderr).toMatch(/^rehearse: plan flags is invalid \(3 problems\)/);
    expect(plan.stderr).toContain("✖ --fault-rate: expected a share between 0 and 1, got 1.5");
    const sdk = await refusal(() =>
      planSituations(referenceSpec, { faultRate: 1.5, rows: 0, seed: "" }),
    );
    expect(issueLines(plan.stderr)).toEqual(
      issueLines(sdk).map(([field, message]) => [flagOf(field as string), message]),
    );

    const flags = ["--slip-rate", "2", "--max-turns", "0", "--concurrency", "two", "--rows", "1.5"];
    const out = join(await mkdtemp(join(tmpdir(), "rehearse-cli-")), "never.jsonl");
    const run = await rehearse("simulate", "--spec", RETAIL, "--out", out, ...flags);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      '✖ --concurrency: expected at least 1 (a whole number), got "two"',
    );
    const given = { slipRate: 2, maxTurns: 0, concurrency: "two", rows: 1.5 } as never;
    const refused = issueLines(await refusal(() => simulate(referenceSpec, given)));
    expect(refused).toHaveLength(4);
    expect(issueLines(run.stderr)).toEqual(
      refused.map(([field, message]) => [flagOf(field as string), message]),
    );
    await expect(readFile(`${out}.partial`)).rejects.toThrow(/ENOENT/);
  });

  it("refuses an unknown flag or a missing value through commander, with exit code 2", async () => {
    const unknown = await rehearse("plan", "--spec", RETAIL, "--rowz", "3");
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown option '--rowz'/);
    const missing = await rehearse("simulate", "--spec", RETAIL);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/required option '--out <file>' not specified/);
  });

  it("checks that the JSON Schemas on disk are current", async () => {
    const run = await rehearse("schemas", "--out", join(ROOT, "schemas"), "--check");
    expect(run.code).toBe(0);
    const dir = await mkdtemp(join(tmpdir(), "rehearse-schemas-"));
    const stale = await rehearse("schemas", "--out", dir, "--check");
    expect(stale.code).toBe(1);
    expect(stale.stderr).toMatch(/stale or missing/);
  });

  it("runs as a script: the real entry point refuses a bad flag with the message and exit code 2", async () => {
    // The entry point's other exit codes are met as real processes too: 0 and 130 in simulate.test.ts.
    const refused = await rehearseProcess("plan", "--spec", RETAIL, "--fault-rate", "1.5");
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe("");
    expect(refused.stderr).toBe(
      "rehearse: plan flags is invalid (1 problem):\n  ✖ --fault-rate: expected a share between 0 and 1, got 1.5\n",
    );
  });
});
