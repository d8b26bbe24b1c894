import { describe, expect, it } from "vitest";
import { Agent } from "../../../env/agent.ts";
import { simulate } from "../../../env/simulate.ts";

/**
 * A spec whose write takes arguments named as JavaScript objects' own properties. JSON text, as
 * specs arrive: `JSON.parse` keeps `__proto__` as an ordinary key, which an object literal would not.
 */
const SPEC = `{
  "name": "special argument names",
  "system_prompt": "You help customers with their orders.",
  "policy": [],
  "tools": [
    {"type": "function", "function": {"name": "get_order", "description": "Look up an order by its id.",
     "parameters": {"type": "object", "properties": {"order_id": {"type": "string"}}, "required": ["order_id"]}}},
    {"type": "function", "function": {"name": "update_order", "description": "Change the labels of an order.",
     "parameters": {"type": "object", "properties": {"order_id": {"type": "string"}, "__proto__": {"type": "string"}, "constructor": {"type": "string"}, "toString": {"type": "string"}},
     "required": ["order_id", "__proto__", "constructor", "toString"]}}}
  ]
}`;

const SPECIAL = ["__proto__", "constructor", "toString"];

describe("arguments named __proto__, constructor or toString, end to end through the offline roles", () => {
  it("are asked for, given, read and sent like any other argument", async () => {
    // Reproduction (issue 12): the person's goal and the agent's call were plain objects, so an
    // argument named __proto__ was dropped on assignment and no call carried it.
    const data = await simulate(JSON.parse(SPEC), { rows: 24, slipRate: 0 });
    const calls = (await data.rows()).flatMap((row) =>
      row.messages.flatMap((m) =>
        m.role === "assistant"
          ? (m.tool_calls ?? []).filter((c) => c.function.name === "update_order")
          : [],
      ),
    );
    expect(calls.length).toBeGreaterThan(0);
    const complete = calls.filter((call) => {
      const args = JSON.parse(call.function.arguments) as Record<string, unknown>;
      return SPECIAL.every(
        (name) => typeof Object.getOwnPropertyDescriptor(args, name)?.value === "string",
      );
    });
    expect(complete.length).toBeGreaterThan(0);
    for (const call of complete) {
      for (const name of SPECIAL) expect(call.function.arguments).toContain(`"${name}":"`);
    }
    // Spoken as words, never as underscores or the spaces they would leave.
    const said = (await data.rows())
      .flatMap((row) => row.messages)
      .filter((m) => m.role === "user" || m.role === "assistant")
      .map((m) => (typeof m.content === "string" ? m.content : ""))
      .join("\n");
    expect(said).not.toMatch(/ {2}proto|__proto__/);
  });

  it("are keys of an object argument read from 'label value' pairs", async () => {
    // Reproduction (issue 12): `constructor` was already "in" a plain object, so the first label
    // read started a new, empty object and the keys came apart.
    const spec = JSON.parse(SPEC);
    spec.tools[1].function.parameters = JSON.parse(`{"type": "object",
      "properties": {"order_id": {"type": "string"}, "labels": {"type": "object",
        "properties": {"__proto__": {"type": "string"}, "constructor": {"type": "string"}, "toString": {"type": "string"}},
        "required": ["__proto__", "constructor", "toString"]}},
      "required": ["order_id", "labels"]}`);
    const data = await simulate(spec, { rows: 24, slipRate: 0 });
    const labels = (await data.rows())
      .flatMap((row) => row.messages)
      .flatMap((m) => (m.role === "assistant" ? (m.tool_calls ?? []) : []))
      .filter((c) => c.function.name === "update_order")
      .map((c) => (JSON.parse(c.function.arguments) as { labels?: object }).labels);
    const whole = labels.filter(
      (l) => l !== undefined && SPECIAL.every((name) => Object.hasOwn(l, name)),
    );
    expect(whole.length).toBeGreaterThan(0);
    for (const l of whole) expect(Object.keys(l as object)).toEqual(SPECIAL);
  });

  it("name tools the policy asks a yes for", () => {
    // Reproduction (issue 12): the tools waiting for a yes were a plain object, and a tool named
    // __proto__ was dropped from it.
    const spec = JSON.parse(`{"name": "t", "system_prompt": "You help.",
      "policy": [{"id": "yes_first", "text": "Always get the customer's explicit confirmation before calling __proto__ or constructor."}],
      "tools": [
        {"type": "function", "function": {"name": "__proto__", "description": "Cancel an order.", "parameters": {"type": "object", "properties": {"order_id": {"type": "string"}}, "required": ["order_id"]}}},
        {"type": "function", "function": {"name": "constructor", "description": "Refund an order.", "parameters": {"type": "object", "properties": {"order_id": {"type": "string"}}, "required": ["order_id"]}}},
        {"type": "function", "function": {"name": "get_order", "description": "Look up an order.", "parameters": {"type": "object", "properties": {"order_id": {"type": "string"}}, "required": ["order_id"]}}}]}`);
    const { confirmation } = Agent.from(spec).policy;
    expect(Object.keys(confirmation)).toEqual(["__proto__", "constructor"]);
    expect(JSON.stringify(confirmation)).toBe(
      '{"__proto__":"rule yes_first","constructor":"rule yes_first"}',
    );
  });
});
