import { describe, expect, it } from "vitest";
import { Agent } from "../../env/agent.ts";
import { describePlan, Planner, planSituations } from "../../env/plan.ts";
import { SpecError } from "../../env/util/errors.ts";
import { LIMITS } from "../../spec/index.ts";
import { referenceSpec } from "../fixtures/reference-spec.ts";
import { growth } from "../support/growth.ts";

/** The reference spec with `n` distinct rules, every one about every tool. */
const withRules = (n: number) => ({
  ...referenceSpec,
  policy: Array.from({ length: n }, (_, i) => ({
    id: `rule_${i}`,
    text: `Quote reference ${i} to the customer before anything else.`,
  })),
});

const refusal = (spec: unknown): string => {
  try {
    describePlan(spec);
  } catch (error) {
    expect(error).toBeInstanceOf(SpecError);
    return (error as Error).message;
  }
  throw new Error("the plan was not refused");
};

describe("a plan's size is bounded before any work", () => {
  it("refuses 10,000 rules by name, with the bound, before the grid is built", () => {
    // Reproduction (issue 12): a policy of 10,000 distinct rules planned for more than ten minutes
    // (the covering array weighs every rule for each of its 80,000 rows; 400 rules took 2 s, 800 8 s).
    const agent = Agent.from(withRules(10_000));
    const message = refusal(agent);
    expect(message).toContain(
      `policy: 10000 rules make as many values of the rule axis; a plan takes at most ${LIMITS.axisValues}`,
    );
    expect(() => planSituations(agent)).toThrow(message.split("\n")[1]?.trim());
    // Refused in time linear in the rules (reading the policy): 2,400 cost about four times 600.
    expect(
      growth(withRules, (spec) => expect(() => describePlan(spec)).toThrow(SpecError), 600, 3),
    ).toBeLessThan(8);
  });

  it("refuses by both axes a grid whose smallest size is past the bound", () => {
    const rules = LIMITS.axisValues;
    const histories = Math.floor(LIMITS.gridRows / rules) + 1;
    const spec = {
      ...withRules(rules),
      axes: { histories: Array.from({ length: histories }, (_, i) => `history_${i}`) },
    };
    expect(refusal(spec)).toContain(
      `policy × axes.histories: ${rules * histories} pairs of rules and histories may meet, and each needs a situation of its own; a plan takes at most ${LIMITS.gridRows}`,
    );
  });

  it("plans a spec with as many rules as an axis takes", () => {
    const tools = Agent.from(referenceSpec).tools.length;
    expect(tools * LIMITS.axisValues).toBeLessThanOrEqual(LIMITS.gridRows);
    const planner = new Planner(withRules(LIMITS.axisValues), { effort: 0 });
    expect(planner.grid.rows.length).toBeGreaterThanOrEqual(tools * LIMITS.axisValues);
  });
});
