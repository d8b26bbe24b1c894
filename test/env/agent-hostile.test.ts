import { describe, expect, it } from "vitest";
import { Agent } from "../../env/agent.ts";
import { simulate } from "../../env/simulate.ts";
import { SpecError } from "../../env/util/errors.ts";
import { financeSpec, referenceSpec } from "../fixtures/reference-spec.ts";
import { specOf } from "../support/specs.ts";

/** The problems a spec is refused with, as `path: message`; fails if it is accepted. */
function problems(input: unknown): string[] {
  try {
    Agent.from(input);
  } catch (error) {
    expect(error).toBeInstanceOf(SpecError);
    return (error as SpecError).issues.map((i) => `${i.path || "(top level)"}: ${i.message}`);
  }
  throw new Error("expected the spec to be refused");
}

// biome-ignore lint/suspicious/noExplicitAny: a spec edited freely, as hostile input is.
type Loose = Record<string, any>;

/** The retail example parsed from its JSON text with one change: a fresh copy each time. */
function retail(change: (spec: Loose) => void): Loose {
  const spec = JSON.parse(JSON.stringify(referenceSpec));
  change(spec);
  return spec;
}

/** Objects nested `levels` deep: `{"a":{"a":…}}`. */
function nested(levels: number): unknown {
  let value: unknown = {};
  for (let i = 0; i < levels; i++) value = { a: value };
  return value;
}

describe("Agent.from: specs nested without end", () => {
  it("refuses a schema nested 2,500 levels inside `examples` or an `x-` key with the path and the limit, not a stack overflow", () => {
    // Reproduction (issue 12): a 5 KB spec overflowed canonicalJson with a RangeError.
    const arrays = JSON.parse(
      JSON.stringify(retail(() => {})).replace(
        '"description":"The order id, such as W2378156"',
        `"description":"The order id, such as W2378156","examples":${"[".repeat(2500)}${"]".repeat(2500)}`,
      ),
    );
    expect(problems(arrays)).toEqual([
      expect.stringMatching(
        /^tools\[0\]\.function\.parameters\.properties\.order_id\.examples(\[0\]){57}: nests objects and arrays more than 64 deep; a spec may nest at most 64 levels$/,
      ),
    ]);
    const extension = retail((s) => {
      s.tools[1].function.parameters["x-meta"] = nested(2500);
      s.tools[2].function.parameters.properties.order_id.properties = nested(70);
    });
    expect(problems(extension)).toEqual([
      expect.stringMatching(
        /^tools\[1\]\.function\.parameters\.x-meta(\.a){59}: nests .* 64 levels$/,
      ),
      expect.stringMatching(
        /^tools\[2\]\.function\.parameters\.properties\.order_id\.properties(\.a){57}: /,
      ),
    ]);
  });

  it("accepts a schema nested as deep as real ones go, and refuses one that contains itself", () => {
    const deepButFine = retail((s) => {
      s.tools[0].function.parameters.properties.order_id["x-meta"] = nested(50);
    });
    expect(Agent.from(deepButFine).name).toBe("retail orders");
    const cycle: Record<string, unknown> = { type: "object" };
    cycle.properties = { again: cycle };
    expect(problems(specOf([["get_order", { order_id: cycle }, []]]))).toEqual([
      expect.stringMatching(
        /^tools\[0\]\.function\.parameters\.properties\.order_id(\.properties\.again)+: nests/,
      ),
    ]);
  });

  it("refuses a cycle of $refs naming the reference and the schemas it passes through", () => {
    const cyclic = specOf([
      ["get_order", { order_id: { $ref: "#/$defs/id" }, note: { type: "string" } }, ["order_id"]],
    ]);
    const params = cyclic.tools[0] as { function: { parameters: Record<string, unknown> } };
    params.function.parameters.$defs = {
      id: { $ref: "#/$defs/code" },
      code: { $ref: "#/$defs/id" },
    };
    expect(problems(cyclic)).toEqual([
      'tools[0].function.parameters.$defs.id.$ref: this reference never reaches into the value it checks: #/$defs/id → #/$defs/code → #/$defs/id comes back to where it started, so checking an argument would never end; let the reference pass through "properties" or "items", or remove it',
    ]);
    // A cycle through allOf, which ajv compiled and then overflowed on every call.
    params.function.parameters.$defs = { id: { allOf: [{ $ref: "#/$defs/id" }] } };
    expect(problems(cyclic)).toEqual([
      expect.stringMatching(
        /^tools\[0\]\.function\.parameters\.\$defs\.id\.allOf\[0\]\.\$ref: .*#\/\$defs\/id → #\/\$defs\/id\/allOf\/0 → #\/\$defs\/id comes back/,
      ),
    ]);
  });

  it("accepts a recursive schema whose references pass through properties or items", () => {
    const spec = specOf([["create_folder", { folder: { $ref: "#/definitions/folder" } }, []]]);
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
    expect(Agent.from(spec).tools[0]?.name).toBe("create_folder");
  });
});

describe("Agent.from: unknown keys", () => {
  it("refuses each unknown key with the key nearest it, with every other problem, at once", () => {
    // Reproduction (issue 12): these were dropped in silence and the defaults used.
    const spec = retail((s) => {
      s.world = { faultRate: 0.9 };
      s.axes = { condition: ["ok", "timeout"] };
      s.polcy = "Confirm first.";
      s.tools[0].function.descripton = "Look up an order";
      s.policy[0].tool = ["get_order"];
      s.name = "";
    });
    expect(problems(spec)).toEqual([
      "name: expected the agent's name",
      "tools[0].function: unknown key `descripton`; did you mean `description`?",
      "policy[0]: unknown key `tool`; did you mean `tools`?",
      "axes: unknown key `condition`; did you mean `conditions`?",
      "world: unknown key `faultRate`; did you mean `fault_rate`?",
      "(top level): unknown key `polcy`; did you mean `policy`?",
    ]);
  });

  it("names the known keys when no key is near, in tools of every format and in MCP annotations", () => {
    const spec = {
      ...financeSpec,
      tools: [
        { ...(financeSpec.tools[0] as object), annotations: { readonlyHint: true }, price: 3 },
        ...financeSpec.tools.slice(1),
      ],
      axes: { forbid: [{ tool: "get_balance", conditon: "timeout", world: "normal" }] },
    };
    expect(problems(spec)).toEqual([
      "tools[0].annotations: unknown key `readonlyHint`; did you mean `readOnlyHint`?",
      "tools[0]: unknown key `price`; expected one of `name`, `title`, `description`, `inputSchema`, `outputSchema`, `annotations`, `icons`, `execution`, `_meta`, or an `x-` key of your own",
      "axes.forbid[0]: unknown key `conditon`; did you mean `condition`?",
    ]);
  });

  it("lets `x-` keys and the keys of JSON Schemas pass, and keeps the spec exactly as written for the sidecar", async () => {
    const spec = retail((s) => {
      s["x-owner"] = "payments team";
      s.world = { seed: 3, "x-note": "seeded" };
      s.tools[0]["x-source"] = "openapi";
      s.tools[0].function.parameters.properties.order_id["x-example-ids"] = ["W1"];
      s.tools[0].function.parameters.properties.order_id.deprecated = false;
    });
    const agent = Agent.from(spec);
    expect(agent.spec).toEqual(spec);
    expect(agent.spec).not.toBe(spec);
    const data = await simulate(spec, { rows: 2 });
    expect(data.meta?.spec).toEqual(spec);
    expect(JSON.stringify(data.meta?.spec)).toBe(JSON.stringify(spec));
  });
});

describe("Agent.from: schemas no call can pass", () => {
  it("refuses each contradiction by the parameter's path and why, every one at once", () => {
    // Reproduction (issue 12): each was accepted, and every call answered invalid_arguments.
    const spec = specOf([
      [
        "create_ticket",
        {
          code: { type: "string", minLength: 10, maxLength: 5 },
          amount: { type: "number", minimum: 10, maximum: 5 },
          count: { type: "integer", exclusiveMinimum: 1, maximum: 1.5 },
          mixed: { allOf: [{ type: "string" }, { type: "integer" }] },
          fixed: { type: "string", const: "abc", pattern: "^[0-9]+$" },
          seven: { type: "integer", const: "7" },
          level: { type: "string", enum: [1, 2] },
          tags: { type: "array", items: { type: "string", minLength: 3, maxLength: 1 } },
          note: { type: "string" },
        },
        ["code"],
      ],
    ]);
    const at = "tools[0].function.parameters.properties";
    expect(problems(spec)).toEqual([
      `${at}.code: no value can pass: minLength 10 is more than maxLength 5`,
      `${at}.amount: no value can pass: minimum 10 and maximum 5 leave no number between them`,
      `${at}.count: no value can pass: no integer lies between 1 and 1.5`,
      `${at}.mixed: no value can pass: it must be of type "string" and of type "integer" at once`,
      `${at}.fixed: no value can pass: its const "abc" fails its own schema: must match pattern "^[0-9]+$"`,
      `${at}.seven: no value can pass: its const "7" fails its own schema: must be an integer`,
      `${at}.level: no value can pass: no value of its enum passes its own schema (1: must be a string; 2: must be a string)`,
      `${at}.tags.items: no value can pass: minLength 3 is more than maxLength 1`,
    ]);
  });

  it("accepts what some value passes, and warns by path of enum values no call can use and output fields no value fits", async () => {
    const spec = specOf([
      [
        "get_order",
        {
          order_id: { type: "string" },
          // Keywords of another type do not apply: a number passes.
          code: { type: ["string", "integer"], minLength: 10, maxLength: 5 },
          carrier: { type: "string", pattern: "^[A-Z]+$", enum: ["UPS", "dhl"] },
          size: { anyOf: [{ type: "string", minLength: 2, maxLength: 1 }, { type: "integer" }] },
        },
        ["order_id"],
      ],
    ]);
    const tool = spec.tools[0] as { type: "function"; function: { name: string } };
    const mcp = {
      ...spec,
      tools: [
        {
          name: tool.function.name,
          inputSchema: { type: "object", properties: { order_id: { type: "string" } } },
          outputSchema: {
            type: "object",
            properties: { total: { type: "number", minimum: 5, maximum: 1 } },
          },
        },
      ],
    };
    const agent = Agent.from(spec);
    expect(agent.warnings).toEqual([
      'tools[0].function.parameters.properties.carrier.enum: "dhl": must match pattern "^[A-Z]+$": its own schema refuses this value, so no call can use it',
    ]);
    expect(Agent.from(mcp).warnings).toEqual([
      "tools[0].outputSchema.properties.total: no value can pass: minimum 5 and maximum 1 leave no number between them",
    ]);
    const data = await simulate(spec, { rows: 2 });
    expect(data.warnings).toContain(agent.warnings[0]);
  });
});
