import { describe, expect, it } from "vitest";
import { Agent } from "../../../env/agent.ts";
import { Rng } from "../../../env/rng.ts";
import { SpecError } from "../../../env/util/errors.ts";
import { createWorld } from "../../../env/world/index.ts";
import { valueFor } from "../../../env/world/values.ts";
import type { AgentSpec } from "../../../spec/index.ts";
import { situationOf } from "../../fixtures/situations.ts";
import { growth } from "../../support/growth.ts";
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
      tool.function.description = `Cancel an order${" ".repeat(n)}now. Returns: ${"(".repeat(n)}status, total.`;
      return made;
    };
    expect(growth(described, callEveryTool, 8_000, 5)).toBeLessThan(8);
  });

  it("makes a value for a field in time linear in its name's length (a name of underscores)", () => {
    // Each read a name not seen before: a field's rule is worked out once and kept.
    let fresh = 0;
    const value = (name: string) =>
      valueFor(
        `f${fresh++}${name}`,
        { type: "string" },
        {
          rng: new Rng("names"),
          entity: "ticket",
          isPerson: false,
          currency: "USD",
        },
      );
    expect(growth((n) => `a${"_".repeat(n)}b`, value, 4_000, 5)).toBeLessThan(8);
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

  it("answers arguments nested thousands deep with a refusal, even for a recursive schema", () => {
    const spec = specOf([
      ["create_folder", { folder: { $ref: "#/definitions/folder" } }, []],
      ["get_folder", { folder_id: { type: "string" } }, ["folder_id"]],
    ]);
    (
      spec.tools[0] as { function: { parameters: Record<string, unknown> } }
    ).function.parameters.definitions = {
      folder: {
        type: "object",
        properties: {
          name: { type: "string" },
          children: { type: "array", items: { $ref: "#/definitions/folder" } },
        },
      },
    };
    const agent = Agent.from(spec);
    const world = createWorld({
      spec: agent,
      situation: situationOf(agent, { tool: "create_folder" }),
    });
    const nested = (levels: number) => {
      let folder = '{"name":"leaf"}';
      for (let i = 0; i < levels; i++) folder = `{"name":"f${i}","children":[${folder}]}`;
      return `{"folder":${folder}}`;
    };
    // Reproduction: ajv followed the reference down 20,000 levels and overflowed the stack.
    const deep = world.call("create_folder", nested(20_000));
    expect(deep).toMatchObject({ ok: false, error: "invalid_arguments" });
    expect(JSON.parse(deep.content).problems).toEqual([
      "objects and arrays are nested more than 64 levels deep",
    ]);
    expect(world.call("create_folder", nested(10)).error).not.toBe("invalid_arguments");
  });
});
