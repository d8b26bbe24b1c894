import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Agent } from "../../../env/agent.ts";
import { asksYes, descriptionAsksYes } from "../../../env/policy/confirmation.ts";
import { readPolicy } from "../../../env/policy/index.ts";
import { passagesOf } from "../../../env/policy/markdown.ts";
import { ToolMatcher } from "../../../env/policy/scope.ts";
import { contentWords, isRule, sameRule } from "../../../env/policy/statements.ts";
import { SpecError } from "../../../env/util/errors.ts";
import type { AgentSpec, ToolDefinition } from "../../../spec/index.ts";

type ToolSketch = string | { name: string; description?: string; properties?: object };

/** A spec of OpenAI tools, each a name (taking an `order_id`) or a name with its description and parameters. */
function specOf(tools: ToolSketch[], policy: AgentSpec["policy"] = []): AgentSpec {
  return {
    name: "store",
    system_prompt: "You help the store's customers.",
    policy,
    tools: tools.map((sketch) => {
      const { name, description, properties } =
        typeof sketch === "string" ? { name: sketch } : sketch;
      return {
        type: "function" as const,
        function: {
          name,
          description: description ?? name.replace(/_/g, " "),
          parameters: {
            type: "object" as const,
            properties: (properties ?? { order_id: { type: "string" } }) as Record<string, never>,
          },
        },
      };
    }),
  };
}

/** The tools of a spec as the engine normalises them (access and role included). */
const toolsOf = (...tools: ToolSketch[]): readonly ToolDefinition[] =>
  Agent.from(specOf(tools)).tools;

const STORE_TOOLS = toolsOf("cancel_order", "refund_order", "get_order", "update_address");
const read = (
  policy: string,
  tools: readonly ToolDefinition[] = STORE_TOOLS,
  prompt = "You help.",
) => readPolicy(policy, tools, prompt);
const ruleOf = (reading: ReturnType<typeof readPolicy>, text: string) =>
  reading.read.find((r) => r.text === text);

describe("markdown headings are kept as context", () => {
  const policy =
    "# Store policy\n\n## Cancel pending order\n\nOnly pending orders can be cancelled. Ask for the reason.\n\n## Returns\n\nItems can be returned within 30 days.";

  it("gives each passage the heading path above it", () => {
    const passages = passagesOf(policy);
    expect(passages.map((p) => p.text)).toEqual([
      "Only pending orders can be cancelled.",
      "Ask for the reason.",
      "Items can be returned within 30 days.",
    ]);
    expect(passages[0]?.headings).toEqual(["Store policy", "Cancel pending order"]);
    expect(passages[2]?.headings).toEqual(["Store policy", "Returns"]);
    // A heading is context, never a passage of its own.
    expect(passages.some((p) => /^(Store policy|Returns|Cancel pending order)$/.test(p.text))).toBe(
      false,
    );
  });

  it("keeps a nested bullet's parent as its lead, and skips code fences and tables", () => {
    const passages = passagesOf(
      "## Refunds\n\n- When refunding:\n  - Check the receipt.\n\n```\nNever run this.\n```\n\n| a | b |\n|---|---|\n| Never refund. | x |",
    );
    expect(passages.map((p) => p.text)).toEqual(["When refunding:", "Check the receipt."]);
    expect(passages[1]?.lead).toBe("When refunding:");
    expect(passages[1]?.kind).toBe("bullet");
  });

  it("reads rules whose section carries the heading path and whose ids are heading + words", () => {
    const reading = read(policy);
    expect(reading.source).toBe("markdown");
    const cancel = reading.read.filter((r) => r.section?.includes("Cancel pending order"));
    expect(cancel.map((r) => r.text)).toContain("Ask for the reason.");
    for (const rule of cancel) {
      expect(rule.section).toBe("Store policy › Cancel pending order");
      // The innermost heading's words, then the rule's own words.
      expect(rule.id).toMatch(/^cancel_pending_order\.[a-z0-9_]+$/);
    }
    expect(ruleOf(reading, "Ask for the reason.")?.id).toBe("cancel_pending_order.ask_reason");
    // What was set aside keeps its section too.
    for (const passage of reading.dropped) expect(passage.section).toMatch(/^Store policy › /);
    // The rules of the rule axis carry the section as well.
    for (const rule of reading.rules)
      expect(rule.section).toBe(reading.read.find((r) => r.id === rule.id)?.section);
  });

  it("makes rule ids unique when two rules start with the same words", () => {
    const reading = read(
      "## Orders\n\n- Ask for the order id and the reason before cancelling.\n- Ask for the order id and the reason before refunding.\n- Ask for the order id and the reason before updating the address.",
    );
    const ids = reading.read.map((r) => r.id);
    expect(ids).toHaveLength(3);
    expect(new Set(ids).size).toBe(3);
    for (const id of ids) expect(id).toMatch(/^orders\.ask_order_id_reason/);
    // Every id is a valid rule id, so the reading can become a spec's rule list.
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/);
  });
});

describe("statements of fact are not rules", () => {
  it("sets statements aside with a why, and keeps a prohibition", () => {
    const reading = read(
      "Our store sells 50 kinds of products. Each order has an order id such as '#W0000000'. Never refund after 30 days.",
    );
    expect(reading.read.map((r) => r.text)).toEqual(["Never refund after 30 days."]);
    const dropped = reading.dropped.map((d) => d.text);
    expect(dropped).toContain("Our store sells 50 kinds of products.");
    expect(dropped).toContain("Each order has an order id such as '#W0000000'.");
    for (const passage of reading.dropped) expect(passage.why).toMatch(/statement/);
    // A statement is neither a rule of the axis nor a rule id.
    expect(reading.rules.map((r) => r.text)).not.toContain("Our store sells 50 kinds of products.");
  });

  it("tells obligations, prohibitions and imperatives from descriptions", () => {
    for (const rule of [
      "Never refund after 30 days.",
      "You must verify the caller first.",
      "Do not promise delivery dates.",
      "Verify the caller before sharing anything.",
      "If the card is lost, freeze it.",
      "Transfer to a human: when the customer asks.",
    ])
      expect(isRule(rule), rule).toBe(true);
    for (const statement of [
      "Our store sells 50 kinds of products.",
      "Each order has an order id such as '#W0000000'.",
      "Shipping is free on every order.",
      "Each order can be pending, processed or delivered.",
    ])
      expect(isRule(statement), statement).toBe(false);
  });

  it("reads a limit worded without 'must' as a rule: 'Only X can be Y', 'X need Y'", () => {
    // isRule's own contract: a rule obliges, forbids or limits. These limit.
    expect(isRule("Only pending orders can be cancelled.")).toBe(true);
    expect(isRule("Refunds need a receipt.")).toBe(true);
  });
});

describe("duplicates merge", () => {
  it("keeps one rule for the same rule written in two sections, the other dropped as a duplicate", () => {
    const reading = read(
      "## Orders\n\n- Always verify the order number before acting.\n\n## Refunds\n\n- Always verify the order number before acting.",
    );
    expect(reading.read.filter((r) => /verify the order number/.test(r.text))).toHaveLength(1);
    const kept = reading.read[0];
    expect(kept?.section).toBe("Orders");
    expect(reading.dropped).toHaveLength(1);
    expect(reading.dropped[0]?.section).toBe("Refunds");
    expect(reading.dropped[0]?.why).toContain(kept?.id);
  });

  it("merges near-identical wording, and keeps rules that differ in what they say", () => {
    const reading = read(
      "- Always verify the order number before acting.\n- Verify the order number before acting on it.\n- Verify the order number before refunding.",
    );
    expect(reading.read.map((r) => r.text)).toEqual([
      "Always verify the order number before acting.",
      "Verify the order number before refunding.",
    ]);
    expect(reading.dropped.map((d) => d.text)).toEqual([
      "Verify the order number before acting on it.",
    ]);
    expect(reading.dropped[0]?.why).toMatch(/says what .+ says/);
  });

  it("compares rules by their content words", () => {
    const words = (s: string) => contentWords(s);
    expect(
      sameRule(words("Always confirm the refund."), words("You must confirm any refund.")),
    ).toBe(true);
    expect(sameRule(words("Confirm the refund."), words("Confirm the cancellation."))).toBe(false);
    expect(sameRule(new Set(), new Set())).toBe(false);
  });
});

describe("scoping rules to tools", () => {
  it("scopes a rule to the write whose action it speaks of", () => {
    // The words speak of one write each…
    const matcher = new ToolMatcher(STORE_TOOLS);
    expect(matcher.mentions("Only pending orders can be cancelled.").writes.tools).toEqual([
      "cancel_order",
    ]);
    expect(matcher.mentions("Refunds need a receipt.").writes.tools).toEqual(["refund_order"]);
    // …and the reading scopes each rule to it.
    const reading = read("- Only pending orders can be cancelled.\n- Refunds need a receipt.");
    expect(ruleOf(reading, "Only pending orders can be cancelled.")?.tools).toEqual([
      "cancel_order",
    ]);
    expect(ruleOf(reading, "Refunds need a receipt.")?.tools).toEqual(["refund_order"]);
  });

  it("scopes a prohibition to the write it speaks of", () => {
    const rule = ruleOf(read("- Never refund after 30 days."), "Never refund after 30 days.");
    expect(rule?.tools).toEqual(["refund_order"]);
    expect(rule?.scope).toMatch(/speaks of refund/);
  });

  it("scopes a rule that names a tool to it, saying it names it", () => {
    const rule = ruleOf(
      read("- Call get_order before anything else."),
      "Call get_order before anything else.",
    );
    expect(rule?.tools).toEqual(["get_order"]);
    expect(rule?.scope).toBe("names get_order");
  });

  it("scopes a rule under a heading about a tool to that tool", () => {
    const reading = read("## Update address\n\n- Repeat the new one back to the person first.");
    const rule = ruleOf(reading, "Repeat the new one back to the person first.");
    expect(rule?.tools).toEqual(["update_address"]);
    expect(rule?.scope).toContain('under the heading "Update address"');
  });

  it("applies a rule that speaks of no tool to every tool", () => {
    const reading = read("- Be polite.");
    expect(ruleOf(reading, "Be polite.")?.tools).toBeNull();
    expect(reading.rules[0]?.tools).toBeUndefined();
  });

  it("does not scope rules to a hand-off tool because the heading names the agent", () => {
    const tools = toolsOf("cancel_order", "get_order", {
      name: "transfer_to_human_agents",
      description: "Transfer the user to a human agent, with a summary.",
      properties: { summary: { type: "string" } },
    });
    expect(tools.find((t) => t.name === "transfer_to_human_agents")?.role).toBe("handoff");
    expect(new ToolMatcher(tools).headingTools("Retail agent policy")).toEqual([]);
    for (const policy of [
      "# Retail agent policy\n\n- Keep your replies short.\n- Be polite.",
      "# Retail agent policy\n\n- Keep your replies short.\n\n## Tone\n\n- Be polite.",
    ]) {
      const reading = read(policy, tools);
      expect(reading.read.length).toBeGreaterThan(0);
      for (const rule of reading.read) {
        expect(rule.section).toMatch(/^Retail agent policy/);
        expect(rule.tools ?? []).not.toContain("transfer_to_human_agents");
      }
    }
    // A heading that is about the hand-off does scope to it.
    const handoff = read("## Transfer to human agents\n\n- Keep a summary short.", tools);
    expect(handoff.read[0]?.tools).toEqual(["transfer_to_human_agents"]);
  });
});

describe("confirmation in varied wording", () => {
  const tools = toolsOf(
    "cancel_order",
    "refund_order",
    "get_order",
    "update_address",
    "place_order",
    {
      name: "close_account",
      description:
        "Close the customer's account. Ask for explicit user confirmation (yes/no) before calling.",
      properties: { account_id: { type: "string" } },
    },
  );
  const WRITES = ["cancel_order", "refund_order", "update_address", "place_order", "close_account"];
  const needs = (policy: string) => Object.keys(read(policy, tools).confirmation).sort();

  it("knows which tools are writes", () => {
    expect(new ToolMatcher(tools).writes().sort()).toEqual([...WRITES].sort());
  });

  it('"get a yes before cancelling" asks a yes for cancelling only', () => {
    const reading = read("- Get a yes before cancelling.", tools);
    expect(reading.read[0]?.confirmation).toBe(true);
    expect(reading.confirmation.cancel_order).toBe(`rule ${reading.read[0]?.id}`);
    expect(needs("- Get a yes before cancelling.")).toEqual(["cancel_order", "close_account"]);
  });

  it('"obtain explicit user confirmation (yes) before any change" asks a yes for every write', () => {
    expect(needs("- Obtain explicit user confirmation (yes) before any change.")).toEqual(
      [...WRITES].sort(),
    );
    expect(
      read("- Obtain explicit user confirmation (yes) before any change.", tools).confirmation,
    ).not.toHaveProperty("get_order");
  });

  it('"ask the customer to confirm before you refund" asks a yes for refunding, not for other writes', () => {
    const reading = read("- Ask the customer to confirm before you refund.", tools);
    expect(reading.read[0]?.confirmation).toBe(true);
    expect(reading.confirmation).toHaveProperty("refund_order");
    expect(reading.confirmation).not.toHaveProperty("cancel_order");
    expect(reading.confirmation).not.toHaveProperty("update_address");
    expect(reading.confirmation).not.toHaveProperty("place_order");
  });

  it("a tool whose description asks for a yes needs one, whatever the policy says", () => {
    expect(descriptionAsksYes("Ask for explicit user confirmation (yes/no) before calling.")).toBe(
      true,
    );
    expect(descriptionAsksYes("Close the customer's account.")).toBe(false);
    const reading = read("- Be polite.", tools);
    expect(reading.confirmation).toEqual({ close_account: "its description" });
  });

  it("a yes is not an identity check or a confirmation email", () => {
    expect(asksYes("Get a clear yes before you proceed.")).toBe(true);
    expect(asksYes("Confirm the customer's identity first.")).toBe(false);
    expect(asksYes("Send the confirmation email after booking.")).toBe(false);
  });

  it("a rule about reads only exempts no write", () => {
    const reading = read(
      "- Confirm every change with the customer.\n- No confirmation is needed for looking up information such as order details.",
      tools,
    );
    expect(reading.exempt).toEqual({});
    expect(Object.keys(reading.confirmation).sort()).toEqual([...WRITES].sort());
  });

  it("a read-only exemption in the same sentence as a yes for every action keeps the writes' yes", () => {
    const reading = read(
      "- Always get the customer's explicit confirmation before acting, but no confirmation is needed for looking up an order.",
      tools,
    );
    expect(reading.exempt).toEqual({});
    expect(Object.keys(reading.confirmation).sort()).toEqual([...WRITES].sort());
  });

  it("an exemption naming one write exempts that write alone", () => {
    const reading = read(
      "- Confirm every change with the customer.\n- No confirmation is needed to cancel an order.",
      tools,
    );
    expect(Object.keys(reading.exempt)).toEqual(["cancel_order"]);
    expect(reading.confirmation).not.toHaveProperty("cancel_order");
    expect(reading.confirmation).toHaveProperty("refund_order");
  });

  it('"there is no need to place a new order" exempts no tool with "order" in its name', () => {
    const orderTools = toolsOf(
      "cancel_order",
      "place_order",
      "get_order",
      "exchange_order_items",
      "return_order_items",
    );
    const orderWrites = [
      "cancel_order",
      "place_order",
      "exchange_order_items",
      "return_order_items",
    ];
    for (const policy of [
      "- Get a clear yes before any change.\n- There is no need to place a new order for exchanged items; the exchange creates it.",
      "Get a clear yes before any change. There is no need to place a new order for exchanged items; the exchange creates it.",
    ]) {
      const reading = read(policy, orderTools);
      expect(reading.exempt, policy).toEqual({});
      expect(Object.keys(reading.confirmation).sort(), policy).toEqual([...orderWrites].sort());
    }
  });
});

describe("identity", () => {
  it("an authentication rule requires identity first and is named", () => {
    const reading = read(
      "- Be polite.\n- Authenticate the user by email or by name and zip before anything else.",
    );
    const rule = ruleOf(
      reading,
      "Authenticate the user by email or by name and zip before anything else.",
    );
    expect(rule?.identity).toBe(true);
    expect(rule?.tools).toBeNull();
    expect(reading.identity).toEqual({ required: true, rule: rule?.id });
  });

  it("no identity rule, no requirement; the system prompt can ask for one too", () => {
    expect(read("- Be polite.").identity).toEqual({ required: false, rule: null });
    expect(
      read("- Be polite.", STORE_TOOLS, "Always verify the customer's identity first.").identity,
    ).toEqual({ required: true, rule: null });
  });
});

describe("a rule list is kept as written", () => {
  const list = [
    {
      id: "billing.confirm-payment",
      text: "Confirm the amount before you refund an order.",
      tools: ["refund_order"],
    },
    { id: "verify-identity", text: "Check the order before cancelling it." },
    { id: "tone", text: "Be polite." },
  ];

  it("accepts ids with '-' and '.', keeps tools and text, and suggests tools for unscoped rules", () => {
    const agent = Agent.from(
      specOf(["cancel_order", "refund_order", "get_order", "update_address"], list),
    );
    const reading = agent.policy;
    expect(reading.source).toBe("rules");
    expect(reading.dropped).toEqual([]);
    expect(agent.rules).toEqual(list);
    const [confirm, verify, tone] = reading.read;
    expect(confirm).toMatchObject({
      id: "billing.confirm-payment",
      tools: ["refund_order"],
      scope: "as written",
      confirmation: true,
    });
    expect(confirm?.suggested).toBeUndefined();
    expect(verify).toMatchObject({ id: "verify-identity", tools: null });
    expect(verify?.suggested).toEqual(expect.arrayContaining(["cancel_order", "get_order"]));
    expect(verify?.suggested).not.toContain("refund_order");
    expect(tone).toMatchObject({ id: "tone", tools: null });
    expect(tone?.suggested).toBeUndefined();
    // A yes asked by a scoped rule is asked for its tools only.
    expect(reading.confirmation).toEqual({ refund_order: "rule billing.confirm-payment" });
  });

  it("refuses an id that is not a rule id", () => {
    expect(() =>
      Agent.from(specOf(["cancel_order"], [{ id: "bad id!", text: "Be polite." }])),
    ).toThrow(SpecError);
  });
});

describe("the online store's markdown policy", () => {
  const spec = JSON.parse(
    readFileSync(join(import.meta.dirname, "../../fixtures/specs/online-store.json"), "utf8"),
  ) as AgentSpec;
  const agent = Agent.from(spec);
  const reading = agent.policy;
  const writes = agent.tools
    .filter((t) => t.role === "normal" && t.access === "write")
    .map((t) => t.name);
  const utilities = agent.tools.filter((t) => t.role === "utility").map((t) => t.name);
  const under = (heading: string) => reading.read.filter((r) => r.section?.endsWith(heading));

  it("is read from markdown, with unique ids and statements of fact set aside", () => {
    expect(reading.source).toBe("markdown");
    expect(reading.read.length).toBeGreaterThan(10);
    expect(new Set(reading.read.map((r) => r.id)).size).toBe(reading.read.length);
    const statements = reading.dropped.filter((d) => /statement/.test(d.why));
    expect(statements.length).toBeGreaterThan(5);
    expect(statements.map((d) => d.text)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^Our store sells 50 types of products/),
        expect.stringMatching(/^Each order has an order id such as '#W0000000'/),
      ]),
    );
    expect(reading.read.some((r) => /Our store sells/.test(r.text))).toBe(false);
  });

  it("asks a yes for every write of role normal, and for nothing else", () => {
    expect(writes.length).toBeGreaterThan(3);
    expect(Object.keys(reading.confirmation).sort()).toEqual([...writes].sort());
    expect(reading.exempt).toEqual({});
  });

  it("requires identity first, by the authentication rule", () => {
    expect(reading.identity.required).toBe(true);
    const rule = reading.read.find((r) => r.id === reading.identity.rule);
    expect(rule?.text).toMatch(/authenticate the user/);
  });

  it("scopes no rule to a utility tool, and none to the hand-off for the policy's title", () => {
    expect(utilities.sort()).toEqual(["calculate", "think"]);
    for (const rule of reading.read)
      for (const name of utilities) expect(rule.tools ?? [], rule.id).not.toContain(name);
    for (const rule of reading.read.filter((r) => r.section === "Retail agent policy"))
      expect(rule.tools ?? [], rule.id).not.toContain("transfer_to_human_agents");
  });

  it("scopes the rules of an action's section to that action's tool", () => {
    for (const rule of under("Cancel pending order"))
      expect(rule.tools, rule.id).toEqual(["cancel_pending_order"]);
    for (const rule of under("Return delivered order"))
      expect(rule.tools, rule.id).toEqual(["return_delivered_order_items"]);
    for (const rule of under("Exchange delivered order"))
      expect(rule.tools, rule.id).toEqual(["exchange_delivered_order_items"]);
    for (const rule of under("Modify items"))
      expect(rule.tools, rule.id).toEqual(["modify_pending_order_items"]);
  });

  it("scopes the rules under 'Modify payment' to changing the payment alone", () => {
    expect(under("Modify payment").length).toBeGreaterThan(0);
    for (const rule of under("Modify payment"))
      expect(rule.tools, rule.id).toEqual(["modify_pending_order_payment"]);
  });

  it("scopes the rules under 'Update default address' to the default address, not an order's", () => {
    expect(under("Update default address").length).toBeGreaterThan(0);
    for (const rule of under("Update default address"))
      expect(rule.tools, rule.id).toEqual(["update_user_default_address"]);
  });
});
