import { describe, expect, it } from "vitest";
import { Agent } from "../../env/agent.ts";
import { describePlan, planSituations } from "../../env/plan.ts";
import { SpecError } from "../../env/util/errors.ts";
import { specOf } from "../support/specs.ts";
import { UNWORKABLE, WARNED } from "./plan-specs.ts";

describe("a plan says what a run would, before any run", () => {
  it("carries the spec's warnings, in the summary and in the listing", () => {
    // Reproduction (issue 12): the warnings were on the agent and the run's data, never on a plan.
    const warnings = Agent.from(WARNED).warnings;
    expect(warnings).toEqual([
      expect.stringContaining('tools[0].function.parameters.properties.carrier.enum: "dhl"'),
    ]);
    expect(describePlan(WARNED).warnings).toEqual(warnings);
    expect(planSituations(WARNED, { rows: 3 }).warnings).toEqual(warnings);
    expect(
      describePlan(specOf([["get_order", { order_id: { type: "string" } }, []]])).warnings,
    ).toEqual([]);
  });

  it("refuses by name a spec whose ids the world cannot make, as simulate does", () => {
    // Reproduction (issue 12): only a run, which builds a world, refused it; the plan went through.
    for (const plan of [() => describePlan(UNWORKABLE), () => planSituations(UNWORKABLE)]) {
      expect(plan).toThrow(SpecError);
      expect(plan).toThrow(
        /tools\[0\]\.function\.parameters\.properties\.order_id: names order records, but no id the world can make passes its schema/,
      );
      expect(plan).toThrow(/tools\[1\]\.function\.parameters\.properties\.order_id: .*ipv6/);
    }
  });
});
