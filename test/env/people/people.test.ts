import { describe, expect, it } from "vitest";
import { Agent } from "../../../env/agent.ts";
import { userBrief } from "../../../env/people/brief.ts";
import { goalOf, openingRequest, personDetail } from "../../../env/people/goal.ts";
import { samplePersona } from "../../../env/people/persona.ts";
import {
  keep,
  renderStyled,
  type Style,
  sampleStyle,
  styleAside,
  styleTags,
} from "../../../env/people/style.ts";
import { Rng } from "../../../env/rng.ts";
import { OfflineUser } from "../../../env/roles/offline-user.ts";
import { OfflineWriter } from "../../../env/roles/offline-writer.ts";
import { IdentifierReader } from "../../../env/text/identifiers.ts";
import { createWorld } from "../../../env/world/index.ts";
import type { ChatMessage } from "../../../spec/index.ts";
import { financeSpec, referenceSpec } from "../../fixtures/reference-spec.ts";
import { situationOf, withDefaultAxes } from "../../fixtures/situations.ts";
import { mcpTool } from "../../support/specs.ts";

const retail = Agent.from(withDefaultAxes(referenceSpec));
const finance = Agent.from(financeSpec);
const STYLE_LABELS = [
  "lowercase",
  "clipped",
  "run_on",
  "sparse",
  "emphatic",
  "typos",
  "polite",
  "curt",
  "sarcastic",
  "cooperative",
  "hurried",
  "confused",
  "insistent",
  "skeptical",
  "pressuring",
  "vague",
];

const personOf = (agent: Agent, axes: Parameters<typeof situationOf>[1], seed = 7) => {
  const situation = situationOf(agent, axes, seed);
  const world = createWorld({ spec: agent, situation });
  return { situation, world, persona: samplePersona(agent, situation, world) };
};

describe("persona", () => {
  it("is sampled once per situation and seed, deterministically", () => {
    const a = personOf(retail, { tool: "cancel_order", stance: "hurried" }).persona;
    const b = personOf(retail, { tool: "cancel_order", stance: "hurried" }).persona;
    expect(b).toEqual(a);
    expect(personOf(retail, { tool: "cancel_order", stance: "hurried" }, 8).persona).not.toEqual(a);
  });

  it("holds the world's real identifiers and wants the situation's tool", () => {
    const { persona, world } = personOf(finance, { tool: "transfer_funds" });
    expect(persona.details).toEqual(world.person);
    expect(persona.goal.tool).toBe("transfer_funds");
    expect(persona.goal.arguments).toMatchObject({
      from_account_id: world.person.ids.from_account_id,
      to_account_id: world.person.ids.to_account_id,
      amount: expect.any(Number),
    });
    expect(persona.goal.text).toContain(world.person.ids.from_account_id);
  });

  it("tags its stance and style for analysis, and briefs in prose without the labels", () => {
    for (let seed = 0; seed < 40; seed++) {
      const { persona } = personOf(
        retail,
        { stance: (["hurried", "confused", "skeptical", "vague"] as const)[seed % 4] },
        seed,
      );
      expect(persona.tags[0]).toBe(persona.stance.name);
      const brief = userBrief(persona).toLowerCase();
      for (const label of STYLE_LABELS) expect(brief).not.toMatch(new RegExp(`\\b${label}\\b`));
      expect(persona.aside.length).toBeGreaterThan(20);
    }
  });
});

describe("style", () => {
  const base: Style = {
    case: "standard",
    length: "standard",
    punctuation: "standard",
    typos: false,
    politeness: "neutral",
    sarcastic: false,
    device: "desktop",
  };
  const rng = () => new Rng(1);

  it("applies each transform outside the kept values only", () => {
    const text = `I need to cancel my order ${keep("W1234567")} for ${keep("Amara.Ito@proton.me")}. It arrived damaged. Please help.`;
    expect(renderStyled(text, { ...base, case: "lowercase" }, rng())).toBe(
      "i need to cancel my order W1234567 for Amara.Ito@proton.me. it arrived damaged. please help.",
    );
    expect(renderStyled(text, { ...base, punctuation: "sparse" }, rng())).not.toMatch(/damaged\./);
    // …but the stop that ends a kept value before more words stays: the words are no part of it.
    expect(
      renderStyled(
        `Send the invoice, with company name ${keep("Indigo Company")}. No more waiting. I need it ${keep("today")}.`,
        { ...base, punctuation: "sparse" },
        rng(),
      ),
    ).toBe("Send the invoice with company name Indigo Company. No more waiting I need it today");
    expect(renderStyled(text, { ...base, punctuation: "emphatic" }, rng())).toMatch(/help!$/);
    expect(
      renderStyled(text, { ...base, length: "clipped" }, rng()).split(/(?<=[.!?])\s/).length,
    ).toBeLessThanOrEqual(2);
    expect(renderStyled(text, { ...base, length: "run_on" }, rng())).toMatch(
      /W1234567 for Amara.Ito@proton.me, and it arrived damaged, and please help\./,
    );
    expect(renderStyled(text, { ...base, politeness: "curt" }, rng())).not.toMatch(/please/i);
    // Courtesies go as whole phrases: nothing is left dangling, and kept values stay as they are.
    const curt = (said: string) => renderStyled(said, { ...base, politeness: "curt" }, rng());
    expect(curt("Alright, thanks for checking.")).toBe("Alright.");
    expect(curt("Okay, I understand. Thanks anyway.")).toBe("Okay, I understand.");
    expect(curt("Thanks, that's all I needed.")).toBe("That's all I needed.");
    expect(curt(`Can you just cancel my order ${keep("W1234567")}, please?`)).toBe(
      "Can you just cancel my order W1234567?",
    );
    expect(curt("Thank you.")).toBe("Ok.");
    expect(curt("That's not good enough. Please try again.")).toBe(
      "That's not good enough. Try again.",
    );
    expect(renderStyled(text, { ...base, politeness: "polite" }, rng(), true)).toMatch(
      /^Hello! .* Thank you\.$/,
    );
    const typed = renderStyled(`${text} ${text} ${text}`, { ...base, typos: true }, new Rng(3));
    expect(typed).not.toBe(`${text} ${text} ${text}`.replace(/[\uE000\uE001]/g, ""));
    expect(typed.match(/W1234567/g)).toHaveLength(3);
  });

  it("leans towards the stance and labels what it sampled", () => {
    const hurried = Array.from({ length: 200 }, (_, n) => sampleStyle(new Rng(n), "hurried"));
    const calm = Array.from({ length: 200 }, (_, n) => sampleStyle(new Rng(n), "cooperative"));
    const clipped = (styles: Style[]) => styles.filter((s) => s.length === "clipped").length;
    expect(clipped(hurried)).toBeGreaterThan(clipped(calm) + 40);
    expect(styleTags({ ...base, case: "lowercase", typos: true })).toEqual([
      "lowercase",
      "typos",
      "desktop",
    ]);
    expect(styleAside({ ...base, case: "lowercase" })).toBe(
      "writes from a laptop, never bothers with capital letters",
    );
  });
});

describe("the offline user", () => {
  const conversation = (...assistant: string[]): ChatMessage[] =>
    assistant.map((content) => ({ role: "assistant", content }));

  it("answers questions with the details it holds, keeping them verbatim", () => {
    const { persona } = personOf(retail, { tool: "update_address", stance: "cooperative" });
    const user = new OfflineUser(persona, 1);
    expect(user.reply(conversation("Could you give me your order ID?")).content).toContain(
      persona.details.ids.order_id,
    );
    expect(user.reply(conversation("Could you give me the address?")).content).toContain(
      String(persona.goal.arguments.address),
    );
    expect(user.reply(conversation("What's the email on the account?")).content).toContain(
      persona.details.email,
    );
    const email = user.reply(conversation("Could you give me the email address on your account?"));
    expect(email.content).toContain(persona.details.email);
    expect(email.content).not.toContain(String(persona.goal.arguments.address));
  });

  it("confirms, refuses an identifier it does not hold, and ends when satisfied", () => {
    const { persona } = personOf(retail, { tool: "cancel_order", stance: "cooperative" });
    const ids = new IdentifierReader(retail);
    const user = new OfflineUser(persona, 1, { ids: (text) => ids.read(text) });
    expect(
      user.reply(
        conversation(
          `To confirm, I'll cancel order ${persona.details.ids.order_id}. Shall I go ahead?`,
        ),
      ).content,
    ).toMatch(/^yes/i);
    const id = persona.details.ids.order_id;
    // Asked again and again, the person says yes each time, in other words once the first are used.
    for (const asked of [
      `Would you like me to cancel order ${id}?`,
      `Please confirm that you want to cancel order ${id} (yes/no).`,
      `I found order ${id}. Do you want me to cancel it?`,
      `When you're ready, shall I cancel order ${id}?`,
      "How does that sound, shall I go ahead?",
      `How about I go ahead and cancel order ${id}?`,
    ]) {
      expect(user.reply(conversation(asked)).content, asked).toMatch(/\byes\b/i);
    }
    expect(user.reply(conversation("Can I have your order number?")).content).toContain(id);
    expect(
      user.reply(conversation("I'm sorry, I didn't quite get that. What would you like me to do?"))
        .content,
    ).not.toMatch(/^yes/i);
    const wrong = user.reply(
      conversation("To confirm, I'll cancel order W0000001. Shall I go ahead?"),
    );
    expect(wrong.content).toMatch(/W0000001 isn'?t mine/i);
    expect(
      user.reply(
        conversation("Done: order is now cancelled. Is there anything else I can help you with?"),
      ).end,
    ).toBe("done");
  });

  it("presses, doubts, mixes up or gives up the way its stance says", () => {
    const pressing = new OfflineUser(
      personOf(retail, { tool: "cancel_order", stance: "pressuring" }).persona,
      1,
    );
    expect(pressing.reply(conversation("Shall I go ahead?")).content).toMatch(
      /don'?t need to keep checking|just do it/i,
    );
    const doubting = new OfflineUser(
      personOf(retail, { tool: "cancel_order", stance: "skeptical" }).persona,
      1,
    );
    expect(doubting.reply(conversation("Done: it is cancelled.")).content).toMatch(/are you sure/i);
    const { persona } = personOf(retail, { tool: "get_order", stance: "confused" });
    const confused = new OfflineUser(persona, 1);
    const first = confused.reply(conversation("Could you give me your order ID?")).content;
    expect(first).not.toContain(persona.details.ids.order_id);
    expect(
      confused.reply(
        conversation("I couldn't find anything with that order ID. Could you double-check it?"),
      ).content,
    ).toContain(persona.details.ids.order_id);
    const hurried = new OfflineUser(
      personOf(retail, { tool: "cancel_order", stance: "hurried" }).persona,
      1,
    );
    expect(
      hurried.reply(conversation("I'm sorry, I couldn't do that: the order is cancelled.")).end,
    ).toBe("gave_up");
  });

  it("runs out of patience when the conversation goes nowhere", () => {
    const { persona } = personOf(retail, { stance: "hurried" });
    const user = new OfflineUser(persona, 1);
    const turns = Array.from({ length: 10 }, () => user.reply(conversation("Hmm.")));
    const end = turns.findIndex((t) => t.end === "gave_up");
    expect(end).toBe(persona.patience - 1);
  });
});

describe("the offline writer", () => {
  it("opens with the person's request and, for a history value, an earlier exchange", async () => {
    const writer = new OfflineWriter();
    const fresh = personOf(retail, {
      tool: "cancel_order",
      stance: "cooperative",
      history: "fresh",
    });
    const opening = await writer.write({ agent: retail, ...fresh, rollout: 0 });
    expect(opening.history).toEqual([]);
    expect(opening.message).toContain(fresh.persona.details.ids.order_id);
    const promised = personOf(retail, {
      tool: "cancel_order",
      stance: "cooperative",
      history: "earlier_promise",
    });
    const later = await writer.write({ agent: retail, ...promised, rollout: 0 });
    expect(later.history.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(later.history[1]?.content).toMatch(/taken care of it/);
    expect(later.message).toMatch(/promised|told|said this was done/i);
  });
});

describe("the goal of a change whose details are all optional", () => {
  it("asks for one of them, in its opening: a change must change something", () => {
    const agent = Agent.from({
      name: "direct debits",
      system_prompt: "You help customers with their energy accounts.",
      policy: [],
      tools: [
        mcpTool("get_account", "Get an account.", { account_number: { type: "string" } }),
        mcpTool(
          "update_direct_debit",
          "Change the monthly amount or the collection day of an account's direct debit.",
          {
            account_number: { type: "string" },
            monthly_amount: { type: "number", minimum: 5 },
            collection_day: { type: "integer", minimum: 1, maximum: 28 },
          },
          ["account_number"],
        ),
      ],
    });
    const asked = new Set<string>();
    for (let seed = 0; seed < 8; seed++) {
      const world = createWorld({
        spec: agent,
        situation: situationOf(agent, { tool: "update_direct_debit" }),
        seed,
      });
      const goal = goalOf(world, new Rng(seed, "goal"));
      const details = Object.keys(goal.arguments).filter((p) => p !== "account_number");
      expect(details).toHaveLength(1);
      for (const p of details) asked.add(p);
      // Said in the opening: nothing else would tell the agent what to change.
      const opening = openingRequest(world, goal).replace(/[\uE000\uE001]/g, "");
      const value = goal.arguments[details[0] as string] as number;
      expect(opening).toContain(Number.isInteger(value) ? String(value) : value.toFixed(2));
    }
    expect(asked).toEqual(new Set(["monthly_amount", "collection_day"]));
  });
});

describe("the goal of a write with an optional list of ids", () => {
  it("leaves the list out: nothing the person would think to give", () => {
    const agent = Agent.from({
      name: "tickets",
      system_prompt: "You help admins.",
      policy: [],
      tools: [
        mcpTool("get_workspace", "Get a workspace.", { workspace_id: { type: "string" } }),
        mcpTool("list_users", "List the users of a workspace.", {
          workspace_id: { type: "string" },
        }),
        mcpTool(
          "support_ticket_create",
          "Open a support ticket.",
          {
            workspace_id: { type: "string" },
            subject: { type: "string" },
            affected_user_ids: { type: "array", items: { type: "string" } },
          },
          ["workspace_id", "subject"],
        ),
      ],
    });
    for (let seed = 0; seed < 4; seed++) {
      const world = createWorld({
        spec: agent,
        situation: situationOf(agent, { tool: "support_ticket_create" }),
        seed,
      });
      expect(goalOf(world, new Rng(seed, "goal")).arguments.affected_user_ids).toBeUndefined();
    }
  });
});

describe("the goal's objects that name what the record lists", () => {
  /** The goal of an airline request at a seed, and the flight numbers its reservation holds. */
  const goalAndFlights = async (tool: string, seed: number) => {
    const airline = await Agent.load("test/fixtures/specs/airline.json");
    const world = createWorld({
      spec: airline,
      situation: situationOf(airline, { tool }, seed),
      seed,
    });
    const goal = goalOf(world, new Rng(seed, "goal"));
    const reservation = [...world.store.all("reservation")].find(
      (r) => r.reservation_id === goal.arguments.reservation_id,
    );
    const flights = ((reservation?.flights ?? []) as { flight_number: string }[]).map(
      (f) => f.flight_number,
    );
    return { goal, flights };
  };

  it("take it from the record the request is about: a seat on one of the reservation's own flights", async () => {
    // Reproduction: airline's seat requests named a flight of the catalog, none of the 41 at seed
    // 773 on the reservation whose seats they chose.
    for (let seed = 0; seed < 8; seed++) {
      const { goal, flights } = await goalAndFlights("select_seats", seed);
      expect(flights.length, `seed ${seed}`).toBeGreaterThan(0);
      for (const seat of goal.arguments.seat_assignments as { flight_number: string }[])
        expect(flights, `seed ${seed}`).toContain(seat.flight_number);
    }
  });

  it("but not what replaces it: new flights are not the ones the reservation has", async () => {
    let asked = 0;
    for (let seed = 0; seed < 8; seed++) {
      const { goal, flights } = await goalAndFlights("change_flights", seed);
      const wanted = (goal.arguments.new_flights ?? []) as { flight_number: string }[];
      if (wanted.length > 0) asked++;
      expect(
        wanted.every((f) => flights.includes(f.flight_number)),
        `seed ${seed}`,
      ).toBe(false);
    }
    expect(asked).toBeGreaterThan(0);
  });
});

describe("the goal of a lookup in a world that emptied the person's records", () => {
  it("names the person's own details, never another's records", async () => {
    // Reproduction: saas-admin's person asked to find the workspace of another admin's email,
    // then gave their own, and the row was graded a miss.
    for (const [file, tool, param] of [
      ["saas-admin", "find_workspace", "admin_email"],
      ["utility-energy", "find_account_by_address", "postcode"],
    ] as const) {
      const agent = await Agent.load(`test/fixtures/specs/${file}.json`);
      for (let seed = 0; seed < 6; seed++) {
        const world = createWorld({
          spec: agent,
          situation: situationOf(agent, { tool, world: "empty_account" }, seed),
          seed,
        });
        const goal = goalOf(world, new Rng(seed, "goal"));
        const own = personDetail(world.person, param);
        expect(own, `${file} seed ${seed}`).toBeDefined();
        expect(goal.arguments[param], `${file} seed ${seed}`).toBe(own);
      }
    }
  });
});

describe("a person asking to be handed over", () => {
  const agent = Agent.from({
    name: "hand-offs",
    system_prompt: "You help customers.",
    policy: [],
    tools: [
      mcpTool("get_account", "Get an account.", { account_id: { type: "string" } }),
      mcpTool(
        "escalate_to_account_manager",
        "Bring in the customer's account manager.",
        {
          reason: { type: "string", enum: ["complaint", "refund_or_credit"] },
          urgency: { type: "string", enum: ["normal", "same_day"] },
        },
        ["reason", "urgency"],
      ),
      mcpTool("front_desk_handoff", "Pass the conversation to the front desk.", {
        topic: { type: "string", enum: ["billing_dispute", "other"] },
      }),
      mcpTool("transfer_to_human_agents", "Transfer to a human agent.", {
        summary: { type: "string" },
      }),
    ],
  });
  const said = (text: string) => text.replace(/[\uE000\uE001]/g, "");
  const asked = (tool: string, args: Record<string, unknown>) => {
    const world = createWorld({ spec: agent, situation: situationOf(agent, { tool }) });
    return said(openingRequest(world, { tool, arguments: args, text: "" }));
  };

  it("names whom as people do, the topic after 'about' and how urgent as 'it's'", () => {
    expect(
      asked("escalate_to_account_manager", { reason: "refund_or_credit", urgency: "same_day" }),
    ).toBe("talk to an account manager about refund or credit, it's same day");
    expect(asked("front_desk_handoff", { topic: "billing_dispute" })).toBe(
      "talk to the front desk about billing dispute",
    );
    expect(asked("transfer_to_human_agents", {})).toBe("talk to a human");
  });
});

describe("a person asking for a listing", () => {
  const agent = Agent.from({
    name: "listings",
    system_prompt: "You help guests.",
    policy: [],
    tools: [
      mcpTool(
        "list_properties",
        "List the hotel's properties, optionally filtered by city.",
        { city: { type: "string" } },
        [],
      ),
      mcpTool(
        "list_bookings",
        "List a guest's bookings, optionally by the guest's email.",
        { guest_id: { type: "string" }, email: { type: "string", format: "email" } },
        ["guest_id"],
      ),
    ],
  });
  const said = (text: string) => text.replace(/[\uE000\uE001]/g, "");

  it("says what narrows it, where the agent need not ask, and never who they are unasked", () => {
    const world = createWorld({
      spec: agent,
      situation: situationOf(agent, { tool: "list_properties" }),
    });
    expect(
      said(
        openingRequest(world, { tool: "list_properties", arguments: { city: "Lyon" }, text: "" }),
      ),
    ).toBe("see the properties, with city Lyon");
    const guest = world.person.ids.guest_id as string;
    expect(
      said(
        openingRequest(world, {
          tool: "list_bookings",
          arguments: { guest_id: guest, email: world.person.email },
          text: "",
        }),
      ),
    ).not.toContain("@");
  });
});

describe("a person naming themselves by their id", () => {
  const agent = Agent.from({
    name: "ids",
    system_prompt: "You help guests.",
    policy: [],
    tools: [
      mcpTool("get_guest", "Get a guest's profile.", { guest_id: { type: "string" } }),
      mcpTool("redeem_points", "Redeem loyalty points on a reservation.", {
        guest_id: { type: "string" },
        reservation_id: { type: "string" },
      }),
      mcpTool("add_breakfast", "Add breakfast to a reservation, paid with a saved card.", {
        reservation_id: { type: "string" },
        card_id: { type: "string" },
      }),
    ],
  });
  const said = (text: string) => text.replace(/[\uE000\uE001]/g, "");

  it("says it as who they are ('with guest id …'), never as a record of theirs ('for my guest …')", () => {
    const world = createWorld({
      spec: agent,
      situation: situationOf(agent, { tool: "redeem_points" }),
    });
    const guest = world.state.person.customer_id;
    const reservation = world.person.ids.reservation_id as string;
    expect(
      said(
        openingRequest(world, {
          tool: "redeem_points",
          arguments: { guest_id: guest, reservation_id: reservation },
          text: "",
        }),
      ),
    ).toBe(`redeem the points of my reservation ${reservation}, with guest id ${guest}`);
    expect(
      said(openingRequest(world, { tool: "get_guest", arguments: { guest_id: guest }, text: "" })),
    ).toBe(`check my details, with guest id ${guest}`);
  });

  it("says what a payment is made with as used ('using my card …'), not as what the request is for", () => {
    const world = createWorld({
      spec: agent,
      situation: situationOf(agent, { tool: "add_breakfast" }),
    });
    const reservation = world.person.ids.reservation_id as string;
    const card = world.person.ids.card_id as string;
    expect(
      said(
        openingRequest(world, {
          tool: "add_breakfast",
          arguments: { reservation_id: reservation, card_id: card },
          text: "",
        }),
      ),
    ).toBe(`add the breakfast of my reservation ${reservation} using my card ${card}`);
  });
});
