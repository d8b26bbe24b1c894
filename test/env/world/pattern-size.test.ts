import { describe, expect, it } from "vitest";
import { Agent } from "../../../env/agent.ts";
import { Rng } from "../../../env/rng.ts";
import { createWorld } from "../../../env/world/index.ts";
import { fromPattern, MOST_MADE } from "../../../env/world/pattern.ts";
import { situationOf } from "../../fixtures/situations.ts";
import { specOf } from "../../support/specs.ts";

/** `^((((a)+)+)+)$`: repeats nested `depth` deep, each of which randexp opens up to 8 more times. */
const nested = (depth: number) => `^${"(".repeat(depth)}a${")+".repeat(depth)}$`;

describe("the strings the world makes from a spec's pattern are bounded", () => {
  it("makes at most MOST_MADE characters, however deep the repeats nest", () => {
    // Reproduction (issue 12): each level of nested `+` multiplied the string randexp made by up
    // to 9: 8 levels made 466,600 characters, 11 levels 44 million in 8 s, 12 ran out of memory.
    for (const depth of [3, 8, 12, 40]) {
      const generator = fromPattern(nested(depth));
      expect(generator, `depth ${depth}`).not.toBeNull();
      const made = generator?.make(new Rng(1, "pattern")) ?? "";
      expect(made.length).toBeGreaterThan(0);
      expect(made.length).toBeLessThanOrEqual(MOST_MADE);
      expect(made).toMatch(/^a+$/);
    }
    // A run of fixed repeats longer than any string the world makes has no generator.
    expect(fromPattern(`^(a{1000}){1000}$`)).toBeNull();
    expect(fromPattern(`^${"a{1000}".repeat(10)}$`)).toBeNull();
  });

  it("keeps ordinary patterns as they were", () => {
    // A pattern whose strings stay small draws as before: an id of this shape, from the same stream.
    const made = fromPattern("^(ORD|INV)-[0-9]{4}(-[A-Z]{2})?$")?.make(new Rng(3, "p"));
    expect(made).toMatch(/^(ORD|INV)-[0-9]{4}(-[A-Z]{2})?$/);
  });

  it("builds a world for a spec whose id and value patterns nest their repeats", () => {
    const spec = specOf([
      [
        "get_order",
        {
          order_id: { type: "string", pattern: `${nested(12).slice(0, -1)}-[0-9]{3}$` },
          note: { type: "string", pattern: nested(12).replace(/\+/g, "*") },
        },
        ["order_id"],
      ],
    ]);
    const agent = Agent.from(spec);
    const world = createWorld({ spec: agent, situation: situationOf(agent, {}) });
    expect(world.person.ids.order_id).toMatch(/^a+-\d{3}$/);
  });
});
