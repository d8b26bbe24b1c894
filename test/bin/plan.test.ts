import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Agent } from "../../env/agent.ts";
import { LIMITS } from "../../spec/index.ts";
import { UNWORKABLE, WARNED } from "../env/plan-specs.ts";
import { rehearse } from "../support/cli.ts";

/** The spec written to a file of its own, as the CLI reads it. */
async function specFile(spec: unknown): Promise<string> {
  const path = join(await mkdtemp(join(tmpdir(), "rehearse-plan-")), "spec.json");
  await writeFile(path, JSON.stringify(spec));
  return path;
}

describe("rehearse plan warns about or refuses a spec that cannot work, before any run", () => {
  it("prints the spec's warnings, and --json carries them", async () => {
    // Reproduction (issue 12): only simulate printed them, after the run.
    const path = await specFile(WARNED);
    const [warning] = Agent.from(WARNED).warnings;
    const run = await rehearse("plan", "--spec", path);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`\nwarning   ${warning}\n`);
    const json = await rehearse("plan", "--spec", path, "--json", "--rows", "2");
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout).warnings).toEqual([warning]);
  });

  it("refuses, with exit 2 and the parameter's path, ids the world cannot make", async () => {
    const path = await specFile(UNWORKABLE);
    for (const flags of [[], ["--json"]]) {
      const run = await rehearse("plan", "--spec", path, ...flags);
      expect(run.code).toBe(2);
      expect(run.stdout).toBe("");
      expect(run.stderr).toMatch(
        /tools\[1\]\.function\.parameters\.properties\.order_id: names order records, .*ipv6/,
      );
      expect(run.stderr).not.toMatch(/\n\s+at /);
    }
  });

  it("refuses a policy of 10,000 rules by name, with exit 2, before planning", async () => {
    const policy = Array.from({ length: 10_000 }, (_, i) => ({
      id: `rule_${i}`,
      text: `Quote reference ${i} first.`,
    }));
    const path = await specFile({ ...WARNED, policy });
    const run = await rehearse("plan", "--spec", path);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      `policy: 10000 rules make as many values of the rule axis; a plan takes at most ${LIMITS.axisValues}`,
    );
  });
});
