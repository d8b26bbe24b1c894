import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { Agent } from "../../../env/agent.ts";
import { Episode } from "../../../env/episode.ts";
import { simulatorChecks } from "../../../env/grade/simulator.ts";
import { type Persona, samplePersona } from "../../../env/people/persona.ts";
import { OfflineAgent } from "../../../env/roles/offline-agent.ts";
import { OfflineUser, offlineUser } from "../../../env/roles/offline-user.ts";
import { OfflineWriter } from "../../../env/roles/offline-writer.ts";
import type { SituationWriter, UserSimulator } from "../../../env/roles/types.ts";
import { playEpisode } from "../../../env/rollout.ts";
import { simulate } from "../../../env/simulate.ts";
import { IdentifierReader } from "../../../env/text/identifiers.ts";
import { awaitsGoAhead, givesGoAhead } from "../../../env/text/phrases.ts";
import { intentOf, needsConfirmation } from "../../../env/text/reading.ts";
import { spokenName } from "../../../env/text/slots.ts";
import { createWorld } from "../../../env/world/index.ts";
import { WorldModel } from "../../../env/world/model.ts";
import grade from "../../../examples/grader.ts";
import type { AgentSpec, ChatMessage, Coordinate, Row } from "../../../spec/index.ts";
import { situationOf } from "../../fixtures/situations.ts";
import { corpusChecks } from "./corpus-checks.ts";
import {
  agentOf,
  CORPUS,
  CORPUS_PARTS,
  FINANCE,
  HEAVY,
  HELPDESK,
  HOTEL,
  none,
  RETAIL,
  rowsOf,
  startOf,
  summary,
} from "./corpus-runs.ts";

const personOf = (agent: Agent, axes: Partial<Coordinate>, seed = 7) => {
  const situation = situationOf(agent, axes, seed);
  const world = createWorld({ spec: agent, situation });
  return { agent, situation, world, persona: samplePersona(agent, situation, world), rollout: 0 };
};

const call = (name: string, args: Record<string, unknown>, id = "call_1") => ({
  role: "assistant" as const,
  content: null,
  tool_calls: [
    { id, type: "function" as const, function: { name, arguments: JSON.stringify(args) } },
  ],
});
const say = (content: string) => ({ role: "assistant" as const, content });
/** Whether the offline agent slipped in the row (an invented id is a slip of its own). */
const slipped = (row: Row) => row.episode.slips.length > 0;
/** A conversation the person sees: the system prompt, then the agent's messages. */
const conversation = (...assistant: string[]): ChatMessage[] => [
  { role: "system", content: "You are a support agent." },
  ...assistant.map((content) => ({ role: "assistant" as const, content })),
];

/** A writer that opens every conversation with the same message. */
const opening = (message: string): SituationWriter => ({
  name: "fixed",
  write: async () => ({ history: [], message }),
});

/** A value said as a whole token: "DQHVB1" is not said inside "DQHVB10". */
const saysValue = (text: string, value: string): boolean =>
  new RegExp(`(?<![A-Za-z0-9])${value.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?![A-Za-z0-9])`).test(
    text,
  );

describe("the offline agent", () => {
  it("reads a request across wordings, and a possessive before an action word as a noun", async () => {
    const retail = await agentOf(RETAIL);
    const model = WorldModel.of(retail);
    const orderId = personOf(retail, { tool: "cancel_order" }).persona.details.ids.order_id;
    expect(orderId).toEqual(expect.any(String));
    for (const text of [
      "I want to call off my order",
      "please cancel the order",
      `cancellation of order #${orderId}`,
    ])
      expect(intentOf(model, text)?.tool.name, text).toBe("cancel_order");

    const insurance = WorldModel.of(await agentOf("test/fixtures/specs/insurance-claims.json"));
    expect(
      intentOf(
        insurance,
        "I'd like to add a new named driver for my policy MT12345678 for my quote QND-12345",
      )?.tool.name,
    ).toBe("add_named_driver");
    // The action word itself still asks for the quote: the possessive is what makes "quote" a noun.
    expect(
      intentOf(insurance, "I'd like a quote for a new named driver on policy MT12345678")?.tool
        .name,
    ).toBe("quote_named_driver");
  });

  it(
    "never asks for a detail the person gave in the message just before",
    async () => {
      // The check: every question in the agent's own asking forms ("Could you give me …?", "I'll
      // need …", "What is …?", "could you send me … again?", "Could you type out …") names the
      // details it asks for by their spoken names. A detail asked for is one of the goal's
      // arguments (whose value the person holds); when the person's message right before the
      // question states that exact value as a whole token, the agent is asking for what it was just
      // given. Garbled values ("DQHVB10" for "DQHVB1") are other tokens and do not count, and a
      // "could you double-check" after a lookup found nothing is not one of the asking forms.
      const ASK =
        /(?:could you give me|i'll need|what is|could you send me|could you type out) (.+?)(?: again| for me)?[?.]/i;
      const cases: string[] = [];
      let asks = 0;
      for (const path of [RETAIL, FINANCE, HELPDESK]) {
        const rows = await rowsOf(path);
        expect(rows.length).toBeGreaterThanOrEqual(200);
        for (const row of rows) {
          row.messages.forEach((message, i) => {
            if (message.role !== "assistant" || i < startOf(row) || !message.content) return;
            const asked = ASK.exec(message.content);
            const before = row.messages[i - 1];
            if (!asked || before?.role !== "user") return;
            asks++;
            const named = (asked[1] as string)
              .split(/, | and /)
              .map((n) => n.replace(/^(your|the) /i, "").toLowerCase());
            for (const [param, value] of Object.entries(row.episode.goal.arguments)) {
              if (typeof value !== "string" && typeof value !== "number") continue;
              if (String(value).length < 4 || !named.includes(spokenName(param).toLowerCase()))
                continue;
              if (saysValue(before.content, String(value)))
                cases.push(
                  `${path} ${row.task_id} (${row.situation.axes.world}): person said ${JSON.stringify(before.content)}, agent asked ${JSON.stringify(message.content)}`,
                );
            }
          });
        }
      }
      expect(asks).toBeGreaterThan(100);
      expect(summary(cases)).toEqual(none);
    },
    HEAVY,
  );

  it("does not make a change the person keeps saying no to", async () => {
    const retail = await agentOf(RETAIL);
    const model = WorldModel.of(retail);
    // A person who answers every read-back with a no, and is otherwise the offline person.
    const refuser: UserSimulator = {
      name: "refuser",
      start(setup) {
        const person = offlineUser.start(setup);
        return {
          reply: async (messages) => {
            const last = messages.at(-1);
            if (last?.role === "assistant" && awaitsGoAhead(last.content ?? ""))
              return { content: "No, please don't do that." };
            return person.reply(messages);
          },
        };
      },
    };
    let refused = 0;
    for (const tool of ["cancel_order", "refund_order", "update_address", "exchange_item"]) {
      for (let seed = 0; seed < 6; seed++) {
        const situation = situationOf(retail, { tool, stance: "cooperative" }, seed);
        const row = await playEpisode(
          retail,
          situation,
          new OfflineAgent({ slipRate: 0 }),
          new OfflineWriter(),
          refuser,
          12,
        );
        const noes = row.messages.filter((m) => m.role === "user" && /^No, please/.test(m.content));
        refused += noes.length;
        const writes = row.messages.flatMap((m) =>
          m.role === "assistant"
            ? (m.tool_calls ?? []).filter((c) => {
                const t = model.tools.get(c.function.name);
                return t !== undefined && needsConfirmation(retail, t);
              })
            : [],
        );
        expect(writes, `${tool} seed ${seed}`).toEqual([]);
      }
    }
    expect(refused).toBeGreaterThan(0);
  });

  it("hands off through the hand-off tool the person asks for", async () => {
    /** The first tool the offline agent calls after the given opening (answering the person until then). */
    const firstCall = async (path: string, tool: string, message: string) => {
      const agent = await agentOf(path);
      const situation = situationOf(agent, { tool, stance: "cooperative" });
      const episode = new Episode({ spec: agent, situation, writer: opening(message) });
      await episode.reset();
      const session = new OfflineAgent({ slipRate: 0 }).start(agent, situation.seed);
      while (!episode.done) {
        const turn = await session.respond(episode.messages);
        const made = turn.message.tool_calls?.[0];
        if (made) return made.function.name;
        await episode.step(turn.message);
      }
      return null;
    };
    expect(await firstCall(RETAIL, "get_order", "I want to talk to a human")).toBe(
      "transfer_to_human",
    );
    const pharmacy = "test/fixtures/specs/pharmacy.json";
    expect(await firstCall(pharmacy, "get_prescription", "Can I speak to a pharmacist")).toBe(
      "pharmacist_consult",
    );
    expect(await firstCall(pharmacy, "get_prescription", "I want a human")).toBe(
      "transfer_to_human_agents",
    );
    expect(
      await firstCall(pharmacy, "get_prescription", "Can you put me through to someone who can?"),
    ).toBe("transfer_to_human_agents");
  });

  it("reads back an id only the person's word stands for before handing off on it", async () => {
    let handoffs = 0;
    for (const row of await rowsOf("test/fixtures/specs/insurance-claims.json")) {
      const person = (row.situation.world_state as { person?: Record<string, unknown> }).person;
      if (row.situation.axes.world !== "normal" || typeof person?.customer_id !== "string")
        continue;
      for (const message of row.messages)
        for (const c of message.role === "assistant" ? (message.tool_calls ?? []) : []) {
          if (c.function.name !== "request_adjuster_callback" || slipped(row)) continue;
          handoffs++;
          expect(JSON.parse(c.function.arguments).policyholderId, row.task_id).toBe(
            person.customer_id,
          );
        }
    }
    expect(handoffs).toBeGreaterThan(5);
  });

  it("answers a doubt of a write it made by reading the record again, not as a new request", async () => {
    const telecom = await agentOf("test/fixtures/specs/telecom.json");
    let doubts = 0;
    for (let seed = 0; seed < 12; seed++) {
      const situation = situationOf(
        telecom,
        { tool: "suspend_line", stance: "skeptical", world: "normal", condition: "ok" },
        seed,
      );
      const episode = new Episode({ spec: telecom, situation, maxTurns: 20 });
      await episode.reset();
      const session = new OfflineAgent({ slipRate: 0 }).start(telecom, situation.seed);
      let wrote = false;
      while (!episode.done) {
        const turn = await session.respond(episode.messages);
        const last = episode.messages.at(-1);
        if (wrote && last?.role === "user" && /double-check/i.test(last.content)) {
          doubts++;
          const call = turn.message.tool_calls?.[0]?.function.name;
          expect(call, `seed ${seed}: ${JSON.stringify(turn.message)}`).toBe("get_line_usage");
        }
        if (turn.message.tool_calls?.some((c) => c.function.name === "suspend_line")) wrote = true;
        await episode.step(turn.message);
      }
    }
    expect(doubts).toBeGreaterThan(0);
  });

  it(
    "slips only when allowed",
    async () => {
      for (const path of [RETAIL, FINANCE, HELPDESK])
        for (const row of await rowsOf(path, 0, 200))
          expect(row.episode.slips, `${path} ${row.task_id}`).toEqual([]);
    },
    HEAVY,
  );
});

describe("the offline person", () => {
  it("is satisfied only when what they came for was reported", async () => {
    const airline = await agentOf("test/fixtures/specs/airline.json");
    const seats = personOf(airline, { tool: "get_seat_map", stance: "cooperative" });
    const empty = await offlineUser
      .start(seats)
      .reply(
        conversation(
          "Here's what I found: 0 seat maps. Is there anything else I can help you with?",
        ),
      );
    expect(empty.end).toBeUndefined();
    const flight = String(seats.persona.goal.arguments.flight_number);
    const full = await offlineUser
      .start(seats)
      .reply(
        conversation(
          `Here's what I found: 3 seat maps for flight ${flight} (12A, 12B, 14C). Is there anything else I can help you with?`,
        ),
      );
    expect(full.end).toBe("done");

    const hotel = await agentOf("test/fixtures/specs/hotel.json");
    const invoice = personOf(hotel, { tool: "get_invoice", stance: "cooperative" });
    const reservation = String(invoice.persona.goal.arguments.reservation_id);
    const other = await offlineUser
      .start(invoice)
      .reply(
        conversation(
          `Here's what I found: reservation id ${reservation}, status confirmed, check in 2026-07-01. Is there anything else I can help you with?`,
        ),
      );
    expect(other.end).toBeUndefined();
    const matching = await offlineUser
      .start(invoice)
      .reply(
        conversation(
          `Here's what I found: 1 invoices for reservation ${reservation} (total 412.00, status issued). Is there anything else I can help you with?`,
        ),
      );
    expect(matching.end).toBe("done");
  });

  it("is not satisfied by a refusal said after what the agent found, and answers a hand-off's go-ahead", async () => {
    const airline = await agentOf("test/fixtures/specs/airline.json");
    const seats = personOf(airline, { tool: "cancel_reservation", stance: "cooperative" });
    const reservation = String(seats.persona.goal.arguments.reservation_id);
    const refused = await offlineUser
      .start(seats)
      .reply(
        conversation(
          `I've checked your reservation ${reservation}: it is cancelled, so I can't add the travel insurance (that's only possible while it is scheduled). Is there anything else I can help you with?`,
        ),
      );
    expect(refused.content).not.toMatch(/perfect|that's all|brilliant|sorted then/i);
    const handedOver = await offlineUser
      .start(seats)
      .reply(
        conversation(
          `I'll pass you to a colleague who can help with this. Before I pass this on: I have your reservation ID as ${reservation}. Is that right, shall I go ahead?`,
        ),
      );
    expect(handedOver.end).toBeUndefined();
    expect(givesGoAhead(handedOver.content), handedOver.content).toBe(true);
  });

  it("puts a read-back id right with the id of the detail named next to it, a new slot too", async () => {
    const physio = await agentOf("test/fixtures/specs/physio-clinic.json");
    const moving = personOf(physio, { tool: "reschedule_appointment", stance: "cooperative" });
    const appointment = String(moving.persona.goal.arguments.appointment_id);
    const slot = String(moving.persona.goal.arguments.new_slot_id);
    const wrong = `${slot.slice(0, -2)}${slot.slice(-1)}${slot.slice(-2, -1)}`;
    const reply = await offlineUser
      .start(moving)
      .reply(
        conversation(
          `To confirm, I'll reschedule the appointment with appointment ID ${appointment}, new slot ID ${wrong}. Shall I go ahead?`,
        ),
      );
    expect(reply.content.replace(/[\uE000\uE001]/g, "")).toMatch(
      new RegExp(`isn't mine.*${slot.replace(/[-]/g, "\\-")}`, "i"),
    );
  });

  it("puts right a choice read back as another ('reason lost' when they chose temporary), and says no to it read back wrong again", async () => {
    const telecom = await agentOf("test/fixtures/specs/telecom.json");
    const suspend = personOf(telecom, { tool: "suspend_line", stance: "cooperative" });
    const line = String(suspend.persona.goal.arguments.line_id);
    const reason = String(suspend.persona.goal.arguments.reason);
    const other = ["lost", "stolen", "temporary"].find((r) => r !== reason) as string;
    const person = offlineUser.start(suspend);
    const readBack = (said: string) =>
      `To confirm, I'll suspend the line with line ID ${line}, reason ${said}. Shall I go ahead?`;
    const seen = conversation(readBack(other));
    const answer = await person.reply(seen);
    expect(answer.content).toMatch(new RegExp(`^no, the reason should be ${reason}`, "i"));
    seen.push({ role: "user", content: answer.content }, say(readBack(reason)));
    expect((await person.reply(seen)).content).toMatch(/^yes/i);
    // An agent that reads the wrong choice back again is told no, not yes.
    const stubborn = offlineUser.start(suspend);
    const again = conversation(readBack(other));
    again.push(
      { role: "user", content: (await stubborn.reply(again)).content },
      say(readBack(other)),
    );
    const second = (await stubborn.reply(again)).content;
    expect(second).toMatch(/^no\b/i);
    expect(givesGoAhead(second)).toBe(false);
  });

  it("whose record shows otherwise disputes a report that says the detail, and asks about one that does not", async () => {
    // Reproduction: after "Done, I've cancelled the pending order: order id …, status cancelled",
    // the person said "That doesn't match what I have. My total says 346.33", of a total never
    // reported (online-store, 50 of 53 such claims at seed 827).
    const store = await agentOf("test/fixtures/specs/online-store.json");
    let claims = 0;
    for (let seed = 1; seed <= 12; seed++) {
      const setup = personOf(
        store,
        { tool: "cancel_pending_order", world: "conflicting_records" },
        seed,
      );
      const claim = Object.entries(setup.persona.details.claims)[0];
      if (!claim) continue;
      const [field, value] = claim;
      const order = String(setup.persona.goal.arguments.order_id);
      const spoken = field.replace(/_/g, " ");
      const plain = (text: string) => text.replace(/[\uE000\uE001]/g, "").toLowerCase();
      const shown = await offlineUser
        .start(setup)
        .reply(
          conversation(
            `Done, I've cancelled the pending order: order id ${order}, ${spoken} 1.00, status cancelled. Is there anything else I can help you with?`,
          ),
        );
      expect(plain(shown.content), `seed ${seed}`).toContain(`my ${spoken} says`);
      const unshown = await offlineUser
        .start(setup)
        .reply(
          conversation(
            `Done, I've cancelled the pending order: order id ${order}, status cancelled. Is there anything else I can help you with?`,
          ),
        );
      expect(plain(unshown.content), `seed ${seed}`).toMatch(
        new RegExp(`show for the ${spoken}\\?+ mine says`),
      );
      expect(plain(unshown.content)).toContain(plain(String(value)).replace(/_/g, " "));
      expect(plain(unshown.content)).not.toMatch(/doesn'?t match/);
      // A word that holds the detail's name ("subtotal") does not say it.
      const inside = await offlineUser
        .start(setup)
        .reply(
          conversation(
            `Done, I've cancelled the pending order: order id ${order}, sub${spoken} 1.00, status cancelled. Is there anything else I can help you with?`,
          ),
        );
      expect(plain(inside.content), `seed ${seed}`).toMatch(/mine says/);
      claims++;
    }
    expect(claims).toBeGreaterThan(3);
  });

  it("never says their opening again word for word", async () => {
    // Reproduction: told "All done" of a transfer that was refused, a person of clipped messages
    // said their opening again as it was (personal-finance, 1 of 500 rows at seed 853, a loop).
    const finance = await agentOf("examples/personal-finance.json");
    const setup = personOf(finance, { tool: "transfer_funds", stance: "insistent" });
    const told = say("All done: I've completed it. Is there anything else I can help you with?");
    const replyTo = (opening: string) =>
      new OfflineUser(setup.persona, 1).reply([
        { role: "system", content: "You are a support agent." },
        { role: "user", content: opening },
        told,
      ]).content;
    const next = replyTo("Hello.");
    expect(replyTo(next).toLowerCase()).not.toBe(next.toLowerCase());
  });

  it("whose balance shows otherwise calls it a balance ('current balance', not 'current')", async () => {
    // Reproduction: "That doesn't match what I have. My current says 4282.03" (personal-finance,
    // seed 827).
    const finance = await agentOf("examples/personal-finance.json");
    let balances = 0;
    for (let seed = 1; seed <= 12; seed++) {
      const setup = personOf(finance, { tool: "get_balance", world: "conflicting_records" }, seed);
      const [field] = Object.keys(setup.persona.details.claims);
      if (field !== "current" && field !== "available") continue;
      const said = await offlineUser
        .start(setup)
        .reply(
          conversation(
            "Here's what I found on the balance: currency USD. Is there anything else I can help you with?",
          ),
        );
      expect(said.content.replace(/[\uE000\uE001]/g, "").toLowerCase()).toContain(
        `${field} balance`,
      );
      // A report that says it by its own name ("current 2132.33") is disputed.
      const shown = await offlineUser
        .start(setup)
        .reply(
          conversation(
            `Here's what I found on the balance: currency USD, ${field} 1.00. Is there anything else I can help you with?`,
          ),
        );
      expect(shown.content.replace(/[\uE000\uE001]/g, "").toLowerCase()).toMatch(
        new RegExp(`my ${field} balance says`),
      );
      balances++;
    }
    expect(balances).toBeGreaterThan(3);
  });

  it("who mixes up an id never mixes it up into one of the spec's examples", async () => {
    // Reproduction: a confused admin's user id, two digits swapped, was the `usr_01HZX4K8` of the
    // tool's description, and the world refused it as a placeholder (saas-admin, seed 839).
    const saas = await agentOf("test/fixtures/specs/saas-admin.json");
    const setup = personOf(saas, { tool: "support_ticket_create", stance: "confused" });
    const own = String(setup.persona.details.ids.user_id);
    const asked = conversation("Could you give me your user ID?");
    const said = (examples: Set<string>) =>
      new OfflineUser(setup.persona, 1, { examples })
        .reply(asked)
        .content.replace(/[\uE000\uE001]/g, "");
    const idIn = (text: string) => /usr_\w+/.exec(text)?.[0];
    const first = idIn(said(new Set()));
    expect(first).toBeDefined();
    expect(first).not.toBe(own);
    const other = idIn(said(new Set([first as string])));
    expect(other).toBeDefined();
    expect(other).not.toBe(first);
    expect(other).not.toBe(own);
  });

  it("turns down a read-back of a change they never asked for, and says what they came for", async () => {
    // Reproduction: told "My status says suspended lost", the agent read a request to suspend the
    // line, and the person who came to add data said "Yes, do it!" to the suspension.
    const telecom = await agentOf("test/fixtures/specs/telecom.json");
    const adding = personOf(telecom, { tool: "add_data_addon", stance: "cooperative" });
    const line = String(adding.persona.goal.arguments.line_id);
    const person = offlineUser.start(adding);
    const wrong = (
      await person.reply(
        conversation(
          `To confirm, I'll suspend the line with line ID ${line}, reason lost. Shall I go ahead?`,
        ),
      )
    ).content.replace(/[\uE000\uE001]/g, "");
    expect(wrong).toMatch(/^no\b.*not what i asked for.*add/i);
    expect(givesGoAhead(wrong)).toBe(false);
    const args = Object.entries(adding.persona.goal.arguments)
      .map(([k, v]) => `${k.replace(/_/g, " ")} ${String(v)}`)
      .join(", ");
    const right = await offlineUser
      .start(adding)
      .reply(conversation(`To confirm, I'll add the data addon with ${args}. Shall I go ahead?`));
    expect(right.content).toMatch(/^yes/i);
  });

  it("who was vague says what they came for before giving up", async () => {
    const energy = await agentOf("test/fixtures/specs/utility-energy.json");
    const moving = personOf(energy, { tool: "register_move_in", stance: "vague" });
    const person = offlineUser.start(moving);
    const seen = conversation(
      "I'm sorry, I couldn't find your account with the details you gave, so I can't make changes to it from here. Is there anything else I can help with?",
    );
    const said = (await person.reply(seen)).content.replace(/[\uE000\uE001]/g, "");
    expect(said).toMatch(/register a new move in/i);
  });

  it("joins a sentence among the details asked together without its stop: no '.;'", async () => {
    const saas = await agentOf("test/fixtures/specs/saas-admin.json");
    for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
      const setup = personOf(
        saas,
        { tool: "get_workspace", world: "duplicate_records", stance: "cooperative" },
        seed,
      );
      const asked = conversation(
        "Could you give me your workspace ID and the email address on your account?",
      );
      const said = (await offlineUser.start(setup).reply(asked)).content;
      expect(said.replace(/[\uE000\uE001]/g, "")).toMatch(/workspace id to hand/i);
      expect(said, `seed ${seed}`).not.toMatch(/\.[\uE000\uE001]*[;,] /);
    }
  });

  /** How a skeptical person ends after doubting a report `done` and hearing `readBack`, both given the goal's arguments. */
  const afterDoubt = async (
    spec: string,
    tool: string,
    done: (args: Record<string, unknown>) => string,
    readBack: (args: Record<string, unknown>) => string,
  ) => {
    const setup = personOf(await agentOf(spec), { tool, stance: "skeptical" });
    const args = setup.persona.goal.arguments;
    const person = offlineUser.start(setup);
    const seen = conversation(`${done(args)} Is there anything else I can help you with?`);
    const doubt = await person.reply(seen);
    expect(doubt.content).toMatch(/double-check/);
    seen.push({ role: "user", content: doubt.content });
    seen.push(say(`${readBack(args)} Is there anything else I can help you with?`));
    return (await person.reply(seen)).end;
  };

  it("who doubted a change is answered by a read that shows it", async () => {
    const shown = (a: Record<string, unknown>) =>
      `reservation id ${a.reservation_id}, check in ${a.new_check_in}, status confirmed.`;
    expect(
      await afterDoubt(
        "test/fixtures/specs/hotel.json",
        "modify_reservation_dates",
        (a) => `Done, I've modified the reservation dates: ${shown(a)}`,
        (a) => `Here's what I found on the reservation: ${shown(a)}`,
      ),
    ).toBe("done");
  });

  it("who doubted a change is answered by a read that shows the state it leaves", async () => {
    expect(
      await afterDoubt(
        "test/fixtures/specs/hotel.json",
        "cancel_reservation",
        (a) =>
          `Done, I've cancelled the reservation: reservation id ${a.reservation_id}, status cancelled.`,
        (a) =>
          `Here's what I found on the reservation: reservation id ${a.reservation_id}, room type standard_twin, status cancelled.`,
      ),
    ).toBe("done");
  });

  it("who doubted a change is answered by a read of the record it was made on, which shows what they asked for", async () => {
    // Reproduction: the reservation read to check an invoice sent repeated the company name the
    // invoice was sent with, and the person, hearing no word of an invoice, asked for it again
    // (hotel, 1 of 500 rows at seed 821).
    expect(
      await afterDoubt(
        "test/fixtures/specs/hotel.json",
        "send_invoice",
        (a) =>
          `Done, I've sent the invoice: reservation id ${a.reservation_id}, vat number ${a.vat_number}.`,
        (a) =>
          `Here's what I found on the reservation: reservation id ${a.reservation_id}, status checked out. It doesn't show the vat number, but the system confirmed it: reservation id ${a.reservation_id}, vat number ${a.vat_number}.`,
      ),
    ).toBe("done");
  });

  it("who doubted a removal is answered by a list that no longer shows it", async () => {
    expect(
      await afterDoubt(
        "test/fixtures/specs/saas-admin.json",
        "remove_user",
        (a) => `Done, I've removed the user: user id ${a.user_id}, deleted true.`,
        (a) =>
          `Here's what I found on the users: 2 users (usr_11HZX1K1, usr_22HZX2K2). The user ${a.user_id} is no longer listed.`,
      ),
    ).toBe("done");
  });

  it(
    "never sends the same message twice",
    async () => {
      const cases: string[] = [];
      for (const path of [RETAIL, FINANCE, HOTEL]) {
        const rows = await rowsOf(path);
        expect(rows.length).toBeGreaterThanOrEqual(300);
        for (const row of rows) {
          const sent = new Set<string>();
          for (const message of row.messages.slice(startOf(row) + 1)) {
            if (message.role !== "user") continue;
            const text = message.content.toLowerCase().replace(/\s+/g, " ").trim();
            if (sent.has(text)) cases.push(`${path} ${row.task_id}: ${JSON.stringify(text)}`);
            sent.add(text);
          }
        }
      }
      expect(summary(cases)).toEqual(none);
    },
    HEAVY,
  );

  it("answers the question asked with the right detail", async () => {
    let asked = 0;
    for (const path of [
      "test/fixtures/specs/physio-clinic.json",
      "test/fixtures/specs/hotel.json",
    ]) {
      const agent = await agentOf(path);
      for (let seed = 0; seed < 10; seed++) {
        const { persona } = personOf(agent, { stance: "cooperative" }, seed);
        const born = persona.details.details.date_of_birth;
        if (born === undefined) continue;
        asked++;
        const reply = new OfflineUser(persona, seed).reply(
          conversation("Could you give me your date of birth?"),
        );
        expect(reply.content, `${path} seed ${seed}`).toContain(born);
        expect(reply.content).not.toContain(persona.details.email);
      }
    }
    expect(asked).toBeGreaterThan(0);
  });

  it("asks for the details a check takes in one question", async () => {
    const data = await simulate("test/fixtures/specs/utility-energy.json", { rows: 120, seed: 2 });
    let checks = 0;
    for (const row of await data.rows()) {
      row.messages.forEach((m, i) => {
        if (m.role !== "assistant" || m.tool_calls?.[0]?.function.name !== "verify_account_holder")
          return;
        // The questions since the last tool answer: what the check needed was asked for once.
        let from = i;
        while (from > 0 && row.messages[from - 1]?.role !== "tool") from--;
        const questions = row.messages
          .slice(from, i)
          .filter(
            (q) =>
              q.role === "assistant" &&
              /full name|date of birth|bank last4/.test(q.content ?? "") &&
              !/again/.test(q.content ?? ""),
          );
        checks++;
        expect(questions.length, row.id).toBeLessThanOrEqual(1);
      });
    }
    expect(checks).toBeGreaterThan(10);
  });

  it("raises a claim that disagrees with the records once, and once it is answered ends as told, never asking for what was done", async () => {
    const store = await agentOf("test/fixtures/specs/online-store.json");
    const writes = store.axes.tool.filter(
      (t) => store.tools.find((d) => d.name === t.name)?.access === "write",
    );
    let disputes = 0;
    for (let seed = 0; seed < 40; seed++) {
      const tool = writes[seed % writes.length]?.name as string;
      const { persona } = personOf(
        store,
        { tool, stance: "cooperative", world: "conflicting_records" },
        seed,
      );
      if (Object.keys(persona.details.claims).length === 0) continue;
      disputes++;
      const user = new OfflineUser(persona, seed);
      const goal = persona.goal.text.replace(/[\uE000\uE001]/g, "");
      const report = say(
        `Done, I've taken care of it: ${goal}. Is there anything else I can help you with?`,
      );
      const claim = user.reply([...conversation(), report]);
      expect(claim.end, claim.content).toBeUndefined();
      expect(claim.content).toMatch(/\bsays\b/i);
      const answered = user.reply([
        ...conversation(),
        report,
        { role: "user", content: claim.content },
        say(
          "I understand that's not what you have. What our system shows is what I told you; I can only go by that here. Is there anything else I can help with?",
        ),
      ]);
      expect(answered.end, answered.content).toBe("done");
      expect(answered.content.toLowerCase()).not.toContain(goal.toLowerCase());
    }
    expect(disputes).toBeGreaterThan(0);
  });

  it("takes the agent's last word on a request, and asks once for someone else when they press", async () => {
    const retail = await agentOf(RETAIL);
    const lastWord = say(
      "I understand this matters to you. As I said, I've done what I can with this request. I'm not able to do more on it from here.",
    );
    const cooperative = personOf(retail, { tool: "cancel_order", stance: "cooperative" });
    const accepted = new OfflineUser(cooperative.persona, 1).reply([...conversation(), lastWord]);
    expect(accepted.end, accepted.content).toBe("done");

    const insistent = personOf(retail, { tool: "cancel_order", stance: "insistent" });
    const user = new OfflineUser(insistent.persona, 1);
    const pressed = user.reply([...conversation(), lastWord]);
    expect(pressed.end, pressed.content).toBeUndefined();
    expect(pressed.content).toMatch(/speak to someone|put me through/i);
    const again = say("I'm sorry, I don't have anything more I can do on this here.");
    const after = user.reply([
      ...conversation(),
      lastWord,
      { role: "user", content: pressed.content },
      again,
    ]);
    expect(after.end, after.content).toBe("done");
    // An offer of more is no last word: a report that ends "anything else I can do?" is thanked.
    const orderId = cooperative.persona.details.ids.order_id as string;
    const thanked = new OfflineUser(cooperative.persona, 1).reply([
      ...conversation(),
      say(
        `Done, I've cancelled the order: order id ${orderId}, status cancelled. Is there anything else I can do for you today?`,
      ),
    ]);
    expect(thanked.end, thanked.content).toBe("done");
    expect(thanked.content).not.toMatch(/shame|understand|someone/i);
  });

  it("tells a person who asks for someone else that there is nobody to pass them to, where no tool hands off", async () => {
    const helpdesk = await agentOf(HELPDESK);
    let asked = 0;
    for (const row of await rowsOf(HELPDESK, 0, 300)) {
      row.messages.forEach((message, i) => {
        if (message.role !== "user" || !/speak to someone|put me through/i.test(message.content))
          return;
        asked++;
        const next = row.messages[i + 1];
        expect(next?.role === "assistant" ? next.content : "", row.task_id).toMatch(
          /no one I can pass you to/,
        );
      });
    }
    expect(helpdesk.tools.some((t) => /human|transfer|escalat/.test(t.name))).toBe(false);
    expect(asked).toBeGreaterThan(0);
  });

  it("asks for a submission with the declaration it must accept accepted, and a submitted claim says so", async () => {
    const claims = await agentOf("test/fixtures/specs/insurance-claims.json");
    for (let seed = 0; seed < 10; seed++) {
      const { persona, world } = personOf(claims, { tool: "submit_claim", world: "normal" }, seed);
      expect(persona.goal.arguments.declarationAccepted, `seed ${seed}`).toBe(true);
      const answer = world.call("submit_claim", persona.goal.arguments);
      if (answer.ok) expect(JSON.parse(answer.content).status).toBe("submitted");
    }
  });

  it("picks the listed record that is theirs by what it is, whatever its ids look like", async () => {
    const saas = await agentOf("test/fixtures/specs/saas-admin.json");
    const { persona } = personOf(saas, { tool: "get_workspace", stance: "cooperative" });
    const reader = IdentifierReader.of(saas);
    const mine = {
      ...persona,
      details: {
        ...persona.details,
        ids: {},
        about: "their workspace (Harbor workspace) from 2026-06-05",
      },
    };
    const listing = say(
      "I can see 2 workspaces that could be it: ws_IwAPKWwq (Ridge workspace, team); ws_Yb5NYYSy (Harbor workspace, free). Which one do you mean?",
    );
    const reply = new OfflineUser(mine, 1, { ids: (text) => reader.read(text) }).reply([
      ...conversation(),
      listing,
    ]);
    expect(reply.content).toMatch(/ws_Yb5NYYSy/);
  });

  it("turns down an id of a kind they hold with their own, never with an id of another kind, and goes by the agent on a kind they hold none of", async () => {
    const retail = await agentOf(RETAIL);
    const { persona } = personOf(retail, { tool: "cancel_order", stance: "cooperative" });
    const orderId = persona.details.ids.order_id as string;
    const withUser = {
      ...persona,
      details: { ...persona.details, ids: { user_id: "usr_55HZX2K9", ...persona.details.ids } },
    };
    const stranger = `W${String((Number(orderId.slice(1)) + 1) % 10_000_000).padStart(7, "0")}`;
    const confirm = say(
      `To confirm, I'll cancel the order with order ID ${stranger}. Shall I go ahead?`,
    );
    const reader = IdentifierReader.of(retail);
    const knows = { ids: (text: string) => reader.read(text) };
    const own = new OfflineUser(withUser, 1, knows).reply([...conversation(), confirm]).content;
    expect(own).toMatch(new RegExp(`isn't mine\\W+it's ${orderId}`, "i"));
    const otherIds: Record<string, string> = { ...withUser.details.ids };
    delete otherIds.order_id;
    // Holding no order id, they ask about none either.
    const { order_id: _asked, ...otherArguments } = withUser.goal.arguments;
    const none = new OfflineUser(
      {
        ...withUser,
        details: { ...withUser.details, ids: otherIds },
        goal: { ...withUser.goal, arguments: otherArguments },
      },
      1,
      knows,
    ).reply([...conversation(), confirm]).content;
    // Holding no id of that kind, they cannot tell: they go by what the agent found.
    expect(none).toMatch(/\byes\b/i);
    expect(none).not.toContain("usr_55HZX2K9");
  });

  it("with two alike workspaces a ticket is filed on, takes either read back as theirs, and never answers one with a user id said before it", async () => {
    const saas = await agentOf("test/fixtures/specs/saas-admin.json");
    const setup = personOf(saas, {
      tool: "support_ticket_create",
      world: "duplicate_records",
      stance: "cooperative",
    });
    const twins = (setup.world.state.shaped as { duplicates: string[] }).duplicates;
    const userId = setup.persona.details.ids.user_id as string;
    expect(setup.persona.details.ids.workspace_id).toBeUndefined();
    const reader = IdentifierReader.of(saas);
    const knows = { ids: (text: string) => reader.read(text) };
    const readBack = (workspace: string) =>
      say(
        `To confirm, I'll create the support ticket with affected user IDs ${userId}, workspace ID ${workspace}. Shall I go ahead?`,
      );
    for (const twin of twins) {
      const said = new OfflineUser(setup.persona, 1, knows).reply([
        ...conversation(),
        readBack(twin),
      ]).content;
      expect(said, twin).toMatch(/\byes\b/i);
      expect(said, twin).not.toMatch(/isn't mine|don't know the number/i);
    }
    const stranger = `ws_${"Q".repeat(8)}`;
    const turnedDown = new OfflineUser(setup.persona, 1, knows).reply([
      ...conversation(),
      readBack(stranger),
    ]).content;
    expect(turnedDown).not.toContain(userId);
  });

  it("asks about a record of theirs by the number it goes by, though it is not its id (a prescription's rx number)", async () => {
    const pharmacy = await agentOf("test/fixtures/specs/pharmacy.json");
    for (const tool of ["request_refill_authorization", "estimate_copay", "get_prescription"])
      for (const seed of [1, 2, 3]) {
        const { persona, world } = personOf(pharmacy, { tool, stance: "cooperative" }, seed);
        const rx = persona.goal.arguments.rx_number;
        const theirs = world.store
          .ownedBy("prescription", world.state.person.customer_id)
          .map((p) => p.rx_number);
        expect(theirs, `${tool} ${seed}`).toContain(rx);
      }
  });

  it("with no account number, picks theirs from a list by the kind it is, and names it whole", async () => {
    const energy = await agentOf("test/fixtures/specs/utility-energy.json");
    const reader = IdentifierReader.of(energy);
    let told = 0;
    for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
      const setup = personOf(
        energy,
        { tool: "create_payment_plan", world: "duplicate_records", stance: "cooperative" },
        seed,
      );
      const { duplicates, entity } = setup.world.state.shaped as {
        duplicates: string[];
        entity: string;
      };
      if (entity !== "account") continue;
      const accounts = setup.world.store.ownedBy("account", setup.world.state.person.customer_id);
      const twin = accounts.find((a) => a.account_number === duplicates[0]);
      // Theirs are told apart where no other account is of their kind.
      const others = accounts.filter((a) => !duplicates.includes(a.account_number as string));
      if (!twin || others.length === 0 || others.some((a) => a.status === twin.status)) continue;
      told++;
      expect(setup.persona.details.about).toContain(String(twin.status).replace(/_/g, " "));
      const listed = [
        ...others,
        ...accounts.filter((a) => duplicates.includes(a.account_number as string)),
      ];
      const listing = say(
        `I can see ${listed.length} accounts that could be it: ${listed.map((a) => `${a.account_number} (${a.holder_name_masked}, ${a.status})`).join("; ")}. Which one do you mean?`,
      );
      const picked = new OfflineUser(setup.persona, 1, { ids: (text) => reader.read(text) }).reply([
        ...conversation(),
        listing,
      ]).content;
      const named = duplicates.filter((id) => picked.includes(id));
      expect(named.length, `${seed}: ${picked}`).toBe(1);
    }
    expect(told).toBeGreaterThan(0);
  });

  /** Worlds of two alike accounts among others of the person's, on seeds 1 to `seeds`, where they hold no number for theirs. */
  const alikeAccounts = (agent: Agent, tool: string, idField: string, seeds: number) => {
    const cases = [];
    for (let seed = 1; seed <= seeds; seed++) {
      const setup = personOf(
        agent,
        { tool, world: "duplicate_records", stance: "cooperative" },
        seed,
      );
      const { duplicates, entity } = setup.world.state.shaped as {
        duplicates: string[];
        entity: string;
      };
      if (entity !== "account" || setup.persona.details.ids[idField] !== undefined) continue;
      const accounts = setup.world.store.ownedBy("account", setup.world.state.person.customer_id);
      const others = accounts.filter((a) => !duplicates.includes(String(a[idField])));
      if (others.length === 0) continue;
      // Listed as an agent lists them, the others first.
      const listed = [...others, ...accounts.filter((a) => !others.includes(a))];
      cases.push({ seed, persona: setup.persona, duplicates, others, listed });
    }
    return cases;
  };
  const pickedFrom = (agent: Agent, persona: Persona, listing: string) =>
    new OfflineUser(persona, 1, { ids: (text) => IdentifierReader.of(agent).read(text) }).reply([
      ...conversation(),
      say(listing),
    ]).content;

  it("with no number for any of their accounts, all of one kind, still knows theirs from the others by a kind only it has", async () => {
    const telecom = await agentOf("test/fixtures/specs/telecom.json");
    const cases = alikeAccounts(telecom, "pay_bill", "account_id", 16);
    for (const { seed, persona, duplicates, others, listed } of cases) {
      const kind = /\(([^)]*)\)/.exec(persona.details.about)?.[1];
      expect(kind, `${seed}: ${persona.details.about}`).toBeDefined();
      const kindOf = (a: Record<string, unknown>) => String(a.account_type).replace(/_/g, " ");
      expect(others.map(kindOf), String(seed)).not.toContain(kind);
      const picked = pickedFrom(
        telecom,
        persona,
        `I can see ${listed.length} accounts that could be it: ${listed.map((a) => `${a.account_id} (${a.account_holder_name}, ${a.account_type})`).join("; ")}. Which one do you mean?`,
      );
      expect(
        duplicates.filter((id) => picked.includes(id)),
        `${seed}: ${picked}`,
      ).toHaveLength(1);
    }
    expect(cases.length).toBeGreaterThan(3);
  });

  it("with no number for their account, knows it from their others by two kinds together or by fuels set apart, and picks one of the two alike", async () => {
    const energy = await agentOf("test/fixtures/specs/utility-energy.json");
    const cases = alikeAccounts(energy, "create_payment_plan", "account_number", 24);
    for (const { seed, persona, duplicates, listed } of cases) {
      const picked = pickedFrom(
        energy,
        persona,
        `I can see ${listed.length} accounts that could be it: ${listed.map((a) => `${a.account_number} (${a.holder_name_masked}, ${a.status}, ${(a.fuels as string[]).join(" and ")})`).join("; ")}. Which one do you mean?`,
      );
      expect(
        duplicates.filter((id) => picked.includes(id)),
        `${seed}: ${persona.details.about} → ${picked}`,
      ).toHaveLength(1);
    }
    expect(cases.length).toBeGreaterThan(8);
  });

  it("asks about someone else by their email where another of that name is there, picks them by their whole name, and never answers their id with their own", async () => {
    const saas = await agentOf("test/fixtures/specs/saas-admin.json");
    const { persona, world } = personOf(saas, {
      tool: "change_user_role",
      world: "duplicate_records",
      stance: "cooperative",
    });
    const twins = (world.state.shaped as { duplicates: string[] }).duplicates;
    const target = world.store.get("user", twins[0] as string);
    expect(target).toBeDefined();
    const name = String(target?.name);
    const namesake = {
      ...persona,
      details: { ...persona.details, about: `the user ${name}` },
    };
    const reader = IdentifierReader.of(saas);
    const knows = { ids: (text: string) => reader.read(text) };
    // Listed with someone of the same first name first, they name one of the two by the whole name.
    const [first] = name.split(" ");
    const picked = new OfflineUser(namesake, 1, knows).reply([
      ...conversation(),
      say(
        `I can see 3 users that could be it: usr_13HZX0K9 (${first} Gallagher, admin); ${twins[0]} (${name}, member); ${twins[1]} (${name}, member). Which one do you mean?`,
      ),
    ]).content;
    expect(twins.filter((id) => picked.includes(id))).toHaveLength(1);
    // A stranger read back as the user whose role changes is not answered with their own user id.
    const own = persona.details.ids.user_id;
    const readBack = new OfflineUser(persona, 1, knows).reply([
      ...conversation(),
      say(
        `To confirm, I'll change the user role with workspace ID ${persona.goal.arguments.workspace_id}, new role ${persona.goal.arguments.new_role}, user ID usr_99HZX9K9. Shall I go ahead?`,
      ),
    ]).content;
    if (own !== undefined) expect(readBack).not.toContain(own);
    // Where someone else shares the name (likelier in a big world, and still rare: 3 of seeds 1–60),
    // they are named by their email too.
    let namesakes = 0;
    for (let seed = 1; seed <= 60; seed++) {
      const big = createWorld({
        spec: saas,
        situation: situationOf(saas, { tool: "change_user_role", stance: "cooperative" }, seed),
        size: 600,
      });
      const about = /^the user (.+?)(?: \((.+)\))?$/.exec(big.person.about);
      const users = [...big.store.all("user")].filter((u) => u.name === about?.[1]);
      const others = users.filter((u) => u.email !== users[0]?.email);
      if (others.length === 0 && !about?.[2]) continue;
      namesakes++;
      expect(about?.[2], `${seed}: ${big.person.about}`).toMatch(/@/);
    }
    expect(namesakes).toBeGreaterThan(0);
  });

  it("dates a record by the day it is of, as a list shows it, not the day it was filed", async () => {
    const saas = await agentOf("test/fixtures/specs/saas-admin.json");
    let checked = 0;
    for (let seed = 1; seed <= 6; seed++) {
      const { persona, world } = personOf(
        saas,
        { tool: "get_invoice", world: "duplicate_records", stance: "cooperative" },
        seed,
      );
      const twins = (world.state.shaped as { duplicates?: string[] }).duplicates ?? [];
      const invoice = [...world.store.all("invoice")].find((i) => i.invoice_number === twins[0]);
      if (!invoice || typeof invoice.date !== "string") continue;
      checked++;
      expect(persona.details.about, String(seed)).toContain(`from ${invoice.date.slice(0, 10)}`);
    }
    expect(checked).toBeGreaterThan(0);
  });

  it("picks the listed record of their kind whole: 'gas' is not 'electricity and gas'", async () => {
    const energy = await agentOf("test/fixtures/specs/utility-energy.json");
    const { persona } = personOf(energy, { tool: "switch_tariff", stance: "cooperative" });
    const reader = IdentifierReader.of(energy);
    const mine = {
      ...persona,
      details: { ...persona.details, ids: {}, about: "their account (gas)" },
      goal: { ...persona.goal, arguments: {} },
    };
    const reply = new OfflineUser(mine, 1, { ids: (text) => reader.read(text) }).reply([
      ...conversation(),
      say(
        "I can see 2 accounts that could be it: ACC 6620 2939 (C*** M*****, active, electricity and gas); ACC 5601 1417 (C*** M*****, active, gas). Which one do you mean?",
      ),
    ]);
    expect(reply.content).toContain("ACC 5601 1417");
  });

  it("picks the record their request named from a list, though they were never given its id, but not one of two alike", async () => {
    const energy = await agentOf("test/fixtures/specs/utility-energy.json");
    const { persona } = personOf(energy, { tool: "list_bills", stance: "cooperative" });
    const reader = IdentifierReader.of(energy);
    const asked = (alternatives?: Record<string, unknown>[]) => ({
      ...persona,
      details: { ...persona.details, ids: {}, about: "their account" },
      goal: {
        ...persona.goal,
        arguments: { account_number: "ACC 3129 6585" },
        ...(alternatives ? { alternatives } : {}),
      },
    });
    const listing = say(
      "I can see 2 accounts that could be it: ACC 8541 6782 (H*** G******, active); ACC 3129 6585 (H*** G******, active). Which one do you mean?",
    );
    const pick = (p: ReturnType<typeof asked>) =>
      new OfflineUser(p, 1, { ids: (text) => reader.read(text) }).reply([
        ...conversation(),
        listing,
      ]).content;
    expect(pick(asked())).toMatch(/^the ACC 3129 6585 one\b/i);
    // One of two alike is no record they know the id of: they go by what it is.
    expect(pick(asked([{ account_number: "ACC 8541 6782" }]))).not.toMatch(
      /^the ACC 3129 6585 one\b/i,
    );
  });

  it("plays a custom stance from its name or description", async () => {
    const spec = JSON.parse(readFileSync(RETAIL, "utf8")) as AgentSpec;
    const custom = Agent.from({
      ...spec,
      axes: {
        ...spec.axes,
        stances: [
          "cooperative",
          "impatient",
          { name: "suspicious", description: "doubts everything the agent says" },
        ],
      },
    });
    const impatient = custom.axes.stance.find((s) => s.name === "impatient");
    expect(impatient?.description).toMatch(/impatient/);

    const as = (stance: string) => personOf(custom, { tool: "cancel_order", stance });
    const report = (orderId: string) =>
      conversation(
        `Done, I've cancelled the order: order id ${orderId}, status cancelled. Is there anything else I can help you with?`,
      );
    const failure = conversation(
      "I'm sorry, I couldn't do that: the order is already delivered. Is there anything else I can help you with?",
    );

    const neutral = as("cooperative");
    const orderId = neutral.persona.details.ids.order_id as string;
    expect(new OfflineUser(neutral.persona, 1).reply(report(orderId)).end).toBe("done");
    expect(new OfflineUser(neutral.persona, 1).reply(failure).end).toBe("done");

    const suspicious = as("suspicious");
    expect(suspicious.persona.tags[0]).toBe("suspicious");
    const doubt = new OfflineUser(suspicious.persona, 1).reply(
      report(suspicious.persona.details.ids.order_id as string),
    );
    expect(doubt.end).toBeUndefined();
    expect(doubt.content).toMatch(/are you sure|double-check/i);

    const hurried = as("impatient");
    expect(hurried.persona.patience).toBeLessThan(neutral.persona.patience);
    expect(new OfflineUser(hurried.persona, 1).reply(failure).end).toBe("gave_up");
  });
});

describe("the reward", () => {
  it("fails a row whose goal was not reached, whatever the person said", async () => {
    const retail = await agentOf(RETAIL);
    const situation = situationOf(retail, { tool: "cancel_order", stance: "cooperative" });

    // A person who thanks the agent and leaves, whatever it said.
    const thankful: UserSimulator = {
      name: "thankful",
      start: () => ({ reply: async () => ({ content: "Thanks, that's all!", end: "done" }) }),
    };
    const orderId = personOf(retail, { tool: "cancel_order", stance: "cooperative" }).persona
      .details.ids.order_id as string;
    for (const [claim, userModel] of [
      ["Done! I've cancelled it.", thankful],
      // The offline person, told their order by its id, thanks the agent too.
      [`Done! I've cancelled your order ${orderId}.`, offlineUser],
    ] as const) {
      const claimed = new Episode({ spec: retail, situation, userModel });
      await claimed.reset();
      const end = await claimed.step(say(claim));
      expect(end.observation.messages.at(-1)?.role, claim).toBe("user");
      expect(end.observation.ended_by, claim).toBe("user_done");
      const bad = claimed.reward();
      expect(bad.reward, claim).toBe(0);
      expect(bad.checks.find((c) => c.name === "goal_state")?.passed, claim).toBe(false);
      expect(bad.checks.find((c) => c.name === "conduct")?.passed, claim).toBe(false);
      const badRow = claimed.row();
      expect(badRow.episode.outcome?.reached, claim).toBe(false);
      const graded = grade(badRow);
      expect(graded.reward, claim).toBe(0);
      expect(graded.reason, claim).toMatch(/did not get what they came for/);
    }

    const done = new Episode({ spec: retail, situation });
    await done.reset();
    await done.step(call("cancel_order", done.goal.arguments));
    expect(done.reward()).toMatchObject({ reward: 1 });
    await done.step(
      say("Done, I've cancelled the order. Is there anything else I can help you with?"),
    );
    expect(done.done).toBe(true);
    const goodRow = done.row();
    expect(goodRow.episode.outcome?.reached).toBe(true);
    expect(grade(goodRow).reward).toBe(1);
  });

  it("flags a person content with nothing done, unless told it could not be done", async () => {
    const retail = await agentOf(RETAIL);
    const situation = situationOf(retail, { tool: "cancel_order", stance: "cooperative" });
    // A person who leaves content whatever they are told.
    const content: UserSimulator = {
      name: "content",
      start: () => ({ reply: async () => ({ content: "Great, thanks!", end: "done" }) }),
    };
    const rowAfter = async (text: string) => {
      const episode = new Episode({ spec: retail, situation, userModel: content });
      await episode.reset();
      await episode.step(say(text));
      return episode.row();
    };
    const checks = (row: Row) => row.sim_faults.map((f) => f.check);

    const idle = await rowAfter("Is there anything else I can help you with?");
    expect(idle.episode).toMatchObject({ ended_by: "user_done", outcome: { reached: false } });
    expect(checks(idle)).toContain("satisfied_without_outcome");
    const refused = await rowAfter("I'm sorry, I can't do that.");
    expect(refused.episode).toMatchObject({ ended_by: "user_done", outcome: { reached: false } });
    expect(checks(refused)).not.toContain("satisfied_without_outcome");

    // The same check on a row built by hand.
    const built = (said: string) => ({
      messages: [
        { role: "system" as const, content: "You are a support agent." },
        { role: "user" as const, content: "Please cancel my order." },
        say(said),
        { role: "user" as const, content: "Great, thanks!" },
      ],
      persona: { tags: [], holds: [], misstated: [] },
      episode: {
        ...idle.episode,
        ended_by: "user_done" as const,
        slips: [],
        outcome: { reached: false, reason: "the order was not cancelled", checks: [] },
      },
      conduct: [],
    });
    const found = simulatorChecks(retail, built("Is there anything else I can help you with?"));
    expect(found.map((f) => f.check)).toContain("satisfied_without_outcome");
    expect(found.find((f) => f.check === "satisfied_without_outcome")?.detail).toMatch(
      /the order was not cancelled/,
    );
    expect(
      simulatorChecks(retail, built("I'm sorry, I can't do that.")).map((f) => f.check),
    ).not.toContain("satisfied_without_outcome");
  });
});

describe("the corpus checks", () => {
  it("cover every corpus spec once, in two parts", () => {
    expect([...CORPUS_PARTS[0], ...CORPUS_PARTS[1]].sort()).toEqual(CORPUS);
    expect(CORPUS_PARTS[0].filter((p) => CORPUS_PARTS[1].includes(p))).toEqual([]);
    expect(CORPUS_PARTS[1]).toEqual(expect.arrayContaining([RETAIL, FINANCE, HELPDESK, HOTEL]));
  });
});

// The second part of the corpus, whose runs the checks above read too; offline-corpus.test.ts
// checks the first.
corpusChecks(CORPUS_PARTS[1]);
