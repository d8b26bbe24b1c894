import { describe, expect, it } from "vitest";
import { Planner } from "../../env/plan.ts";
import type { AgentSpec } from "../../spec/index.ts";
import { growth } from "../support/growth.ts";
import { specOf } from "../support/specs.ts";

/** `n` tools and `n` rules, rule i about tool i: a grid of 7n rows (tool × stance binds). */
function scoped(n: number): AgentSpec {
  const tool = (i: number) => `get_item_${i}`;
  return specOf(
    Array.from({ length: n }, (_, i) => [tool(i), { item_id: { type: "string" } }, ["item_id"]]),
    {
      policy: Array.from({ length: n }, (_, i) => ({
        id: `rule_${i}`,
        text: `Quote reference ${i} before anything else.`,
        tools: [tool(i)],
      })),
    },
  );
}

/** `tools` tools and `rules` rules, each rule about every tool. */
function freeRules(tools: number, rules: number): AgentSpec {
  return specOf(
    Array.from({ length: tools }, (_, i) => [
      `get_item_${i}`,
      { item_id: { type: "string" } },
      ["item_id"],
    ]),
    {
      policy: Array.from({ length: rules }, (_, i) => ({
        id: `rule_${i}`,
        text: `Quote reference ${i} before anything else.`,
      })),
    },
  );
}

describe("the walk over a large grid", () => {
  it("flips and orders a pass in near-linear time: four times the grid, well under sixteen times as long", () => {
    // Issue 16: Walk.#order rescanned every cell left for each place it filled and the flip every
    // flipped cell for each it restored; 69% of plan time at tools = rules = 100. Five tools and n
    // rules about all of them: the grid's rows and its pairs both grow as n.
    const planner = (n: number) => new Planner(freeRules(5, n), { rows: 1 });
    expect(planner(60).grid.rows.length).toBe(420);
    const firstSituation = (p: Planner) => p.walk().next();
    expect(growth(planner, firstSituation, 60, 5)).toBeLessThan(8);
  });

  it("keeps the fault share asked for on a long grid, spread through the walk", () => {
    const planner = new Planner(scoped(40), { rows: 280, faultRate: 0.2 });
    const cells = [...planner.walk()];
    const faults = (upTo: number) =>
      cells.slice(0, upTo).filter((c) => c.axes.condition !== "ok").length;
    const kept = faults(cells.length);
    expect(kept).toBeGreaterThan(0);
    for (const upTo of [10, 70, 140, 280])
      expect(faults(upTo)).toBeLessThanOrEqual(Math.ceil((kept * upTo) / cells.length));
  });
});
