import { describe, expect, it } from "vitest";
import { Agent } from "../../../env/agent.ts";
import { argumentsIn } from "../../../env/text/reading.ts";
import { type ToolModel, WorldModel } from "../../../env/world/model.ts";

/** A payment plan over arrears: two amounts, one the call's own and one an instalment. */
const SPEC = {
  name: "two amounts",
  system_prompt: "You help customers with their energy accounts.",
  policy: [],
  tools: [
    {
      name: "create_payment_plan",
      description: "Set up a payment plan for the arrears of an account.",
      inputSchema: {
        type: "object",
        properties: {
          account_number: { type: "string" },
          arrears_amount: { type: "number" },
          instalment_amount: { type: "number" },
          number_of_instalments: { type: "integer" },
        },
        required: ["account_number", "arrears_amount", "instalment_amount"],
      },
    },
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
