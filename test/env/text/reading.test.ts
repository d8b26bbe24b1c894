import { describe, expect, it } from "vitest";
import { Agent } from "../../../env/agent.ts";
import { argumentsIn, intentOf, wantsHuman } from "../../../env/text/reading.ts";
import { WorldModel } from "../../../env/world/model.ts";
import { helpdeskSpec, referenceSpec } from "../../fixtures/reference-spec.ts";
import { withDefaultAxes } from "../../fixtures/situations.ts";
import { growth, SLOW_BEFORE_THE_FIX } from "../../support/hostile.ts";

const retail = Agent.from(withDefaultAxes(referenceSpec));
const helpdesk = Agent.from(helpdeskSpec);

describe("the offline roles' reading stays linear on hostile text", () => {
  it(
    "reads an email argument after a million word characters, in linear time",
    () => {
      const model = WorldModel.of(helpdesk);
      const tool = model.tools.get("listTickets");
      if (!tool) throw new Error("listTickets missing");
      const text = `${"a".repeat(1_000_000)} write to me at sam.lee+it@corp.example.org.`;
      expect(argumentsIn(model, tool, text)).toMatchObject({
        userEmail: "sam.lee+it@corp.example.org",
      });
    },
    SLOW_BEFORE_THE_FIX,
  );

  it("skips quotations, and an unclosed quote mark stays linear", () => {
    const model = WorldModel.of(retail);
    const opened = (n: number) => intentOf(model, `${"“".repeat(n)} cancel my order`);
    expect(opened(16_000)?.tool.name).toBe("cancel_order");
    expect(
      intentOf(model, 'the sign said "cancel anytime", but I want to check my order')?.tool.name,
    ).not.toBe("cancel_order");
    // Four times the quote marks take about four times as long to read; a quadratic reading, sixteen.
    expect(growth(opened, 4_000)).toBeLessThan(8);
  });
});

describe("asking for a person", () => {
  it("is asking to be put through to someone, typed with letters swapped too, never to a plan or an account", () => {
    for (const text of [
      "I want to talk to a human",
      "Then can I speak to someone who can?",
      "can you put me through to somoene who can sort it, then??",
      "put me through to the billing team",
      "Can you pass me to a manager?",
      // As people ask for a desk by its name, mid-conversation too.
      "Thanks, but I still need you to talk to the front desk about billing dispute.",
      "I'd like to speak with the billing team.",
    ])
      expect(wantsHuman(text), text).toBe(true);
    for (const text of [
      "Can you transfer me to a cheaper plan?",
      "Can you connect me to the Okta SSO for my workspace?",
      "transfer me to my savings",
      "please don't pass me to someone else",
      "I need to talk to the plan options through with my partner",
    ])
      expect(wantsHuman(text), text).toBe(false);
  });
});

describe("reading what a request asks for", () => {
  it("takes no verb inside a record's name in brackets, or in \"let's see if\", for the action", async () => {
    const telecom = WorldModel.of(await Agent.load("test/fixtures/specs/telecom.json"));
    expect(
      intentOf(
        telecom,
        "Hi, I'd like to sort out my port request (Basalt port request) from 2026-05-25!",
      )?.tool.name,
    ).toBe("get_port_status");
    expect(intentOf(telecom, "I want to port in my number")?.tool.name).toBe("port_in_number");
    // "Let's see if…" asks to see nothing; the object of the action decides between two as strong.
    const saas = WorldModel.of(await Agent.load("test/fixtures/specs/saas-admin.json"));
    expect(
      intentOf(
        saas,
        "Let's see if this works: I want to check my invoice INV-9746-946172 from my workspace ws_Sd17laUY.",
      )?.tool.name,
    ).toBe("get_invoice");
  });

  it("takes no action the person says is not needed ('you don't need to check who I am') for the request", async () => {
    const energy = WorldModel.of(await Agent.load("test/fixtures/specs/utility-energy.json"));
    expect(
      intentOf(
        energy,
        "You don't need to check who I am, it's my own account. I want to check my bill.",
      )?.tool.name,
    ).toBe("get_bill");
    expect(intentOf(energy, "No need to check my account, just check my bill")?.tool.name).toBe(
      "get_bill",
    );
    // What the person could not do is still what they ask for.
    expect(intentOf(energy, "I can't check my bill online")?.tool.name).toBe("get_bill");
  });
});

describe("what a person asks for, apart from what they say happened", () => {
  const telecom = Agent.from({
    name: "lines",
    system_prompt: "You help mobile customers.",
    policy: [],
    tools: [
      {
        type: "function" as const,
        function: {
          name: "issue_number_transfer_pin",
          description: "Issue a PIN for moving a number to another carrier.",
          parameters: {
            type: "object" as const,
            properties: { line_id: { type: "string" } },
            required: ["line_id"],
          },
        },
      },
      {
        type: "function" as const,
        function: {
          name: "pay_bill",
          description: "Pay an account's bill.",
          parameters: {
            type: "object" as const,
            properties: { account_id: { type: "string" }, amount: { type: "number" } },
            required: ["account_id", "amount"],
          },
        },
      },
    ],
  } as never);
  const model = WorldModel.of(telecom);

  it("takes no action another did in the past for a request: 'your system gave me an error'", () => {
    expect(intentOf(model, "Your system gave me an error when I tried this before!")).toBeNull();
    expect(intentOf(model, "You sent me the wrong bill, please pay my bill")?.tool.name).toBe(
      "pay_bill",
    );
    expect(intentOf(model, "Can you issue a number transfer pin for my line?")?.tool.name).toBe(
      "issue_number_transfer_pin",
    );
  });

  it("takes a date after a record described in brackets as dating that record, no filter", () => {
    const invoices = Agent.from({
      name: "invoices",
      system_prompt: "You help admins.",
      policy: [],
      tools: [
        {
          type: "function" as const,
          function: {
            name: "list_invoices",
            description: "List a workspace's invoices.",
            parameters: {
              type: "object" as const,
              properties: {
                workspace_id: { type: "string" },
                since: { type: "string", format: "date" },
              },
              required: ["workspace_id"],
            },
          },
        },
      ],
    } as never);
    const listing = WorldModel.of(invoices);
    const tool = listing.tools.get("list_invoices");
    if (!tool) throw new Error("list_invoices missing");
    expect(
      argumentsIn(
        listing,
        tool,
        "i need some help with my workspace (Ember workspace) from 2026-05-03",
      ).since,
    ).toBeUndefined();
    expect(argumentsIn(listing, tool, "show my invoices since 2026-05-03").since).toBe(
      "2026-05-03",
    );
  });
});
