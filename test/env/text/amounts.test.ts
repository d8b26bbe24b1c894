import { describe, expect, it } from "vitest";
import { Agent } from "../../../env/agent.ts";
import { argumentPhrase, goalOf, openingRequest } from "../../../env/people/goal.ts";
import { Rng } from "../../../env/rng.ts";
import { argumentsIn } from "../../../env/text/reading.ts";
import { createWorld } from "../../../env/world/index.ts";
import { type ToolModel, WorldModel } from "../../../env/world/model.ts";
import { situationOf } from "../../fixtures/situations.ts";
import { mcpTool } from "../../support/specs.ts";

/** A payment plan over arrears: two amounts, one the call's own and one an instalment. */
const SPEC = {
  name: "two amounts",
  system_prompt: "You help customers with their energy accounts.",
  policy: [],
  tools: [
    mcpTool(
      "create_payment_plan",
      "Set up a payment plan for the arrears of an account.",
      {
        account_number: { type: "string" },
        arrears_amount: { type: "number" },
        instalment_amount: { type: "number" },
        number_of_instalments: { type: "integer" },
      },
      ["account_number", "arrears_amount", "instalment_amount"],
    ),
  ],
};

describe("amounts said in one message", () => {
  const model = WorldModel.of(Agent.from(SPEC));
  const tool = model.tools.get("create_payment_plan") as ToolModel;

  it("give the call's amount the figure no other parameter's label claims", () => {
    expect(tool.amountParam).toBe("arrears_amount");
    const read = argumentsIn(
      model,
      tool,
      "I need to open 751.45 a new payment plan, with instalment amount 292.72, with number of instalments 2.",
    );
    expect(read.arrears_amount).toBe(751.45);
    expect(read.instalment_amount).toBe(292.72);
  });
});

describe("the amount in a person's opening request", () => {
  const agent = Agent.from({
    ...SPEC,
    tools: [
      ...SPEC.tools,
      mcpTool("find_account", "Find an account by its number.", {
        account_number: { type: "string" },
      }),
      mcpTool("pay_bill", "Pay an amount towards an account's bill.", {
        account_number: { type: "string" },
        amount: { type: "number" },
      }),
    ],
  });

  it("is said with its name unless it is money the verb moves", () => {
    const world = createWorld({
      spec: agent,
      situation: situationOf(agent, { tool: "create_payment_plan" }),
    });
    // Values are kept verbatim between private-use marks, which the writer removes.
    const said = (text: string) => text.replace(/[\uE000\uE001]/g, "");
    const plan = openingRequest(world, {
      tool: "create_payment_plan",
      arguments: { account_number: "ACC 1", arrears_amount: 751.45 },
      text: "",
    });
    expect(said(plan)).toMatch(/^open a new payment plan\b.*, with arrears amount 751\.45$/);
    const paid = openingRequest(world, {
      tool: "pay_bill",
      arguments: { account_number: "ACC 1", amount: 45 },
      text: "",
    });
    expect(said(paid)).toMatch(/^pay 45\.00 /);
  });
});

describe("an address in a person's opening request", () => {
  const agent = Agent.from({
    name: "addresses",
    system_prompt: "You help customers with their energy accounts.",
    policy: [],
    tools: [
      mcpTool(
        "find_account_by_address",
        "Find accounts at a supply address.",
        { address_line_1: { type: "string" }, postcode: { type: "string" } },
        ["address_line_1", "postcode"],
      ),
      mcpTool("update_address", "Change an account's address.", {
        account_id: { type: "string" },
        address: { type: "string" },
      }),
    ],
  });
  const model = WorldModel.of(agent);
  const said = (text: string) => text.replace(/[\uE000\uE001]/g, "");

  it("is where a write sends something, and what a read finds by, said so the agent reads it back", () => {
    for (let seed = 0; seed < 4; seed++) {
      const world = createWorld({
        spec: agent,
        situation: situationOf(agent, { tool: "find_account_by_address" }),
        seed,
      });
      const goal = goalOf(world, new Rng(seed, "goal"));
      expect(said(goal.text)).not.toMatch(/\bto \d/);
      const lookup = model.tools.get("find_account_by_address") as ToolModel;
      expect(argumentsIn(model, lookup, said(goal.text))).toMatchObject({
        address_line_1: goal.arguments.address_line_1,
      });
    }
    expect(said(argumentPhrase("address", "5 Quay Street"))).toBe("to 5 Quay Street");
    // A label is kept as typed: a typo must never hide which detail it is ("vat nmuber").
    expect(argumentPhrase("vat_number", "VAT-1")).toMatch(/^with \uE000vat number\uE001 /);
    expect(said(argumentPhrase("address_line_1", "87 Dover Close", false))).toBe(
      "with address line 1 87 Dover Close",
    );
  });
});

describe("a verb with a particle in a tool's name", () => {
  it("keeps the particle with the verb: port_in_number is 'port in the number', never 'port the in number'", () => {
    const agent = Agent.from({
      name: "ports",
      system_prompt: "You help mobile customers.",
      policy: [],
      tools: [
        mcpTool("port_in_number", "Move a number from another carrier onto an account.", {
          account_id: { type: "string" },
          phone_number: { type: "string" },
        }),
      ],
    });
    const world = createWorld({
      spec: agent,
      situation: situationOf(agent, { tool: "port_in_number" }),
    });
    const goal = goalOf(world, new Rng(1, "goal"));
    expect(goal.text.replace(/[\uE000\uE001]/g, "")).toMatch(/^port in (my|the) number\b/);
  });
});
