import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  coverageGap,
  DRAFT_TEMPLATES,
  draftAgent,
  InputError,
  simulate,
} from "../../../env/index.ts";
import { completion, OpenAICompatibleServer } from "../../support/openai-compatible-server.ts";

let model: OpenAICompatibleServer;
let folder: string;
beforeAll(async () => {
  model = await OpenAICompatibleServer.start();
  folder = await mkdtemp(join(tmpdir(), "rehearse-draft-"));
});
afterAll(async () => {
  await model.close();
  await rm(folder, { recursive: true, force: true });
});

/** One sentence per domain, each with the tools its behaviour must be bound to. */
const SENTENCES: Record<string, { sentence: string; tools: string[] }> = {
  "retail-orders": {
    sentence: "an online shop assistant that confirms before cancelling an order",
    tools: ["cancel_order"],
  },
  "personal-finance": {
    sentence: "a personal finance assistant that confirms before it moves money",
    tools: ["transfer_funds", "pay_bill"],
  },
  "travel-booking": {
    sentence: "an airline booking agent that verifies the passenger before changing a flight",
    tools: ["change_flight"],
  },
  "healthcare-appointments": {
    sentence: "a clinic front desk bot that never gives medical advice",
    tools: [],
  },
  "telecom-support": {
    sentence: "a telecom support agent that checks for outages before opening a ticket",
    tools: ["open_ticket"],
  },
  "insurance-claims": {
    sentence: "an insurance claims assistant that asks for photos before filing a claim",
    tools: ["file_claim", "withdraw_claim"],
  },
};

describe("draftAgent offline", () => {
  it("reaches every template by a sentence and binds the behaviour to the tools it concerns", async () => {
    expect(Object.keys(SENTENCES).sort()).toEqual(DRAFT_TEMPLATES.map((t) => t.id).sort());
    for (const [id, { sentence, tools }] of Object.entries(SENTENCES)) {
      const draft = await draftAgent(sentence);
      expect(draft.template?.id).toBe(id);
      expect(draft.drafter).toBe("offline");
      expect(draft.fallback).toBe("no model drafter was given");
      expect(draft.behaviour?.tools).toEqual(tools);
      const rule = draft.agent.policy.read.find((read) => read.id === draft.behaviour?.id);
      expect(rule?.tools ?? []).toEqual(tools);
      expect(draft.agent.warnings).toEqual([]);
    }
  });

  it("words the behaviour as a rule and reads a confirmation as one", async () => {
    const draft = await draftAgent(
      "a personal finance assistant that confirms before it moves money",
    );
    expect(draft.behaviour).toMatchObject({
      said: "confirms before it moves money",
      text: "Confirm before you move money.",
    });
    expect(
      draft.agent.policy.read.find((rule) => rule.id === draft.behaviour?.id)?.confirmation,
    ).toBe(true);
    expect((draft.spec.system_prompt as string).endsWith("Confirm before you move money.")).toBe(
      true,
    );
    expect(
      (await draftAgent("a clinic front desk bot that never gives medical advice")).behaviour?.text,
    ).toBe("Never give medical advice.");
    expect((await draftAgent("a bank assistant")).behaviour).toBeNull();
  });

  it("refuses a sentence no template matches, listing the domains", async () => {
    const refusal = draftAgent("a poetry tutor that rhymes");
    await expect(refusal).rejects.toBeInstanceOf(InputError);
    await expect(refusal).rejects.toThrow(
      /matches no domain the offline drafter knows \(retail orders; personal finance and payments; airline and travel booking; healthcare appointments; telecom and IT support; insurance claims\)/,
    );
  });

  it("drafts a spec whose 64 offline rows meet the data-quality bounds", async () => {
    const draft = await draftAgent(
      "a personal finance assistant that confirms before it moves money",
    );
    const data = await simulate(draft.spec, { rows: 64, seed: 1, out: join(folder, "cold.jsonl") });
    expect(data.size).toBe(64);
    expect(
      data.warnings.filter((warning) =>
        /quality|exercised|loops|empty|sentence|confirm|openings/i.test(warning),
      ),
    ).toEqual([]);
    expect(data.quality?.situation_tool_exercised.fraction).toBeGreaterThanOrEqual(0.95);
  });
});

describe("draftAgent with a model", () => {
  const valid = {
    name: "payments helper",
    system_prompt: "You help customers pay bills.",
    tools: [
      {
        type: "function",
        function: {
          name: "pay_bill",
          description: "Pay a bill.",
          parameters: {
            type: "object",
            properties: { bill_id: { type: "string", description: "Bill id, such as B-1024" } },
            required: ["bill_id"],
          },
        },
      },
      {
        type: "function",
        function: {
          name: "get_bill",
          description: "Look up a bill.",
          parameters: {
            type: "object",
            properties: { bill_id: { type: "string" } },
            required: ["bill_id"],
          },
        },
      },
    ],
    policy: [{ id: "confirm_payment", text: "Confirm before paying a bill.", tools: ["pay_bill"] }],
  };

  it("repairs an invalid draft through the retry, telling the model what was wrong", async () => {
    model.script(
      completion({ content: JSON.stringify({ name: "payments helper", tools: "none" }) }),
      completion({ content: JSON.stringify(valid) }),
    );
    const before = model.requests.length;
    const draft = await draftAgent("a payments helper that confirms before paying", {
      simulator: `test-model@${model.url}`,
    });
    expect(draft.drafter).toContain("test-model");
    expect(draft.template).toBeNull();
    expect(draft.fallback).toBeNull();
    expect(draft.attempts).toHaveLength(1);
    expect(draft.attempts[0]).toMatch(/tools/);
    expect(draft.agent.tools.map((tool) => tool.name)).toEqual(["pay_bill", "get_bill"]);
    const repair = model.requests[before + 1];
    expect(repair?.messages.at(-1)?.content).toMatch(/^That spec is invalid: .*tools/s);
  });

  it("falls back to the offline drafter, saying why, when the model's drafts stay invalid", async () => {
    model.script(...Array.from({ length: 3 }, () => completion({ content: "not json at all" })));
    const draft = await draftAgent(
      "a personal finance assistant that confirms before it moves money",
      { simulator: `test-model@${model.url}` },
    );
    expect(draft.drafter).toBe("offline");
    expect(draft.template?.id).toBe("personal-finance");
    expect(draft.attempts).toHaveLength(3);
    expect(draft.fallback).toMatch(
      /^the model drafter .*test-model.* failed: .*no valid draft after 3 tries: not JSON/,
    );
  });
});

describe("coverageGap", () => {
  const tools = [
    {
      name: "track_parcel",
      description: "Where a parcel is now.",
      inputSchema: {
        type: "object",
        properties: { tracking_number: { type: "string" } },
        required: ["tracking_number"],
      },
      annotations: { readOnlyHint: true },
    },
    {
      name: "cancel_order",
      description: "Cancel an order that has not shipped.",
      inputSchema: {
        type: "object",
        properties: { order_id: { type: "string" } },
        required: ["order_id"],
      },
    },
    {
      name: "refund_order",
      description: "Refund a delivered order.",
      inputSchema: {
        type: "object",
        properties: { order_id: { type: "string" } },
        required: ["order_id"],
      },
    },
    {
      name: "update_address",
      description: "Change the delivery address of an order.",
      inputSchema: {
        type: "object",
        properties: { order_id: { type: "string" }, address: { type: "string" } },
        required: ["order_id", "address"],
      },
    },
  ];
  const systemPrompt = "You help shop customers with orders.";
  const policy = [
    {
      id: "confirm_cancel",
      text: "Confirm with the customer before you cancel an order.",
      tools: ["cancel_order"],
    },
    {
      id: "refund_window",
      text: "Refunds are possible within 30 days of delivery.",
      tools: ["refund_order"],
    },
  ];
  const asks = [
    "Where is my parcel?",
    "Please cancel my order",
    "I want a refund",
    "Do you price match?",
  ];

  it("finds the known gaps offline", async () => {
    const gap = await coverageGap(asks, { tools, systemPrompt, policy });
    expect(gap.asks.map((entry) => [entry.ask, entry.tools])).toEqual([
      ["Where is my parcel?", ["track_parcel"]],
      ["Please cancel my order", ["cancel_order"]],
      ["I want a refund", ["refund_order"]],
      ["Do you price match?", []],
    ]);
    expect(gap.unserved_asks).toEqual(["Do you price match?"]);
    expect(gap.unreached_tools).toEqual(["update_address"]);
    expect(gap.unruled_asks).toEqual(["Where is my parcel?", "Do you price match?"]);
    expect(gap.judge_meta).toMatchObject({ judge: "coverage_gap", model: null });
  });

  it("asks a judge through the OpenAI-compatible test server, and stamps its answer", async () => {
    model.script(
      completion({
        content: JSON.stringify({
          asks: [
            { ask: "Where is my parcel?", tools: ["track_parcel"], rules: [] },
            { ask: "Please cancel my order", tools: ["cancel_order"], rules: ["confirm_cancel"] },
            {
              ask: "I want a refund",
              tools: ["refund_order", "made_up_tool"],
              rules: ["refund_window"],
            },
            { ask: "Do you price match?", tools: [], rules: [] },
          ],
        }),
      }),
    );
    const gap = await coverageGap(asks, {
      tools,
      systemPrompt,
      policy,
      judge: `test-model@${model.url}`,
    });
    expect(gap.asks[2]?.tools).toEqual(["refund_order"]);
    expect(gap.unserved_asks).toEqual(["Do you price match?"]);
    expect(gap.unreached_tools).toEqual(["update_address"]);
    expect(gap.unruled_asks).toEqual(["Where is my parcel?", "Do you price match?"]);
    expect(gap.judge_meta.judge).toBe("coverage_gap");
    expect(gap.judge_meta.model).toContain("test-model");
    expect(gap.judge_meta.rubric_hash).toMatch(/^[0-9a-f]{16}$/);
    const sent = JSON.parse(model.requests.at(-1)?.messages.at(-1)?.content ?? "{}");
    expect(sent.asks).toEqual(asks);
    expect(sent.tools.map((tool: { name: string }) => tool.name)).toEqual(
      tools.map((tool) => tool.name),
    );
  });
});
