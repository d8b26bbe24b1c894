import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { planSituations } from "../../env/plan.ts";
import { referenceSpec } from "../fixtures/reference-spec.ts";
import { ROOT, rehearse } from "../support/cli.ts";

const RETAIL = join(ROOT, "examples/retail-orders.json");

describe("rehearse CLI", () => {
  it("prints its version and help", async () => {
    const pkg = JSON.parse(await readFile(join(ROOT, "package.json"), "utf8"));
    expect((await rehearse("--version")).stdout.trim()).toBe(pkg.version);
    const help = await rehearse("--help");
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/plan \[options\]/);
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

  it("refuses bad flags with exit code 2", async () => {
    const run = await rehearse("plan", "--spec", RETAIL, "--fault-rate", "1.5");
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--fault-rate.*expected a number between 0 and 1, got "1\.5"/);
  });

  it("checks that the JSON Schemas on disk are current", async () => {
    const run = await rehearse("schemas", "--out", join(ROOT, "schemas"), "--check");
    expect(run.code).toBe(0);
    const dir = await mkdtemp(join(tmpdir(), "rehearse-schemas-"));
    const stale = await rehearse("schemas", "--out", dir, "--check");
    expect(stale.code).toBe(1);
    expect(stale.stderr).toMatch(/stale or missing/);
  });
});
