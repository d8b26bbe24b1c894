import { describe, expect, it } from "vitest";
import { Agent } from "../../../env/agent.ts";
import { SpecError } from "../../../env/util/errors.ts";
import { createWorld } from "../../../env/world/index.ts";
import type { AgentSpec } from "../../../spec/index.ts";
import { situationOf } from "../../fixtures/situations.ts";
import { growth } from "../../support/hostile.ts";
import { specOf } from "../../support/specs.ts";

/** A world of the spec, and every tool called once with the ids its person holds. */
function callEveryTool(spec: AgentSpec): string[] {
  const agent = Agent.from(spec);
  const world = createWorld({ spec: agent, situation: situationOf(agent, {}) });
  return agent.tools.map((tool) => world.call(tool.name, { ...world.person.ids }).content);
}

// Each found by the property test over specs (test/env/spec.property.test.ts).
describe("the world on specs written to break it", () => {
  it("reads statuses and parameter names full of regex marks as text", () => {
    const spec = specOf([
      [
        "get_order",
        {
          order_id: { type: "string" },
          status: { type: "string", enum: ["in (progress", "a[", "x".repeat(10_000)] },
        },
        ["order_id"],
      ],
      ["cancel_order", { "a(b_id": { type: "string" }, "x[_id": { type: "string" } }, []],
    ]);
    for (const answer of callEveryTool(spec)) expect(typeof answer).toBe("string");
  });

  it("reads a description in time linear in its length, whitespace runs and unclosed brackets included", () => {
    const described = (n: number) => {
      const made = specOf([
        ["get_order", { order_id: { type: "string" } }, ["order_id"]],
        ["cancel_order", { order_id: { type: "string" } }, ["order_id"]],
      ]);
      const tool = made.tools[1] as { function: { description: string } };
      tool.function.description = `Cancel an order${" ".repeat(n)}(returns: ${"(".repeat(n)}status, total.`;
      return made;
    };
    expect(growth((n) => callEveryTool(described(n)), 20_000)).toBeLessThan(8);
  });

  it("refuses an id no shape can make short of pages at once, with a message of a line", () => {
    const spec = specOf([
      ["get_order", { order_id: { type: "string", pattern: "x".repeat(30_000) } }, ["order_id"]],
    ]);
    const started = performance.now();
    let refused: unknown;
    try {
      createWorld({ spec, situation: situationOf(spec, {}) });
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(SpecError);
    expect((refused as SpecError).issues[0]?.message.length).toBeLessThan(800);
    expect((refused as SpecError).issues[0]?.message).toMatch(
      /an id of 30000 characters \(at most 256\)|must match pattern/,
    );
    // A guard, not a measure: the shape of 30,000 characters took 9 s to give up on before.
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});
