import { describe, expect, it } from "vitest";
import { Agent } from "../../../env/agent.ts";
import { simulate } from "../../../env/simulate.ts";
import { createWorld, World } from "../../../env/world/index.ts";
import { situationOf } from "../../fixtures/situations.ts";

/**
 * A spec whose parameters and output fields carry names JavaScript objects hold already. Written
 * as JSON text, as specs arrive: `JSON.parse` keeps `__proto__` as an ordinary key, which an object
 * literal here would not.
 */
const SPEC = `{
  "name": "special names",
  "system_prompt": "You help customers with their orders.",
  "policy": [],
  "tools": [
    {"name": "get_order", "description": "Look up an order by its id.",
     "inputSchema": {"type": "object", "properties": {"order_id": {"type": "string"}}, "required": ["order_id"]},
     "outputSchema": {"type": "object", "properties": {"order_id": {"type": "string"}, "__proto__": {"type": "string"}, "constructor": {"type": "string"}, "total": {"type": "number"}}}},
    {"type": "function", "function": {"name": "update_order", "description": "Change the labels of an order.",
     "parameters": {"type": "object", "properties": {"order_id": {"type": "string"}, "__proto__": {"type": "string"}, "constructor": {"type": "string"}, "hasOwnProperty": {"type": "string"}, "prototype": {"type": "string"}},
     "required": ["order_id", "__proto__", "constructor"]}}},
    {"type": "function", "function": {"name": "list_orders", "description": "List the orders of a customer.",
     "parameters": {"type": "object", "properties": {"email": {"type": "string"}}, "required": ["email"]}}}
  ]
}`;

describe("names JavaScript objects hold already: __proto__, constructor, hasOwnProperty, prototype", () => {
  it("stay parameters of the tool and keys of the spec as written", () => {
    // Reproduction (issue 12): a parameter named __proto__ vanished from the tool schema.
    const agent = Agent.from(JSON.parse(SPEC));
    expect(Object.keys(agent.tools[1]?.parameters.properties ?? {})).toEqual([
      "order_id",
      "__proto__",
      "constructor",
      "hasOwnProperty",
      "prototype",
    ]);
    expect(JSON.stringify(agent.spec)).toBe(JSON.stringify(JSON.parse(SPEC)));
  });

  it("are checked, stored and answered by the world like any other name", () => {
    const agent = Agent.from(JSON.parse(SPEC));
    const world = createWorld({
      spec: agent,
      situation: situationOf(agent, { tool: "update_order" }),
    });
    const id = world.person.ids.order_id as string;
    // Missing is missing: not Object's own `constructor`, nor a `__proto__` ajv leaves out.
    expect(JSON.parse(world.call("update_order", { order_id: id }).content).problems).toEqual([
      'missing required argument "__proto__"',
      'missing required argument "constructor"',
    ]);
    const wrong = world.call(
      "update_order",
      `{"order_id":"${id}","__proto__":7,"constructor":"c"}`,
    );
    expect(JSON.parse(wrong.content).problems).toEqual(['"__proto__" must be a string']);
    const changed = world.call(
      "update_order",
      `{"order_id":"${id}","__proto__":"P1","constructor":"C1","hasOwnProperty":"H1","prototype":"X1"}`,
    );
    expect(changed.ok).toBe(true);
    expect(JSON.parse(changed.content)).toMatchObject({
      __proto__: "P1",
      constructor: "C1",
      has_own_property: "H1",
      prototype: "X1",
    });
    const read = JSON.parse(world.call("get_order", { order_id: id }).content);
    expect(Object.keys(read)).toEqual(["order_id", "__proto__", "constructor", "total"]);
    expect(Object.getOwnPropertyDescriptor(read, "__proto__")?.value).toBe("P1");
    expect(read.constructor).toBe("C1");
    const restored = World.restore(
      agent,
      world.situation,
      JSON.parse(JSON.stringify(world.snapshot())),
    );
    expect(JSON.parse(restored.call("get_order", { order_id: id }).content)).toEqual(read);
  });

  it("run end to end: rows are made and the sidecar keeps the spec as written", async () => {
    const data = await simulate(JSON.parse(SPEC), { rows: 6 });
    expect(await data.rows()).toHaveLength(6);
    expect(JSON.stringify(data.meta?.spec)).toBe(JSON.stringify(JSON.parse(SPEC)));
  });
});
