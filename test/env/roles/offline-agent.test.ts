import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { Agent } from "../../../env/agent.ts";
import { planSituations } from "../../../env/plan.ts";
import { OfflineAgent, pastOf } from "../../../env/roles/offline-agent.ts";
import { offlineUser } from "../../../env/roles/offline-user.ts";
import { OfflineWriter } from "../../../env/roles/offline-writer.ts";
import { playEpisode } from "../../../env/rollout.ts";
import { needsConfirmation } from "../../../env/text/reading.ts";
import { propertiesOf, WorldModel } from "../../../env/world/model.ts";
import type { AssistantMessage, ChatMessage, Coordinate, Row } from "../../../spec/index.ts";
import { financeSpec, helpdeskSpec, referenceSpec } from "../../fixtures/reference-spec.ts";
import { situationOf } from "../../fixtures/situations.ts";
import { callsOf, mcpTool } from "../../support/specs.ts";

const specs = {
  retail: Agent.from(referenceSpec),
  finance: Agent.from(financeSpec),
  helpdesk: Agent.from(helpdeskSpec),
};

async function rowsOf(agent: Agent, slipRate: number, rows = 64, seed = 0): Promise<Row[]> {
  const plan = planSituations(agent, { rows, seed, preferSuccess: false });
  const policy = new OfflineAgent({ slipRate });
  const out: Row[] = [];
  for (const situation of plan.cells)
    out.push(await playEpisode(agent, situation, policy, new OfflineWriter(), offlineUser, 12));
  return out;
}

/** How a scripted conversation answers the offline agent: tools by name, the person by the agent's words. */
interface Script {
  /** Each tool's answer by its name, or by the arguments it was called with; any other tool answers `otherTools`. */
  tools?: Record<string, string | ((args: Record<string, unknown>) => string)>;
  otherTools?: string;
  /** The person's reply to a message of the agent: the first whose pattern it matches. */
  replies?: [RegExp, string][];
  /** The reply when none matches; without one, the conversation stops there. */
  otherwise?: string;
  /** The conversation stops once the agent makes a call this holds for. */
  until?: (name: string, args: Record<string, unknown>) => boolean;
  steps?: number;
}

/** The offline agent played against a {@link Script}, from the person's opening message. */
async function scripted(agent: Agent, opening: string, script: Script) {
  const session = new OfflineAgent({ slipRate: 0 }).start(agent, 1);
  const conversation: ChatMessage[] = [
    { role: "system", content: agent.system_prompt },
    { role: "user", content: opening },
  ];
  const calls: { name: string; args: Record<string, unknown> }[] = [];
  const asked: string[] = [];
  let unanswered: string | undefined;
  for (let step = 0; step < (script.steps ?? 12); step++) {
    const { message } = await session.respond(conversation);
    conversation.push(message);
    const call = message.tool_calls?.[0];
    if (call) {
      const { name } = call.function;
      const args = JSON.parse(call.function.arguments) as Record<string, unknown>;
      calls.push({ name, args });
      if (script.until?.(name, args)) break;
      const answer = script.tools?.[name];
      const content =
        (typeof answer === "function" ? answer(args) : answer) ??
        script.otherTools ??
        '{"ok":true}';
      conversation.push({ role: "tool", tool_call_id: call.id, name, content });
      continue;
    }
    const text = message.content ?? "";
    asked.push(text);
    const reply = script.replies?.find(([when]) => when.test(text))?.[1] ?? script.otherwise;
    if (reply === undefined) {
      unanswered = text;
      break;
    }
    conversation.push({ role: "user", content: reply });
  }
  return { session, conversation, called: calls.map((c) => c.name), calls, asked, unanswered };
}

/** Telecom's line-usage request with its lookups answered, and `claim` said to the report. */
async function usageDisputed(claim: string, options: Partial<Script> = {}) {
  const telecom = await Agent.load("test/fixtures/specs/telecom.json");
  return scripted(telecom, "I'd like to check the usage of my line LN-14623105.", {
    tools: {
      lookup_account:
        '{"accounts":[{"account_id":"846235501","account_holder_name":"Ines Roy","account_type":"consumer","current_balance":212.5,"status":"open"}],"count":1,"total":1}',
      verify_account_pin: '{"account_id":"846235501","verified":true}',
      get_line_usage:
        '{"line_id":"LN-14623105","usage":"13.6 GB of data this billing cycle","status":"active"}',
    },
    replies: [
      [/phone/, "It's 8155551693."],
      [/pin|account/i, "The pin last four is 8075, account 846235501."],
      [/anything else/, claim],
      [/system shows/, "Fine, I'll sort that part out myself."],
    ],
    steps: 10,
    ...options,
  });
}

const assistantAt = (row: Row, i: number) => row.messages[i] as AssistantMessage;
const claimsSuccess = (text: string) => /^(done|all done)\b/i.test(text);

describe("the offline agent's rules", () => {
  it("reads which writes need the person's yes from the policy, honouring an exemption", () => {
    const model = WorldModel.of(specs.finance);
    expect(needsConfirmation(specs.finance, model.tools.get("transfer_funds") as never)).toBe(true);
    expect(needsConfirmation(specs.finance, model.tools.get("pay_bill") as never)).toBe(true);
    expect(needsConfirmation(specs.finance, model.tools.get("freeze_card") as never)).toBe(false);
    expect(needsConfirmation(specs.finance, model.tools.get("get_balance") as never)).toBe(false);
  });

  for (const [name, agent] of Object.entries(specs)) {
    it(`${name}: with no slips, it confirms before every write that needs it and never claims a failed call worked`, async () => {
      const model = WorldModel.of(agent);
      for (const row of await rowsOf(agent, 0)) {
        expect(row.episode.slips).toEqual([]);
        row.messages.forEach((message, i) => {
          if (message.role !== "assistant") return;
          for (const call of message.tool_calls ?? []) {
            const tool = model.tools.get(call.function.name);
            if (!tool || !needsConfirmation(agent, tool)) continue;
            const lastUser = row.messages
              .slice(0, i)
              .map((m) => m.role)
              .lastIndexOf("user");
            const asked = row.messages
              .slice(0, lastUser)
              .filter((m): m is AssistantMessage => m.role === "assistant")
              .some((m) => /Shall I go ahead\?/.test(m.content ?? ""));
            expect(asked, `${row.task_id}: ${call.function.name} without a confirmation`).toBe(
              true,
            );
          }
          const previous = row.messages[i - 1];
          if (previous?.role === "tool" && /"error"/.test(previous.content) && message.content)
            expect(claimsSuccess(message.content)).toBe(false);
        });
      }
    });
  }
});

describe("the offline agent's reports", () => {
  it("put a write's verb in the past as English does", () => {
    const verbs: Record<string, string> = {
      modify_order: "modified the order",
      apply_coupon: "applied the coupon",
      register_move_out: "registered the move out",
      setup_direct_debit: "set up the direct debit",
      transfer_funds: "transferred the funds",
      stop_payment: "stopped the payment",
      cancel_order: "cancelled the order",
      open_ticket: "opened the ticket",
      submit_claim: "submitted the claim",
      make_payment: "made the payment",
      buy_addon: "bought the addon",
      unfreeze_card: "unfrozen the card",
      top_up_balance: "topped up the balance",
      check_in_guest: "checked in the guest",
    };
    for (const [name, past] of Object.entries(verbs)) {
      const verb = name.split("_")[0] as string;
      expect(pastOf({ verb, tool: { name } } as never), name).toBe(past);
    }
  });

  it("say what a read read, in its tool's words", async () => {
    let reports = 0;
    for (const row of await rowsOf(specs.retail, 0)) {
      row.messages.forEach((message, i) => {
        const answer = row.messages[i - 1];
        if (message.role !== "assistant" || answer?.role !== "tool") return;
        if (!/^Here's what I found\b/.test(message.content ?? "")) return;
        reports++;
        const read = answer.name?.replace(/^(get|track|list)_/, "").replace(/_/g, " ");
        expect(message.content, row.task_id).toContain(`Here's what I found on the ${read}:`);
      });
    }
    expect(reports).toBeGreaterThan(0);
  });

  it("say a list of objects a write set by each object's details, in brackets", async () => {
    // Reproduction: a seat selection's report said the reservation's name and when it was made,
    // as its `seat_assignments` were a list of objects, not of plain values.
    const airline = await Agent.load("test/fixtures/specs/airline.json");
    let reports = 0;
    for (const row of await rowsOf(airline, 0, 300)) {
      row.messages.forEach((message, i) => {
        const answer = row.messages[i - 1];
        if (
          message.role !== "assistant" ||
          answer?.role !== "tool" ||
          answer.name !== "select_seats"
        )
          return;
        // A cut-off or garbled answer (a fault of the situation) is said otherwise.
        let body: { seat_assignments?: Record<string, string>[] };
        try {
          body = JSON.parse(answer.content);
        } catch {
          return;
        }
        if (!body.seat_assignments || /didn't load/.test(message.content ?? "")) return;
        reports++;
        const [seat] = body.seat_assignments;
        expect(message.content, row.task_id).toContain(
          `seat assignments (passenger ID ${seat?.passenger_id}, flight number ${seat?.flight_number}, seat ${seat?.seat})`,
        );
        expect(message.content, row.task_id).not.toMatch(/\bcreated at\b/);
      });
    }
    expect(reports).toBeGreaterThan(2);
  });

  it("say what a write set, as its answer shows it, and not the record's other fields", async () => {
    let reports = 0;
    const model = WorldModel.of(specs.retail);
    for (const row of await rowsOf(specs.retail, 0, 160)) {
      const calls = new Map<string, { name: string; arguments: string }>();
      row.messages.forEach((message, i) => {
        if (message.role === "assistant")
          for (const c of message.tool_calls ?? []) calls.set(c.id, c.function);
        const answer = row.messages[i - 1];
        if (message.role !== "assistant" || answer?.role !== "tool") return;
        if (!/^Done, I've\b/.test(message.content ?? "")) return;
        const call = calls.get(answer.tool_call_id);
        const tool = call && model.tools.get(call.name);
        if (!call || !tool) return;
        const body = JSON.parse(answer.content) as Record<string, unknown>;
        const args = JSON.parse(call.arguments) as Record<string, unknown>;
        const shown = Object.keys(args).filter(
          (p) => p !== tool.idParam && typeof body[p] === "string",
        );
        if (shown.length === 0) return;
        reports++;
        for (const p of shown)
          expect(message.content, row.task_id).toContain(
            String(body[p]).replace(/_/g, " ").split(" ")[0],
          );
        expect(message.content, row.task_id).not.toMatch(/\bcreated at\b/);
      });
    }
    expect(reports).toBeGreaterThan(5);
  });

  it("name every record of a short list, each of up to five with its details and status, and the first five and how many more of a long one", async () => {
    let lists = 0;
    let long = 0;
    let detailed = 0;
    // A catalog browsed whole: the store's products, listed without a filter.
    const store = Agent.from(
      JSON.parse(readFileSync("test/fixtures/specs/online-store.json", "utf8")),
    );
    for (const row of [...(await rowsOf(specs.retail, 0)), ...(await rowsOf(store, 0, 200))]) {
      row.messages.forEach((message, i) => {
        const answer = row.messages[i - 1];
        if (message.role !== "assistant" || answer?.role !== "tool") return;
        if (!/^Here's what I found/.test(message.content ?? "")) return;
        const body = JSON.parse(answer.content) as Record<string, unknown>;
        const list = Object.values(body).find(Array.isArray) as
          | Record<string, unknown>[]
          | undefined;
        if (!list || typeof body.count !== "number" || list.length < 2) return;
        lists++;
        if (list.length > 5) long++;
        const ids = list.map((r) => String(Object.values(r)[0]));
        const named = ids.filter((id) => message.content?.includes(id));
        if (ids.length <= 10) expect(named, row.task_id).toEqual(ids);
        // Up to five are each told with what they hold: "W1 (total 54.00, status pending)".
        if (ids.length <= 5) {
          detailed++;
          for (const record of list) {
            const status = typeof record.status === "string" ? record.status : null;
            if (status)
              expect(message.content, row.task_id).toContain(
                `${String(Object.values(record)[0])} (`,
              );
            if (status)
              expect(message.content, row.task_id).toMatch(
                new RegExp(`status ${status.replace(/_/g, " ")}\\b`),
              );
          }
        } else if (ids.length <= 10) expect(message.content).not.toContain(`${ids[0]} (`);
        else {
          expect(named, row.task_id).toEqual(ids.slice(0, 5));
          expect(message.content).toContain(`and ${ids.length - 5} more`);
        }
      });
    }
    expect(lists).toBeGreaterThan(0);
    expect(long).toBeGreaterThan(0);
    expect(detailed).toBeGreaterThan(0);
  });
});

describe("the offline agent's slips", () => {
  const all = Promise.all(Object.values(specs).map((agent) => rowsOf(agent, 1, 96, 3))).then(
    (lists) => lists.flat(),
  );

  it("makes each named slip somewhere, at most one per episode", async () => {
    const rows = await all;
    const kinds = new Set(rows.flatMap((r) => r.episode.slips.map((s) => s.kind)));
    expect(kinds).toEqual(
      new Set([
        "skipped_confirmation",
        "invented_identifier",
        "claimed_unperformed_action",
        "claimed_success_after_error",
        "early_handoff",
      ]),
    );
    for (const row of rows) expect(row.episode.slips.length).toBeLessThanOrEqual(1);
  });

  it("records each slip on the message where it really happened", async () => {
    for (const row of await all) {
      for (const slip of row.episode.slips) {
        const message = assistantAt(row, slip.message);
        expect(message.role).toBe("assistant");
        const before = row.messages.slice(0, slip.message);
        const said = (m: ChatMessage) => (m.role === "user" || m.role === "tool" ? m.content : "");
        switch (slip.kind) {
          case "early_handoff":
            expect(
              row.messages.slice(0, slip.message).filter((m) => m.role === "assistant"),
            ).toHaveLength(row.episode.history_turns / 2);
            break;
          case "invented_identifier": {
            const args = JSON.parse(message.tool_calls?.[0]?.function.arguments ?? "{}") as Record<
              string,
              string
            >;
            const invented = slip.detail.match(/=(\S+?)(,|$)/)?.[1] as string;
            expect(Object.values(args)).toContain(invented);
            expect(before.map(said).join(" ")).not.toContain(invented);
            break;
          }
          case "skipped_confirmation":
            expect(message.tool_calls).toHaveLength(1);
            expect(
              before.some(
                (m) => m.role === "assistant" && /Shall I go ahead/.test(m.content ?? ""),
              ),
            ).toBe(false);
            break;
          case "claimed_unperformed_action":
            expect(claimsSuccess(message.content ?? "")).toBe(true);
            expect(
              row.messages.some(
                (m) =>
                  m.role === "assistant" &&
                  (m.tool_calls ?? []).some((c) => c.function.name === row.episode.goal.tool),
              ),
            ).toBe(false);
            break;
          case "claimed_success_after_error":
            expect(claimsSuccess(message.content ?? "")).toBe(true);
            expect(row.messages[slip.message - 1]?.role).toBe("tool");
            expect(
              JSON.parse((row.messages[slip.message - 1] as { content: string }).content).error,
            ).toEqual(expect.any(String));
            break;
        }
      }
    }
  });
});

describe("a hand-off's choice", () => {
  it.each([
    [
      "I want to withdraw my claim CLM-2026-561598. Can I speak to someone?",
      "withdraw_submitted_claim",
    ],
    ["Someone used my card, it's fraud. Put me through to a human.", "fraud_and_security"],
    ["I need a refund for this. Can I talk to a human?", "refund_or_credit"],
    ["My insurer rejected it. I want to speak to someone.", "claim_or_insurer"],
    ["I want to dispute this charge. Can I speak to someone?", "billing_dispute"],
    ["I'm feeling better now, can I talk to someone?", "customer_request"],
    [
      "It failed when I did it myself, with loss type home subsidence. Can I speak to someone?",
      "customer_request",
    ],
    // A choice of states alone is named by them; the words of an ask for someone name no team.
    ["My card arrived damaged. Can I speak to someone?", "damaged"],
    ["I need a human from customer support.", "customer_request"],
  ])(
    "is the one the person named, in part where part of it names it: %s",
    async (content, reason) => {
      // Reproduction: people who asked to speak to someone about a note on their claim were handed
      // over for `withdraw_submitted_claim` ("claim"), `large_loss` ("loss type") and
      // `verification_failed` ("it failed"; insurance-claims, 53 hand-offs in 500 rows at seed 829).
      const spec = Agent.from({
        name: "callbacks",
        system_prompt: "You help policyholders with their claims.",
        policy: [],
        tools: [
          mcpTool("get_claim", "Look up one claim by its id.", { claim_id: { type: "string" } }, [
            "claim_id",
          ]),
          mcpTool(
            "create_claim",
            "Open a claim.",
            { loss_type: { type: "string" }, date_of_loss: { type: "string" } },
            ["loss_type", "date_of_loss"],
          ),
          mcpTool(
            "request_callback",
            "Hand the conversation to a human adjuster, who calls the customer back.",
            {
              reason: {
                type: "string",
                enum: [
                  "customer_request",
                  "withdraw_submitted_claim",
                  "fraud_and_security",
                  "refund_or_credit",
                  "claim_or_insurer",
                  "billing_dispute",
                  "fee_waiver",
                  "large_loss",
                  "verification_failed",
                  "device_support",
                  "damaged",
                ],
              },
              summary: { type: "string" },
            },
            ["reason", "summary"],
          ),
        ],
      });
      const session = new OfflineAgent({ slipRate: 0 }).start(spec, 1);
      const { message } = await session.respond([
        { role: "system", content: "You help policyholders with their claims." },
        { role: "user", content },
      ]);
      const call = message.tool_calls?.[0];
      expect(call?.function.name, message.content ?? "").toBe("request_callback");
      expect(JSON.parse(call?.function.arguments ?? "{}").reason).toBe(reason);
    },
  );

  it("is the one said whole, not one a word of which turns up elsewhere", async () => {
    const spec = Agent.from({
      name: "callbacks",
      system_prompt: "You help policyholders.",
      policy: [],
      tools: [
        {
          type: "function" as const,
          function: {
            name: "transfer_to_agent",
            description: "Hand the conversation to a human team.",
            parameters: {
              type: "object" as const,
              properties: {
                team: {
                  type: "string",
                  enum: ["customer_care", "verification_failed", "complaints"],
                },
                summary: { type: "string" },
              },
              required: ["team", "summary"],
            },
          },
        },
      ],
    } as never);
    const session = new OfflineAgent({ slipRate: 0 }).start(spec, 1);
    const { message } = await session.respond([
      { role: "system", content: "You help policyholders." },
      {
        role: "user",
        content:
          "I was told this would be taken care of and it failed. I want to talk to a human about complaints.",
      },
    ]);
    const call = message.tool_calls?.[0];
    expect(call?.function.name).toBe("transfer_to_agent");
    expect(JSON.parse(call?.function.arguments ?? "{}").team).toBe("complaints");
  });
});

describe("a hand-off's level", () => {
  it("is the one said as a word, not one whose word hides inside another ('today' is no same_day), typos mended", async () => {
    const spec = Agent.from({
      name: "pharmacists",
      system_prompt: "You help pharmacy customers.",
      policy: [],
      tools: [
        mcpTool(
          "pharmacist_consult",
          "Hand the conversation to a pharmacist on duty.",
          {
            question: { type: "string" },
            urgency: { type: "string", enum: ["routine", "same_day", "urgent"] },
          },
          ["question", "urgency"],
        ),
        mcpTool("transfer_to_human_agents", "Transfer the customer to a human agent.", {
          summary: { type: "string" },
        }),
      ],
    });
    for (const content of [
      "I need to talk to a pharmacist, it's urgent. Today. Me again, about the same thing.",
      // Typed with slips, the words are still heard.
      "I was hoping you could help me talk to a pharamcist, it's urgnet. Thank you.",
    ]) {
      const session = new OfflineAgent({ slipRate: 0 }).start(spec, 1);
      const { message } = await session.respond([
        { role: "system", content: "You help pharmacy customers." },
        { role: "user", content },
      ]);
      const call = message.tool_calls?.[0];
      expect(call?.function.name).toBe("pharmacist_consult");
      expect(JSON.parse(call?.function.arguments ?? "{}").urgency).toBe("urgent");
    }
  });

  it("passes on what the person said as they said it, slips and all", async () => {
    const spec = Agent.from({
      name: "desk",
      system_prompt: "You help customers.",
      policy: [],
      tools: [
        mcpTool("transfer_to_human_agents", "Transfer the customer to a human agent.", {
          summary: { type: "string" },
        }),
      ],
    });
    const session = new OfflineAgent({ slipRate: 0 }).start(spec, 1);
    const said = "I need this sorted, plaese actually cehck it worked!";
    const { message } = await session.respond([
      { role: "system", content: "You help customers." },
      { role: "user", content: said },
      { role: "assistant", content: "Sorry, I'm not sure what you need." },
      // A slipped ask for someone is still heard, and is no part of what is passed on.
      { role: "user", content: "Can you put me throguh to somenoe?" },
    ]);
    const call = message.tool_calls?.[0];
    expect(call?.function.name).toBe("transfer_to_human_agents");
    const summary = JSON.parse(call?.function.arguments ?? "{}").summary;
    expect(summary).toContain(said);
    expect(summary).not.toContain("throguh");
  });
});

describe("a read asked again", () => {
  const spec = Agent.from({
    name: "workspaces",
    system_prompt: "You help admins with their workspaces.",
    policy: [],
    tools: [
      {
        type: "function" as const,
        function: {
          name: "find_workspace",
          description: "Find workspaces by the email address of one of their admins.",
          parameters: {
            type: "object" as const,
            properties: { admin_email: { type: "string", format: "email" } },
            required: ["admin_email"],
          },
        },
      },
    ],
  } as never);

  /** A conversation that opens with `opening`; every read finds no workspace. */
  const play = (opening: string) => {
    const session = new OfflineAgent({ slipRate: 0 }).start(spec, 1);
    const conversation: ChatMessage[] = [
      { role: "system", content: "You help admins with their workspaces." },
      { role: "user", content: opening },
    ];
    const emails: string[] = [];
    const step = async (): Promise<void> => {
      const { message } = await session.respond(conversation);
      conversation.push(message);
      const call = message.tool_calls?.[0];
      if (!call) return;
      emails.push(JSON.parse(call.function.arguments).admin_email);
      conversation.push({
        role: "tool",
        tool_call_id: call.id,
        name: call.function.name,
        content: '{"workspaces":[],"count":0,"total":0}',
      });
      return step();
    };
    const ask = async (content: string) => {
      conversation.push({ role: "user", content });
      await step();
      return conversation.at(-1)?.content ?? "";
    };
    return { emails, step, ask, conversation };
  };

  it("with other details is looked up again with them, once", async () => {
    const { emails, step, ask } = play(
      "I want to find my workspace, with admin email ada@analytical.org",
    );
    await step();
    await ask("I'm trying to find my workspace, with admin email grace@hopper.dev.");
    await ask("I'm trying to find my workspace, with admin email alan@turing.org.");
    expect(emails).toEqual(["ada@analytical.org", "grace@hopper.dev"]);
  });

  it("is not what a dispute of a detail every record it listed has is answered with: that was told", async () => {
    const { asked } = await scripted(
      spec,
      "I want to find my workspaces, with admin email ada@analytical.org",
      {
        tools: {
          find_workspace:
            '{"workspaces":[{"workspace_id":"ws_1","name":"Harbor workspace","status":"active"},{"workspace_id":"ws_2","name":"Lumen workspace","status":"active"}],"count":2}',
        },
        replies: [[/anything else/, "That doesn't match what I have. My status says suspended."]],
        steps: 3,
      },
    );
    expect(asked.at(-1)).toMatch(/what I told you/);
  });

  it("answers a disputed detail from the record in hand of a list, never from the list's own count", async () => {
    const retail = await Agent.load("examples/retail-orders.json");
    const { asked } = await scripted(retail, "Can you check my order W2502461?", {
      tools: {
        list_orders:
          '{"orders":[{"order_id":"W1111111","status":"delivered","total":5},{"order_id":"W2502461","status":"processing","total":7}],"count":2,"total":2}',
        get_order: '{"order_id":"W2502461","status":"processing"}',
      },
      replies: [
        [/email/, "It's ada@analytical.org"],
        [/^Here's what I found/, "And what does it show for the total? Mine says 9."],
      ],
      steps: 6,
    });
    expect(asked.at(-1)).toMatch(/\btotal 7\b/);
  });

  it("never answers a dispute of a record's state with what it was before a write that changed it", async () => {
    const retail = await Agent.load("examples/retail-orders.json");
    const { asked } = await scripted(
      retail,
      "I want to cancel my order W2502461 because it's no longer needed.",
      {
        tools: {
          list_orders: '{"orders":[{"order_id":"W2502461","status":"processing"}]}',
          get_order: '{"order_id":"W2502461","status":"processing","total":10}',
          cancel_order: '{"order_id":"W2502461","success":true}',
        },
        replies: [
          [/email/, "It's ada@analytical.org"],
          [/go ahead|proceed/i, "Yes, go ahead."],
          [/^Done/, "That doesn't match what I have. My status says pending."],
        ],
        steps: 10,
      },
    );
    expect(asked.at(-1), asked.join("\n")).toMatch(/not what you have|can't see/);
    expect(asked.at(-1)).not.toMatch(/status processing/);
  });

  it("twice before a write is read again when the write is doubted", async () => {
    // Reproduction: the order read to report it and again before its cancellation counted against
    // the check of the cancellation, which was then not made.
    const retail = await Agent.load("examples/retail-orders.json");
    const { called } = await scripted(retail, "Can you check my order W2502461?", {
      tools: {
        list_orders: '{"orders":[{"order_id":"W2502461","status":"processing"}]}',
        get_order: '{"order_id":"W2502461","status":"processing","total":10}',
        cancel_order: '{"order_id":"W2502461","status":"cancelled","total":10}',
      },
      replies: [
        [/email/, "It's ada@analytical.org"],
        [/go ahead|proceed/i, "Yes, go ahead."],
        [
          /^Here's what I found/,
          "I want to cancel my order W2502461 because it's no longer needed.",
        ],
        [
          /^Done/,
          "Are you sure it actually went through? Can you double-check and tell me what the system shows?",
        ],
      ],
      steps: 12,
    });
    const cancelled = called.indexOf("cancel_order");
    expect(cancelled, called.join(" ")).toBeGreaterThan(0);
    expect(called.filter((name) => name === "get_order").length).toBeGreaterThanOrEqual(2);
    expect(called.slice(cancelled + 1), called.join(" ")).toContain("get_order");
  });

  it("with the same details, then doubted, is not read a third time: the answer is told again", async () => {
    // Reproduction: a lookup for another request found no workspace; asked for the workspace
    // itself, then to check again, the agent read the same empty list a second and a third time
    // (saas-admin, 1 of 500 rows at seed 401, a loop).
    const saas = await Agent.load("test/fixtures/specs/saas-admin.json");
    const { calls, asked } = await scripted(saas, "I'd like to see the invoices of my workspace.", {
      tools: { find_workspace: '{"workspaces":[],"count":0,"total":0}' },
      replies: [
        [/email address/, "It's soren.iqbal@fastmail.com"],
        [/workspace ID/, "I don't have a number for it, sorry."],
        [
          /couldn't find any workspaces/,
          "What I need is simple: find my workspace with admin email soren.iqbal@fastmail.com",
        ],
        [
          /0 workspaces\. Is there/,
          "That can't be right, there should be something there. Can you check again?",
        ],
      ],
      steps: 12,
    });
    const reads = calls.filter((c) => c.name === "find_workspace");
    expect(reads.length, asked.join("\n")).toBe(2);
    expect(asked.at(-1)).toMatch(/what the system answered|system's answer/);
  });
});

describe("the early hand-off slip", () => {
  it("hands off through the steps of a hand-off asked for: every call well formed, none refused", async () => {
    const saas = Agent.load("test/fixtures/specs/saas-admin.json");
    const agent = await saas;
    const model = WorldModel.of(agent);
    const rows = (await rowsOf(agent, 1, 96, 3)).filter((r) =>
      r.episode.slips.some((s) => s.kind === "early_handoff"),
    );
    expect(rows.length).toBeGreaterThan(5);
    let handedOff = 0;
    for (const row of rows) {
      for (const message of row.messages) {
        if (message.role === "tool")
          expect(message.content, row.id).not.toMatch(
            /"error":"(invalid_arguments|placeholder_argument)"/,
          );
        if (message.role !== "assistant") continue;
        for (const call of message.tool_calls ?? []) {
          const tool = model.tools.get(call.function.name);
          if (tool?.kind !== "handoff") continue;
          handedOff++;
          const args = JSON.parse(call.function.arguments);
          for (const param of tool.tool.parameters.required ?? [])
            expect(args[param], `${row.id} ${param}`).toBeDefined();
        }
      }
    }
    expect(handedOff).toBeGreaterThan(0);
  });
});

describe("a check of the person without the detail it needs", () => {
  it("is no pass: a check without a detail the person cannot give is not sent, and the request ends unchanged", async () => {
    const fn = (name: string, description: string, properties: Record<string, unknown>) => ({
      type: "function" as const,
      function: {
        name,
        description,
        parameters: { type: "object" as const, properties, required: Object.keys(properties) },
      },
    });
    const spec = Agent.from({
      name: "pins",
      system_prompt: "You help customers of a shop.",
      policy: [
        {
          id: "verify",
          text: "Verify the caller's identity with their PIN before making any change to their account.",
        },
      ],
      tools: [
        fn("find_customer", "Find a customer by email.", {
          email: { type: "string", format: "email" },
        }),
        fn("verify_customer_pin", "Check the PIN a customer gives against their record.", {
          customer_id: { type: "string" },
          pin: { type: "string", pattern: "^\\d{4}$" },
        }),
        fn("update_address", "Change a customer's address.", {
          customer_id: { type: "string" },
          address: { type: "string" },
        }),
      ],
    } as never);
    const session = new OfflineAgent({ slipRate: 0 }).start(spec, 1);
    const conversation: ChatMessage[] = [
      { role: "system", content: "You help customers of a shop." },
      {
        role: "user",
        content:
          "Please change my address to 5 Quay Street, Bristol BS1 5TR. My email is ada@analytical.org",
      },
    ];
    const called: string[] = [];
    for (let step = 0; step < 8; step++) {
      const { message } = await session.respond(conversation);
      conversation.push(message);
      const call = message.tool_calls?.[0];
      if (!call) {
        if (/anything else/i.test(message.content ?? "")) break;
        // The person only has a five-digit number, which the check's pattern refuses.
        conversation.push({ role: "user", content: "It's 12345." });
        continue;
      }
      called.push(call.function.name);
      const content =
        call.function.name === "find_customer"
          ? '{"customers":[{"customer_id":"CUS-1","name":"Ada"}],"count":1,"total":1}'
          : '{"error":"invalid_arguments","message":"The arguments to verify_customer_pin were refused","problems":["missing required argument \\"pin\\""]}';
      conversation.push({ role: "tool", tool_call_id: call.id, name: call.function.name, content });
    }
    // The check would be refused without the PIN: it is never sent, and nothing changes.
    expect(called).toEqual(["find_customer"]);
    expect(conversation.at(-1)?.content).toMatch(/without the pin I can't confirm/i);
  });
});

describe("the person's answer to a read-back", () => {
  const fn = (name: string, description: string, properties: Record<string, unknown>) => ({
    type: "function" as const,
    function: {
      name,
      description,
      parameters: { type: "object" as const, properties, required: Object.keys(properties) },
    },
  });
  const spec = Agent.from({
    name: "addresses",
    system_prompt: "You help customers of a shop.",
    policy: [
      {
        id: "confirm",
        text: "Read the new address back and get the customer's explicit confirmation before changing it.",
      },
    ],
    tools: [
      fn("update_address", "Change a customer's address.", {
        email: { type: "string", format: "email" },
        address: { type: "string" },
      }),
    ],
  } as never);

  /** The tools the agent calls when the person answers every read-back with `answer`. */
  async function callsAfter(answer: string): Promise<string[]> {
    const session = new OfflineAgent({ slipRate: 0 }).start(spec, 1);
    const conversation: ChatMessage[] = [
      { role: "system", content: "You help customers of a shop." },
      {
        role: "user",
        content:
          "Please change my address to 5 Quay Street, Bristol BS1 5TR. My email is ada@analytical.org",
      },
    ];
    const called: string[] = [];
    for (let step = 0; step < 6; step++) {
      const { message } = await session.respond(conversation);
      conversation.push(message);
      const call = message.tool_calls?.[0];
      if (call) {
        called.push(call.function.name);
        const content = '{"ok":true}';
        conversation.push({
          role: "tool",
          tool_call_id: call.id,
          name: call.function.name,
          content,
        });
        continue;
      }
      if (/anything else/i.test(message.content ?? "")) break;
      conversation.push({ role: "user", content: answer });
    }
    return called;
  }

  it("acts on a yes past a filler, and not on a no past one", async () => {
    expect(await callsAfter("Okay.")).toEqual(["update_address"]);
    expect(await callsAfter("Okay, no.")).toEqual([]);
    expect(await callsAfter("Right, no thanks.")).toEqual([]);
    expect(await callsAfter("No problem, go ahead.")).toEqual(["update_address"]);
  });
});

describe("finding who the person is", () => {
  it("never takes a lookup by zip alone (the stores near them) for one that finds the person", async () => {
    const pharmacy = await Agent.load("test/fixtures/specs/pharmacy.json");
    const { session, conversation, called } = await scripted(
      pharmacy,
      "I'd like to see my orders for my patient pt_38898.",
      {
        // Nobody has these details: the person's record is missing.
        otherTools: '{"patients":[],"count":0,"total":0}',
        replies: [
          [/phone/, "+1 (842) 555-5215"],
          [/first name/, "first name Soren, last name O'Connell, zip code 69002"],
          [/zip code/, "69002"],
        ],
        steps: 10,
      },
    );
    expect(called).toEqual(["find_patient_by_phone", "find_patient_by_name"]);
    expect(conversation.at(-1)?.content).toMatch(/couldn't find your account/);
    // Asked to try again with nothing new, it says so at once: the same details find no one again.
    conversation.push({ role: "user", content: "Can you try again? I really need this sorted." });
    const { message } = await session.respond(conversation);
    expect(message.tool_calls).toBeUndefined();
    expect(message.content).toMatch(/found no account|no account that matches/);
  });

  it("takes the lookup that found the person for the read of their record a change needs, not making it twice", async () => {
    const insurance = await Agent.load("test/fixtures/specs/insurance-claims.json");
    const found = {
      policyholders: [
        { policyholder_id: "PH-2156802", full_name: "Soren Schmidt", date_of_birth: "1955-03-26" },
      ],
      count: 1,
      total: 1,
    };
    const { called } = await scripted(
      insurance,
      "i want to change my payout bank details, with policyholder id PH-2156802.",
      {
        tools: { find_policyholder: JSON.stringify(found) },
        replies: [
          [/go ahead/, "yes, do it."],
          [/full name/, "name Soren Schmidt, date of birth 1955-03-26"],
          [/sort code/, "sort code 79-6940, account number 67144521"],
        ],
        until: (name) => name === "update_payout_bank_details",
      },
    );
    expect(called).toEqual(["find_policyholder", "update_payout_bank_details"]);
  });

  it("lists only the person's records to find one they have no id for: by a detail they gave, else asked", async () => {
    const workspaces = await Agent.load("test/fixtures/specs/saas-admin.json");
    const noId: [RegExp, string] = [
      /workspace ID/,
      "I don't have the workspace ID to hand, sorry. It's my Sable workspace.",
    ];
    const firstList = async (opening: string, replies: [RegExp, string][]) =>
      (
        await scripted(workspaces, opening, {
          replies,
          until: (name) => name === "find_workspace",
        })
      ).calls.at(-1);
    const narrowed = { name: "find_workspace", args: { admin_email: "dalia.iqbal@icloud.com" } };
    // Asked for: never `find_workspace()`, which would list every company's workspaces.
    expect(
      await firstList("I'd like to see the users of my workspace.", [
        noId,
        [/email/, "it's dalia.iqbal@icloud.com"],
      ]),
    ).toEqual(narrowed);
    // Given: not asked again.
    expect(
      await firstList(
        "I'd like to see the users of my workspace. My email is dalia.iqbal@icloud.com.",
        [noId],
      ),
    ).toEqual(narrowed);
  });

  it("reads which of the records listed the person means, a typo in 'first' too", async () => {
    const workspaces = await Agent.load("test/fixtures/specs/saas-admin.json");
    const ids = ["ws_Pvb54LeX", "ws_DgrYbzzP", "ws_qolh4BsL"];
    for (const [said, index] of [
      ["Probably the frist one!", 0],
      ["The second, I think.", 1],
      ["the thrid one", 2],
    ] as const) {
      const { calls } = await scripted(
        workspaces,
        "I want to see my users. My email is dalia.iqbal@icloud.com.",
        {
          otherTools: JSON.stringify({
            workspaces: ids.map((workspace_id) => ({
              workspace_id,
              name: "Workspace",
              plan: "free",
            })),
          }),
          replies: [[/which one/i, said]],
          otherwise: "I don't have the workspace ID to hand, sorry.",
          until: (_, args) => typeof args.workspace_id === "string",
          steps: 6,
        },
      );
      expect(calls.at(-1)?.args.workspace_id, said).toBe(ids[index]);
    }
  });
});

describe("a doubt of a record the request made", () => {
  it("is answered by reading that record by the id the create's answer gave", async () => {
    const { calls } = await scripted(
      specs.helpdesk,
      'I\'d like to open a new ticket about "VPN drops every hour", with priority high. My email is ada@example.com.',
      {
        tools: {
          createTicket: '{"ticketId":"INC000123","status":"open"}',
          getTicket: '{"ticketId":"INC000123","subject":"VPN drops every hour","status":"open"}',
        },
        replies: [
          [/go ahead|proceed/i, "Yes, go ahead."],
          [/anything else/i, "Are you sure it actually went through? Can you double-check?"],
        ],
        until: (name) => name === "getTicket",
      },
    );
    expect(calls.map((c) => c.name)).toEqual(["createTicket", "getTicket"]);
    expect(calls.at(-1)?.args).toEqual({ ticketId: "INC000123" });
  });
});

describe("a check of who the person is that takes their own id", () => {
  it("is prepared with the first question about who they are, before a write", async () => {
    const saas = await Agent.load("test/fixtures/specs/saas-admin.json");
    const { asked, calls } = await scripted(
      saas,
      "I'd like to apply the coupon to my workspace, with coupon code SPRING25X.",
      {
        replies: [
          [/workspace ID and your user ID/, "workspace id ws_7Hq2LmX9, user id usr_11HZX1K1"],
        ],
        until: (name) => name === "send_verification_code",
      },
    );
    expect(asked[0]).toBe("Could you give me your workspace ID and your user ID?");
    expect(calls.at(-1)?.args).toEqual({ workspace_id: "ws_7Hq2LmX9", user_id: "usr_11HZX1K1" });
  });
});

describe("a doubt of a change no read can show", () => {
  it("is answered by the read and what the write's own answer said, not by the records it only named", async () => {
    const saas = await Agent.load("test/fixtures/specs/saas-admin.json");
    const users = {
      users: [
        { user_id: "usr_11HZX1K1", name: "Ada Admin", role: "admin" },
        { user_id: "usr_22HZX2K2", workspace_id: "ws_7Hq2LmX9", name: "Bo Member", role: "member" },
      ],
      count: 2,
      total: 2,
    };
    const { conversation } = await scripted(
      saas,
      "I'd like to reset the mfa of the user usr_22HZX2K2 for my workspace ws_7Hq2LmX9 for my verification ver_4c1e22d3, with requested by user id usr_11HZX1K1.",
      {
        tools: {
          send_verification_code:
            '{"workspace_id":"ws_7Hq2LmX9","user_id":"usr_11HZX1K1","sent":true}',
          check_verification_code: '{"workspace_id":"ws_7Hq2LmX9","verified":true}',
          list_users: JSON.stringify(users),
          reset_user_mfa: JSON.stringify({ ...users.users[1], updated_at: "2026-06-15T00:00:00Z" }),
        },
        replies: [
          [/code/i, "It's 123456."],
          [/go ahead|proceed/i, "Yes, go ahead."],
          [/anything else/i, "Are you sure it actually went through? Can you double-check?"],
        ],
        steps: 14,
      },
    );
    const readBack = conversation.find(
      (m) => m.role === "assistant" && /^Here's what I found/.test(m.content ?? ""),
    );
    expect(readBack?.content).toMatch(
      /^Here's what I found on the user: .*\. It doesn't show the user mfa itself, but I've reset the user mfa, and the system confirmed it: /,
    );
  });
});

describe("a read-back turned down", () => {
  it("is taken as a no without reading a list of objects (a booking's flights) back as text", async () => {
    const airline = await Agent.load("test/fixtures/specs/airline.json");
    const run = (goAhead: string) =>
      scripted(airline, "I want to book a new reservation, with customer id cust_6a5f05c6.", {
        tools: {
          find_customer_by_email: JSON.stringify({
            customers: [
              {
                customer_id: "cust_6a5f05c6",
                name: "Oskar Abiodun",
                email: "oskar.abiodun@outlook.com",
                saved_payment_methods: ["card_5267"],
              },
            ],
            count: 1,
            total: 1,
          }),
        },
        replies: [
          [/Shall I go ahead/, goAhead],
          [/email/, "oskar.abiodun@outlook.com"],
          [
            /trip type/,
            "trip type one way, cabin economy, total checked bags 1, paid checked bags 0.",
          ],
          [/flights/, "Sure, it's flight number BC7012, date 2026-06-04."],
          [/passengers/, "It's first name Oskar, last name Abiodun, date of birth 2002-03-07."],
          [/payments/, "It's payment method id card_5267, amount 397.04."],
          [/insurance/, "No."],
        ],
        until: (name) => name === "book_reservation",
        steps: 14,
      });
    const turnedDown = await run("Hmm, I'm not sure about that.");
    expect(turnedDown.called).not.toContain("book_reservation");
    // The person saying it again leads in with "Look,": still a yes.
    expect((await run("Look, Yes.")).called).toContain("book_reservation");
  });
});

describe("a hand-off after a refusal", () => {
  it("chooses its reason itself, though the person gave another tool's reason ('because duplicate')", async () => {
    const insurance = await Agent.load("test/fixtures/specs/insurance-claims.json");
    const { asked, calls } = await scripted(
      insurance,
      "I'd like to cancel the draft claim of my claim CLM-7571-325304 because duplicate.",
      {
        tools: {
          find_policyholder:
            '{"policyholders":[{"policyholder_id":"PH-4026557","name":"Oskar Esposito"}],"count":1,"total":1}',
          get_claim_status:
            '{"claimId":"CLM-7571-325304","policyholder_id":"PH-4026557","status":"approved"}',
        },
        otherTools: '{"status":"transferred"}',
        replies: [
          [/full name/, "name Oskar Esposito, date of birth 1983-10-22."],
          [/phone/, "+1 (221) 555-1240"],
          [/reason/, "duplicate"],
        ],
        otherwise: "Can you put me through to someone who can sort it, then?",
        until: (name) => name === "request_adjuster_callback",
      },
    );
    const handoff = calls.find((c) => c.name === "request_adjuster_callback")?.args;
    expect(asked.filter((text) => /\breason\b/.test(text))).toEqual([]);
    const callback = WorldModel.of(insurance).tools.get("request_adjuster_callback");
    const reasons = callback ? propertiesOf(callback).reason?.enum : undefined;
    expect(reasons).toContain(handoff?.reason);
  });
});

describe("told a report was not what was asked", () => {
  it("takes the request the person names next, though its words are close to the last one's", async () => {
    const hotel = await Agent.load("test/fixtures/specs/hotel.json");
    const { called } = await scripted(
      hotel,
      "I would like to see my reservation HLD-BQVFGX. My email is oskar@fastmail.com.",
      {
        tools: {
          find_guest_by_email:
            '{"guest_id":"gst_90598","first_name":"Oskar","last_name":"Abiodun"}',
          get_reservation:
            '{"reservation_id":"HLD-BQVFGX","guest_id":"gst_90598","status":"confirmed","total":336.03}',
        },
        replies: [
          [
            /anything else/i,
            "Hmm that isn't it and what I need is to check my invoice from my reservation HLD-BQVFGX",
          ],
        ],
        until: (name) => name === "get_invoice",
        steps: 10,
      },
    );
    expect(called).toContain("get_reservation");
    expect(called.at(-1)).toBe("get_invoice");
  });
});

describe("who the person is, said once", () => {
  it("holds for every tool that asks it: the full name given to a check is the account holder's name", async () => {
    const energy = await Agent.load("test/fixtures/specs/utility-energy.json");
    const { asked, calls } = await scripted(
      energy,
      "I want to set up my direct debit for my account ACC 5934 5544, with monthly amount 83.09.",
      {
        tools: {
          find_account_by_address:
            '{"matches":[{"account_number":"ACC 5934 5544","holder_name_masked":"A**** Z****","fuels":["gas"],"status":"active"}]}',
          verify_account_holder:
            '{"account_number":"ACC 5934 5544","verified":true,"matched":["full_name","date_of_birth","postcode","bank_last4"],"did_not_match":[]}',
        },
        replies: [
          [/address line 1/, "zip code EH1 1YZ, street 101 Linden Street"],
          [/full name/, "bank last4 9668, name Amara Zhang, date of birth 1996-11-28"],
          [/go ahead/i, "Yes, go ahead."],
          [
            /sort code/,
            "sort code 06-00-16, bank account number 03299532, collection day 1, sole signatory confirmed yes",
          ],
        ],
        otherwise: "I don't know.",
        until: (name) => name === "direct_debit_setup",
        steps: 14,
      },
    );
    const setUp = calls.find((c) => c.name === "direct_debit_setup")?.args;
    expect(asked.filter((text) => /give me[^?]*holder name/.test(text))).toEqual([]);
    expect(setUp?.account_holder_name).toBe("Amara Zhang");
  });
});

describe("asking for a change's details", () => {
  it("asks for a choice from a catalog (the tariff) with the other details, not on its own", async () => {
    const energy = await Agent.load("test/fixtures/specs/utility-energy.json");
    const { unanswered } = await scripted(
      energy,
      "I want to switch the tariff of my account ACC 2265 7980.",
      {
        tools: {
          find_account_by_address:
            '{"matches":[{"account_number":"ACC 2265 7980","holder_name_masked":"A*** N****","fuels":["electricity"],"status":"active"}]}',
          verify_account_holder:
            '{"account_number":"ACC 2265 7980","verified":true,"matched":["full_name","date_of_birth","postcode","bank_last4"],"did_not_match":[]}',
          get_account:
            '{"account_number":"ACC 2265 7980","holder_name":"Aiko Novak","status":"active","tariff":{"code":"Ember-090","type":"variable"}}',
        },
        replies: [
          [/address line 1/, "zip code 98101, street 22 Orchard Hill"],
          [/full name/, "bank last4 6094, name Aiko Novak, date of birth 1989-01-05"],
        ],
        steps: 8,
      },
    );
    expect(unanswered).toBe("Could you give me your tariff code and the effective date?");
  });
});

describe("someone new", () => {
  it("is registered though no account of theirs was found, where the policy asks who they are", async () => {
    const energy = await Agent.load("test/fixtures/specs/utility-energy.json");
    const { called } = await scripted(energy, "I want to check my account.", {
      tools: { find_account_by_address: '{"matches":[]}' },
      replies: [
        [/address line 1/, "street 9 Northgate, zip code 98101"],
        [
          /couldn't find your account/,
          "Sorry, I should have said. I want to register a new move in to 9 Northgate, with postcode 98101, with move in date 2026-06-22, with full name Kofi Tanaka, with date of birth 1990-03-09, with email kofi.tanaka@icloud.com.",
        ],
        [/go ahead/i, "Yes, go ahead."],
      ],
      until: (name) => name === "register_move_in",
      steps: 10,
    });
    expect(called).toContain("register_move_in");
  });
});

/** What the person says to doubt a report: the agent should read the record back. */
const DOUBT =
  "Are you sure it actually went through? Can you double-check and tell me what the system shows?";

/**
 * Answers the write call the conversation ends with, takes the agent's report, doubts it, answers
 * the read the agent makes then with `readBack`, and returns that read and what the agent said.
 */
async function doubtedWrite(
  session: Awaited<ReturnType<typeof scripted>>["session"],
  conversation: ChatMessage[],
  written: string,
  readBack: (name: string) => string,
) {
  const call = (conversation.at(-1) as AssistantMessage).tool_calls?.[0];
  conversation.push({
    role: "tool",
    tool_call_id: call?.id ?? "call",
    name: call?.function.name ?? "",
    content: written,
  });
  conversation.push((await session.respond(conversation)).message);
  conversation.push({ role: "user", content: DOUBT });
  const read = (await session.respond(conversation)).message;
  conversation.push(read);
  const reader = read.tool_calls?.[0]?.function;
  conversation.push({
    role: "tool",
    tool_call_id: read.tool_calls?.[0]?.id ?? "call",
    name: reader?.name ?? "",
    content: readBack(reader?.name ?? ""),
  });
  return { reader, said: (await session.respond(conversation)).message.content ?? "" };
}

describe("a doubt after a write, checked by reading the record again", () => {
  const agent = Agent.from({
    name: "meters",
    system_prompt: "You help customers with their energy accounts.",
    policy: [],
    tools: [
      mcpTool("get_account", "Get an account.", { account_id: { type: "string" } }, undefined, {
        account_id: { type: "string" },
        balance: { type: "number" },
        direct_debit: {
          type: "object",
          properties: {
            monthly_amount_gbp: { type: "number" },
            collection_day: { type: "integer" },
          },
        },
      }),
      mcpTool("meter_reading_submit", "Submit a meter reading.", {
        account_id: { type: "string" },
        reading: { type: "integer" },
      }),
      mcpTool("send_statement", "Email an account's latest statement.", {
        account_id: { type: "string" },
      }),
      mcpTool("update_direct_debit", "Change the monthly amount of a direct debit.", {
        account_id: { type: "string" },
        monthly_amount: { type: "number" },
      }),
    ],
  });
  const checked = async (opening: string, written: string) => {
    const account =
      '{"account_id":"ACC-104233","balance":12.5,"direct_debit":{"monthly_amount_gbp":80,"collection_day":1}}';
    const { session, conversation } = await scripted(agent, opening, {
      tools: {
        get_account: account,
        meter_reading_submit: written,
        update_direct_debit: account.replace("80", "61.5"),
        send_statement: written,
      },
      replies: [
        [/go ahead/i, "Yes, go ahead."],
        [/account ID/i, "ACC-104233"],
        [/the reading\?/, "1234"],
      ],
      until: (name) => name !== "get_account",
      steps: 6,
    });
    const { said } = await doubtedWrite(session, conversation, written, () =>
      written.includes("61.5") ? account.replace("80", "61.5") : account,
    );
    return said;
  };

  it("says what the write's own answer said when the record cannot show it (an account after a meter reading)", async () => {
    const said = await checked(
      "I want to submit the meter reading of my account ACC-104233, with reading 1234.",
      '{"status":"accepted","units_since_last":17}',
    );
    expect(said).toMatch(
      /doesn't show the reading, but I've submitted the meter reading, and the system confirmed it: status accepted/,
    );
  });

  it("names what a write of nothing but its record made, where the record cannot show it", async () => {
    const said = await checked(
      "I want to send the statement of my account ACC-104233.",
      '{"sent":true}',
    );
    expect(said).toMatch(
      /doesn't show the statement itself, but I've sent the statement, and the system confirmed it: sent true/,
    );
  });

  it("names a detail written inside a part under its name there (`monthly_amount_gbp`)", async () => {
    const said = await checked(
      "I want to change the direct debit of my account ACC-104233, with monthly amount 61.50.",
      '{"account_id":"ACC-104233","balance":12.5,"direct_debit":{"monthly_amount_gbp":61.5,"collection_day":1}}',
    );
    expect(said).toMatch(/direct debit monthly amount gbp 61\.50/);
    expect(said).not.toMatch(/doesn't show/);
  });
});

describe("a doubt after a write, checked in the list that holds the record", () => {
  // No tool reads one appointment or one payee: each is read back among its owner's.
  const agent = Agent.from({
    name: "lists",
    system_prompt: "You help patients with their appointments and payees.",
    policy: [],
    tools: [
      mcpTool(
        "list_appointments",
        "List a patient's appointments.",
        { patient_id: { type: "string" } },
        ["patient_id"],
      ),
      mcpTool("cancel_appointment", "Cancel an appointment.", {
        appointment_id: { type: "string", pattern: "^APT-[A-Z0-9]{6}$" },
      }),
      mcpTool("list_payees", "List a patient's payees.", { patient_id: { type: "string" } }, [
        "patient_id",
      ]),
      mcpTool("remove_payee", "Remove a payee.", {
        payee_id: { type: "string", pattern: "^PAY-\\d{4}$" },
      }),
    ],
  });
  const afterDoubt = async (opening: string, written: string, listed: string) => {
    const { session, conversation } = await scripted(agent, opening, {
      tools: {},
      replies: [[/go ahead/i, "Yes, go ahead."]],
      until: (name) => name.startsWith("cancel") || name.startsWith("remove"),
      steps: 4,
    });
    const { reader: lister, said } = await doubtedWrite(
      session,
      conversation,
      written,
      () => listed,
    );
    return { lister, said };
  };

  it("lists the owner's records with the owner the write's answer showed, and tells the record written", async () => {
    const { lister, said } = await afterDoubt(
      "I want to cancel my appointment APT-7QK29D.",
      '{"appointment_id":"APT-7QK29D","patient_id":"P004821","status":"cancelled"}',
      '{"appointments":[{"appointment_id":"APT-2MX81B","patient_id":"P004821","status":"scheduled"},{"appointment_id":"APT-7QK29D","patient_id":"P004821","status":"cancelled"}],"count":2}',
    );
    expect(lister).toEqual({
      name: "list_appointments",
      arguments: JSON.stringify({ patient_id: "P004821" }),
    });
    expect(said).toMatch(
      /^Here's what I found on the appointment: appointment id APT-7QK29D, [^.]*status cancelled\./,
    );
    expect(said).not.toMatch(/2 appointments|APT-2MX81B/);
  });

  it("says a removed record is no longer listed", async () => {
    const { said } = await afterDoubt(
      "I want to remove my payee PAY-4410.",
      '{"payee_id":"PAY-4410","patient_id":"P004821","removed":true}',
      '{"payees":[{"payee_id":"PAY-5120","patient_id":"P004821"}],"count":1}',
    );
    expect(said).toMatch(/1 payee: PAY-5120\. The payee PAY-4410 is no longer listed\./);
  });

  it("says what the write answered when the list does not hold a record it changed", async () => {
    const { said } = await afterDoubt(
      "I want to cancel my appointment APT-7QK29D.",
      '{"appointment_id":"APT-7QK29D","patient_id":"P004821","status":"cancelled"}',
      '{"appointments":[],"count":0}',
    );
    expect(said).toMatch(
      /The appointment APT-7QK29D isn't among them, but I've cancelled the appointment, and the system confirmed it: .*status cancelled\./,
    );
  });

  /** Rows of `tool` on seeds 1 to `seeds`, played by the offline roles without slips, in a world of two alike records unless `axes` say otherwise. */
  const playedRows = async (
    spec: string,
    tool: string,
    axes: Partial<Coordinate> = { world: "duplicate_records" },
    seeds = 12,
  ) => {
    const agent = await Agent.load(spec);
    const rows: Row[] = [];
    for (let seed = 1; seed <= seeds; seed++) {
      const situation = situationOf(agent, { tool, ...axes }, seed);
      rows.push(
        await playEpisode(
          agent,
          situation,
          new OfflineAgent({ slipRate: 0 }),
          new OfflineWriter(),
          offlineUser,
          12,
        ),
      );
    }
    return rows;
  };
  const gaveUp = (row: Row) =>
    row.messages.some(
      (m) => m.role === "assistant" && /without the .* I can't/.test(m.content ?? ""),
    );

  it("finds a ticket the person has no number for by listing theirs, asking the email the list needs", async () => {
    const rows = await playedRows("examples/it-helpdesk.json", "updateTicketPriority");
    const listed = rows.filter((row) => callsOf(row).some((c) => c.name === "listTickets"));
    expect(listed.length).toBeGreaterThan(0);
    for (const row of listed) {
      const email = callsOf(row).find((c) => c.name === "listTickets")?.args.userEmail;
      expect(email, row.id).toBe(row.situation.world_state.person.email);
    }
    expect(rows.filter(gaveUp)).toEqual([]);
    expect(rows.filter((row) => row.episode.outcome?.reached).length).toBeGreaterThan(
      rows.length / 2,
    );
  });

  it("finds a line among several accounts by listing each account's lines, and acts under the account it was listed in", async () => {
    const rows = await playedRows("test/fixtures/specs/telecom.json", "sim_change");
    const acrossAccounts = rows.filter(
      (row) =>
        new Set(
          callsOf(row)
            .filter((c) => c.name === "list_lines")
            .map((c) => c.args.account_id),
        ).size > 1,
    );
    expect(acrossAccounts.length).toBeGreaterThan(0);
    for (const row of rows) {
      const calls = callsOf(row);
      const changed = calls.find((c) => c.name === "sim_change");
      const verified = calls.find((c) => c.name === "verify_account_pin");
      if (!changed || !verified || !calls.some((c) => c.name === "list_lines")) continue;
      const listing = row.messages.find(
        (m) => m.role === "tool" && m.content.includes(`"line_id":"${changed.args.line_id}"`),
      );
      expect(listing?.content, row.id).toContain(`"account_id":"${verified.args.account_id}"`);
      // The line described, one of the two alike: not the only line of the first account listed.
      const twins = (row.situation.world_state.shaped as { duplicates: string[] }).duplicates;
      expect(twins, row.id).toContain(changed.args.line_id);
    }
    expect(rows.filter(gaveUp)).toEqual([]);
  });

  /** Two accounts of one person's, found by their phone number, and the lines each one lists. */
  const twoAccounts = (description: string, sameName: string, described: string) => ({
    tools: {
      lookup_account:
        '{"accounts":[{"account_id":"670802192","account_holder_name":"Hugo Torres","account_type":"consumer","status":"open"},{"account_id":"173603767","account_holder_name":"Hugo Torres","account_type":"business","status":"open"}],"count":2,"total":2}',
      list_lines: (args: Record<string, unknown>) =>
        args.account_id === "670802192"
          ? `{"lines":[{"line_id":"LN-94877361","account_id":"670802192","name":"Nimbus line","created_at":"2026-05-09T16:48:42Z","status":"suspended_lost"},${sameName}],"count":2,"total":2}`
          : `{"lines":[{"line_id":"LN-55500001","account_id":"173603767","name":"Fjord line","created_at":"2026-01-02T10:00:00Z","status":"active"},${described}],"count":2,"total":2}`,
      verify_account_pin: '{"verified":true,"matched":["pin_last_four"],"did_not_match":[]}',
    },
    replies: [
      [/Shall I go ahead/, "Yes, go ahead."],
      [/phone number/, "It's +1 (326) 555-4778."],
      [/line ID/, `I don't have the line id to hand, sorry. ${description}`],
      [/pin/, "It's 4219."],
    ] as [RegExp, string][],
    until: (name: string) => name === "sim_change",
  });

  it("lists the next account's lines when a line has the name the person gave but not the rest of what they said of it", async () => {
    const telecom = await Agent.load("test/fixtures/specs/telecom.json");
    const { calls } = await scripted(
      telecom,
      "I'd like to change my sim because of lost or stolen device, with sim type esim.",
      twoAccounts(
        "It's my line (Cobalt line, suspended nonpay) from 2026-04-16.",
        '{"line_id":"LN-16956241","account_id":"670802192","name":"Cobalt line","created_at":"2026-04-09T20:45:09Z","status":"suspended_lost"}',
        '{"line_id":"LN-89738547","account_id":"173603767","name":"Cobalt line","created_at":"2026-04-16T16:07:19Z","status":"suspended_nonpay"}',
      ),
    );
    expect(calls.filter((c) => c.name === "list_lines").map((c) => c.args.account_id)).toEqual([
      "670802192",
      "173603767",
    ]);
    expect(calls.at(-1)).toMatchObject({ name: "sim_change", args: { line_id: "LN-89738547" } });
  });

  it("reads what a record is ('my line (Quartz line, port pending)') as a description, not as another request", async () => {
    const telecom = await Agent.load("test/fixtures/specs/telecom.json");
    const { calls, asked } = await scripted(
      telecom,
      "I'd like to change my sim because I damaged sim, with sim type esim.",
      twoAccounts(
        "It's my line (Quartz line, port pending) from 2026-03-31.",
        '{"line_id":"LN-16956241","account_id":"670802192","name":"Cobalt line","created_at":"2026-04-09T20:45:09Z","status":"active"}',
        '{"line_id":"LN-67117902","account_id":"173603767","name":"Quartz line","created_at":"2026-03-31T08:00:00Z","status":"port_pending"}',
      ),
    );
    expect(asked.filter((q) => /port request/i.test(q))).toEqual([]);
    expect(calls.at(-1)).toMatchObject({ name: "sim_change", args: { line_id: "LN-67117902" } });
  });

  it("does not leave out a record the person named that was not found: it finds the one they describe, or says there is none", async () => {
    const physio = await Agent.load("test/fixtures/specs/physio-clinic.json");
    const { calls, asked } = await scripted(
      physio,
      "I need to send my intake form for my appointment APT-U2R8BT, with patient id P830009, with form workers comp consent, with channel sms.",
      {
        tools: {
          intake_form_send:
            '{"error":"not_found","message":"No appointment found with appointment_id \\"APT-U2R8BT\\"","looked_up":{"appointment_id":"APT-U2R8BT"}}',
          list_appointments: '{"appointments":[],"count":0,"total":0}',
        },
        replies: [
          [
            /appointment ID/,
            "It's my appointment (Kelp appointment) from 2026-05-11, I don't have the details in front of me.",
          ],
        ],
      },
    );
    const sends = calls.filter((c) => c.name === "intake_form_send");
    expect(sends).toHaveLength(1);
    expect(calls.some((c) => c.name === "list_appointments")).toBe(true);
    expect(asked.at(-1)).toMatch(/couldn't find any appointments/);
  });

  it("never takes a choice given for the change ('new role owner') for a word telling which record it is", async () => {
    const saas = await Agent.load("test/fixtures/specs/saas-admin.json");
    const { asked, calls } = await scripted(
      saas,
      "I'd like to change the role of the user Thea Reyes for my workspace ws_aX1W1fAQ, with requested by user id usr_43HZX2K7, with new role owner.",
      {
        tools: {
          send_verification_code: '{"sent":true}',
          check_verification_code: '{"verified":true,"matched":["code"],"did_not_match":[]}',
          list_users:
            '{"users":[{"user_id":"usr_23HZX3K7","workspace_id":"ws_aX1W1fAQ","name":"Thea Reyes","email":"thea.reyes@gmail.com","role":"owner"},{"user_id":"usr_52HZX2K6","workspace_id":"ws_aX1W1fAQ","name":"Thea Reyes","email":"thea.reyes@fastmail.com","role":"guest"}],"count":2,"total":2}',
        },
        replies: [
          [/code/, "It's 855360."],
          [/user ID/, "I don't have the user id to hand, sorry. It's the user Thea Reyes."],
        ],
      },
    );
    expect(calls.some((c) => c.name === "list_users")).toBe(true);
    expect(asked.at(-1)).toMatch(/usr_23HZX3K7 .*usr_52HZX2K6.*Which one do you mean/);
  });

  it("asks which of several records the person means by what tells them apart, not only by their first details", async () => {
    const energy = await Agent.load("test/fixtures/specs/utility-energy.json");
    const { asked } = await scripted(
      energy,
      "I'd like to submit a meter reading, reading 912568.",
      {
        tools: {
          find_account_by_address:
            '{"matches":[{"account_number":"ACC 2257 4828","holder_name_masked":"A*** I****","fuels":["gas"],"status":"active"},{"account_number":"ACC 9434 7110","holder_name_masked":"A*** I****","fuels":["electricity"],"status":"active"}]}',
        },
        replies: [[/address/, "Zip code D02 X285, street 74 Elm Avenue."]],
      },
    );
    const which = asked.find((q) => /Which one do you mean/.test(q));
    expect(which).toContain("ACC 2257 4828 (A*** I****, active, gas)");
    expect(which).toContain("ACC 9434 7110 (A*** I****, active, electricity)");
  });

  it("takes a new request after a report, the record it names with it ('my invoice from my reservation X')", async () => {
    const hotel = await Agent.load("test/fixtures/specs/hotel.json");
    const reservation = (id: string) =>
      `{"reservation_id":"${id}","guest_id":"gst_29724","property_id":"PRO-871185","room_type":"junior_suite","rate_plan":"flexible","check_in":"2026-06-16","check_out":"2026-06-21","status":"confirmed","total":1403.4,"currency":"USD"}`;
    const { calls } = await scripted(hotel, "i'd like to check my reservation HLD-DV1ER0.", {
      tools: {
        find_guest_by_email: '{"guest_id":"gst_29724","first_name":"Umar","last_name":"Novak"}',
        get_reservation: (args) => reservation(String(args.reservation_id)),
      },
      replies: [
        [/email/, "it's umar.novak@posteo.net."],
        [/anything else/i, "i need to check my invoice from my reservation HLD-ZNUHXK."],
      ],
      until: (name) => name === "get_invoice",
    });
    expect(calls.at(-1)).toEqual({ name: "get_invoice", args: { reservation_id: "HLD-ZNUHXK" } });
  });

  it("answers a detail the person's record shows otherwise from the answer that showed it, and says so where none did", async () => {
    // Reproduction: asked "what does it show for the current balance?", the agent said "What our
    // system shows is what I told you", having told nothing of it (telecom, 20 of 43 claims at seed 827).
    const play = (claim: string) => usageDisputed(claim);
    const shown = await play("And what does it show for the current balance? Mine says 300.00.");
    expect(shown.asked.at(-1)).toMatch(/\bcurrent balance 212\.50?\b/);
    const unseen = await play("And what does it show for the data allowance? Mine says 20 GB.");
    // Disputed again, it still says it cannot see it, never that it told it.
    const answers = unseen.asked.filter((m) => !/^Could you|^Here's what I found/.test(m));
    expect(answers.length).toBeGreaterThan(1);
    for (const answer of answers) {
      expect(answer).toMatch(/(can't see|hasn't shown me) the data allowance/);
      expect(answer).not.toMatch(/what I told you/);
    }
  });

  it("answers what the person says their record shows ('My status says suspended lost') and never acts on its words", async () => {
    const { called, asked, unanswered } = await usageDisputed(
      "That doesn't match what I have. My status says suspended lost!",
      { until: (name) => name === "suspend_line" },
    );
    expect(called, unanswered).toContain("get_line_usage");
    expect(called).not.toContain("suspend_line");
    expect(asked.join("\n")).not.toMatch(/suspend/i);
    expect(asked.at(-1)).toMatch(/\bstatus active\b/);
  });

  it("puts right a choice the person corrects at the read-back ('No, the plan should be business')", async () => {
    const saas = await Agent.load("test/fixtures/specs/saas-admin.json");
    const { calls, unanswered } = await scripted(
      saas,
      "I'd like to change my billing plan for my workspace ws_ghaSR5fx, with user id usr_58HZX5K8, with plan free, with billing cycle monthly, with seats 12.",
      {
        tools: {
          send_verification_code: '{"sent":true}',
          check_verification_code: '{"verified":true,"matched":["code"],"did_not_match":[]}',
          get_workspace:
            '{"workspace_id":"ws_ghaSR5fx","name":"Meadow workspace","plan":"free","status":"active"}',
        },
        replies: [
          [/code/, "It's 074935."],
          [/user ID/, "It's usr_58HZX5K8."],
          [/plan free.*(go ahead|proceed)/, "No, the plan should be business!"],
          [/plan business.*(go ahead|proceed)/, "Yes, go ahead."],
        ],
        until: (name) => name === "update_billing_plan",
      },
    );
    expect(calls.at(-1)?.name, unanswered).toBe("update_billing_plan");
    expect(calls.at(-1)?.args).toMatchObject({ plan: "business", seats: 12 });
  });

  it.each([
    "That's not good enough. Try again!",
    // A slip of the key ("aagin") is still a retry, not a dispute of what it said (saas-admin, 1 of 500 rows at seed 401).
    "That's not good enough. Try aagin!",
  ])(
    "never makes a write again whose answer came back unreadable: asked to try again (%s), it says it may have gone through",
    async (tryAgain) => {
      const pharmacy = await Agent.load("test/fixtures/specs/pharmacy.json");
      const { calls, asked } = await scripted(
        pharmacy,
        "I'd like to refill my prescriptions for the store S6041 for my address addr_7171, with patient id pt_26530, with rx numbers RX-7629688 and RX-3962918, with fulfillment same day delivery.",
        {
          tools: {
            find_patient_by_phone:
              '{"patients":[{"patient_id":"pt_26530","name":"Tamsin Hoffmann","phone":"+1 (367) 555-9494"}]}',
            refill_prescriptions: '{"prescription_id":"PRE-933805","patient_id":"pt_26',
          },
          replies: [
            [/phone/, "It's +1 (367) 555-9494."],
            [/go ahead|proceed/, "Yes, do it."],
            [/can't read/, tryAgain],
          ],
          steps: 10,
        },
      );
      expect(calls.filter((c) => c.name === "refill_prescriptions")).toHaveLength(1);
      expect(asked.at(-1)).toMatch(/may well have gone through/);
    },
  );

  it("lists what is for anyone (the tariffs at a postcode) for a person it could not find", async () => {
    const energy = await Agent.load("test/fixtures/specs/utility-energy.json");
    const { calls, unanswered } = await scripted(energy, "I'd like to check my bill.", {
      tools: { find_account_by_address: '{"matches":[]}' },
      replies: [
        [/address/, "Here you go: zip code BS1 5TR, street 6 Elm Avenue."],
        [/find/, "Sorry. I want to see the tariffs, with postcode BS1 5TR, with fuel electricity."],
      ],
      until: (name) => name === "list_tariffs",
    });
    expect(calls.at(-1), unanswered).toEqual({
      name: "list_tariffs",
      args: { postcode: "BS1 5TR", fuel: "electricity" },
    });
  });

  it("takes a word of the request ('move' of a move-out) for no part of a record's code ('pending_move_in')", async () => {
    const energy = await Agent.load("test/fixtures/specs/utility-energy.json");
    const { asked, calls } = await scripted(energy, "I want to register a new move out.", {
      tools: {
        find_account_by_address:
          '{"matches":[{"account_number":"ACC 0128 4678","holder_name_masked":"C*** P***","fuels":["gas","electricity"],"status":"pending_move_in"},{"account_number":"ACC 1892 7840","holder_name_masked":"C*** P***","fuels":["gas"],"status":"active"}]}',
      },
      replies: [[/address/, "Zip code BS1 5TR, street 66 Ivy Crescent."]],
    });
    expect(calls.some((c) => c.name === "verify_account_holder")).toBe(false);
    const which = asked.find((q) => /Which one do you mean/.test(q));
    expect(which).toContain("ACC 0128 4678");
    expect(which).toContain("ACC 1892 7840");
  });

  it("finds the person by the lookup they asked for, not by another one first", async () => {
    let checked = 0;
    for (const tool of ["find_customer_by_phone", "find_customer_by_membership_number"])
      for (const row of await playedRows(
        "test/fixtures/specs/airline.json",
        tool,
        { stance: "cooperative" },
        6,
      )) {
        const calls = callsOf(row).filter((c) => c.name.startsWith("find_customer"));
        if (calls.length === 0) continue;
        checked++;
        expect(calls[0]?.name, row.id).toBe(tool);
        expect(row.episode.outcome?.reached, row.id).toBe(true);
      }
    expect(checked).toBeGreaterThan(6);
  });

  it("takes a ticket described where its id was asked as one the person has no id for, and lists theirs at once", async () => {
    const helpdesk = await Agent.load("examples/it-helpdesk.json");
    const { calls, asked } = await scripted(
      helpdesk,
      "I'd like to change my ticket priority to high.",
      {
        tools: {
          listTickets:
            '{"tickets":[{"ticketId":"INC342435","subject":"Email not syncing on phone","created_at":"2026-03-24T03:59:41Z","priority":"normal","status":"open"}],"count":1,"total":1}',
        },
        replies: [
          [/ticket ID/, "It's my ticket (Email not syncing on phone) from 2026-03-24."],
          [/email/, "nikhil.rahman@icloud.com"],
        ],
        until: (name) => name === "listTickets",
      },
    );
    expect(asked.filter((q) => /ticket ID/.test(q))).toHaveLength(1);
    expect(calls.at(-1)).toEqual({
      name: "listTickets",
      args: { userEmail: "nikhil.rahman@icloud.com" },
    });
  });

  it("finds the person first where the list of their records takes their id, then the record they describe", async () => {
    const rows = await playedRows("test/fixtures/specs/physio-clinic.json", "cancel_appointment");
    const listed = rows.filter((row) => callsOf(row).some((c) => c.name === "list_appointments"));
    expect(listed.length).toBeGreaterThan(0);
    for (const row of listed) {
      const names = callsOf(row).map((c) => c.name);
      const found = names.findIndex((n) => n === "lookup_patient_by_phone" || n === "find_patient");
      expect(found, row.id).toBeGreaterThanOrEqual(0);
      expect(found, row.id).toBeLessThan(names.indexOf("list_appointments"));
    }
    expect(rows.filter(gaveUp)).toEqual([]);
  });

  it("lists what is for anyone (the plans on sale) without finding the person first", async () => {
    const rows = await playedRows("test/fixtures/specs/telecom.json", "list_plans", {
      world: "empty_account",
    });
    const listed = rows.filter((row) => callsOf(row).some((c) => c.name === "list_plans"));
    expect(listed.length).toBeGreaterThan(rows.length / 2);
    for (const row of listed) expect(callsOf(row)[0]?.name, row.id).toBe("list_plans");
    for (const row of rows)
      expect(
        row.messages.some(
          (m) => m.role === "assistant" && /couldn't find your account/.test(m.content ?? ""),
        ),
        row.id,
      ).toBe(false);
  });

  it("narrows a list of everyone's workspaces by the person's own email, never by one of the people they invite", async () => {
    const saas = await Agent.load("test/fixtures/specs/saas-admin.json");
    const { calls } = await scripted(
      saas,
      "I'd like to invite my users with emails uriel.hoffmann56@fastmail.com and hugo.esposito47@gmail.com",
      {
        replies: [
          [
            /workspace ID/,
            "I don't have the workspace id to hand, sorry. It's my workspace (Sable workspace) from 2026-05-12; user id usr_14HZX0K3",
          ],
          [/email/, "grace.okafor@proton.me"],
        ],
        until: (name) => name === "find_workspace",
      },
    );
    expect(calls.at(-1)).toEqual({
      name: "find_workspace",
      args: { admin_email: "grace.okafor@proton.me" },
    });
  });
});
