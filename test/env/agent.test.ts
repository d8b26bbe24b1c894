import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Agent } from "../../env/agent.ts";
import { verbOf } from "../../env/tools.ts";
import { SpecError } from "../../env/util/errors.ts";
import type { AgentSpec } from "../../spec/index.ts";
import { referenceSpec } from "../fixtures/reference-spec.ts";

function problems(input: unknown): string[] {
  try {
    Agent.from(input);
  } catch (error) {
    expect(error).toBeInstanceOf(SpecError);
    return (error as SpecError).issues.map((i) => `${i.path}: ${i.message}`);
  }
  throw new Error("expected the spec to be refused");
}

describe("Agent.from: tool formats", () => {
  it("normalises OpenAI chat, OpenAI responses and MCP tools to one shape", () => {
    const agent = Agent.from({
      name: "mixed",
      system_prompt: "You help.",
      policy: [],
      tools: [
        {
          type: "function",
          function: {
            name: "get_order",
            description: "Look up an order",
            parameters: { type: "object", properties: { order_id: { type: "string" } } },
          },
        },
        {
          type: "function",
          name: "cancelOrder",
          description: "Cancel an order",
          parameters: { type: "object", properties: {} },
        },
        {
          name: "lookup_ticket",
          description: "Read a ticket",
          inputSchema: { type: "object", properties: { ticket_id: { type: "string" } } },
          outputSchema: { type: "object", properties: { status: { type: "string" } } },
          annotations: { readOnlyHint: false },
        },
        { name: "frobnicate", inputSchema: { type: "object" } },
      ],
    });
    expect(agent.tools.map((t) => [t.name, t.access, t.access_source])).toEqual([
      ["get_order", "read", "verb"],
      ["cancelOrder", "write", "verb"],
      ["lookup_ticket", "write", "annotation"],
      ["frobnicate", "write", "default"],
    ]);
    expect(agent.tools[0]?.parameters).toEqual({
      type: "object",
      properties: { order_id: { type: "string" } },
    });
    expect(agent.tools[2]?.output_schema).toEqual({
      type: "object",
      properties: { status: { type: "string" } },
    });
    expect(agent.tools[3]?.parameters).toEqual({ type: "object" });
  });

  it("reads the verb of snake, kebab and camel case names", () => {
    expect(["get_order", "get-order", "getOrder", "GetOrder", "refund"].map(verbOf)).toEqual([
      "get",
      "get",
      "get",
      "get",
      "refund",
    ]);
  });
});

describe("Agent.from: refusals", () => {
  it("lists every structural problem with its field path", () => {
    const found = problems({
      name: "",
      tools: [
        { type: "function", function: { name: "bad name" } },
        { name: "no_input_schema" },
        { type: "function" },
      ],
      policy: 3,
      axes: { conditions: ["timeout"], worlds: ["sunny"], forbid: [{ tool: "x" }] },
    });
    expect(found).toEqual([
      "name: expected the agent's name",
      "system_prompt: Invalid input: expected string, received undefined",
      "tools[0].function.name: expected 1-64 characters of a-z, A-Z, 0-9, _ or -",
      "tools[1].inputSchema: Invalid input: expected object, received undefined",
      "tools[2].name: Invalid input: expected string, received undefined",
      "policy: expected a list of rules {id, text, tools?} or a markdown string",
      expect.stringMatching(
        /^axes\.worlds\[0\]: Invalid option: expected one of "normal"\|"record_missing"/,
      ),
      'axes.conditions: expected the list to include "ok"',
      "axes.forbid[0]: expected exactly two axes, e.g. {tool: ..., condition: ...}",
    ]);
  });

  it("lists every problem of every kind at once: shape and across fields together", () => {
    const spec = {
      ...referenceSpec,
      tools: [...referenceSpec.tools, referenceSpec.tools[0] as AgentSpec["tools"][number]],
      policy: [
        { id: "a_rule", text: "One.", tools: ["get_order", "no_such_tool"] },
        { id: "a_rule", text: "Two." },
        { id: "not an id", text: "Three." },
      ],
      axes: {
        stances: ["cooperative", "grumpy"],
        forbid: [{ tool: "get_order", condition: "on_fire" }],
      },
      tool_roles: { no_such_tool: "utility" },
    };
    expect(problems(spec)).toEqual([
      expect.stringMatching(/^policy\[2\]\.id: expected 1-64 letters, digits/),
      expect.stringMatching(/^tool_roles\.no_such_tool: no tool is named "no_such_tool"/),
      'tools[8]: duplicate tool name "get_order" (also tools[0])',
      'policy[1].id: duplicate rule id "a_rule" (also policy[0])',
      expect.stringMatching(
        /^policy\[0\]\.tools\[1\]: unknown tool "no_such_tool"; expected one of get_order, list_orders/,
      ),
      expect.stringMatching(
        /^axes\.forbid\[0\]\.condition: "on_fire" is not a condition of this spec; expected one of ok, timeout/,
      ),
    ]);
  });

  it("names the file when a spec file cannot be read or parsed", async () => {
    const dir = await mkdtemp(join(tmpdir(), "rehearse-"));
    const path = join(dir, "broken.json");
    await writeFile(path, "{ not json");
    await expect(Agent.load(path)).rejects.toThrow(
      new RegExp(`${path} is invalid[\\s\\S]*expected JSON`),
    );
    await expect(Agent.load(join(dir, "missing.json"))).rejects.toThrow(
      /cannot read .*missing\.json/,
    );
  });
});

describe("policy on the rule axis", () => {
  it("turns a markdown policy into the rule axis, and an empty one into a single `none` value", () => {
    const agent = Agent.from({ ...referenceSpec, policy: "- Confirm first.\n- Never invent ids." });
    expect(agent.axes.rule.map((r) => r.name)).toEqual(["confirm_first", "never_invent_ids"]);
    expect(Agent.from({ ...referenceSpec, policy: [] }).axes.rule.map((r) => r.name)).toEqual([
      "none",
    ]);
  });

  it("forbids pairing a tool-scoped rule with any other tool", () => {
    const agent = Agent.from({
      ...referenceSpec,
      policy: [{ id: "confirm_refund", text: "Confirm refunds.", tools: ["refund_order"] }],
    });
    expect(agent.forbidden).toHaveLength(7);
    expect(agent.forbidden).toContainEqual({ tool: "get_order", rule: "confirm_refund" });
    expect(agent.forbidden).not.toContainEqual({ tool: "refund_order", rule: "confirm_refund" });
  });
});

describe("Agent hash", () => {
  it("is stable for the same spec and changes with any part of it", () => {
    const a = Agent.from(referenceSpec).hash;
    expect(Agent.from(structuredClone(referenceSpec)).hash).toBe(a);
    expect(Agent.from({ ...referenceSpec, system_prompt: "Different." }).hash).not.toBe(a);
  });
});
