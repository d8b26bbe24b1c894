import { readdirSync, readFileSync } from "node:fs";
import { basename } from "node:path";
import { describe, expect, it } from "vitest";
import { Agent } from "../../../env/agent.ts";
import { Episode } from "../../../env/episode.ts";
import { simulatorChecks } from "../../../env/grade/simulator.ts";
import { samplePersona } from "../../../env/people/persona.ts";
import { behaviourOf } from "../../../env/people/stances.ts";
import { isSentence } from "../../../env/quality.ts";
import { OfflineAgent } from "../../../env/roles/offline-agent.ts";
import { OfflineUser, offlineUser } from "../../../env/roles/offline-user.ts";
import { OfflineWriter } from "../../../env/roles/offline-writer.ts";
import type { SituationWriter, UserSimulator } from "../../../env/roles/types.ts";
import { playEpisode } from "../../../env/rollout.ts";
import { simulate } from "../../../env/simulate.ts";
import { agentWrites } from "../../../env/text/agent-written.ts";
import { awaitsGoAhead } from "../../../env/text/phrases.ts";
import { intentOf, needsConfirmation } from "../../../env/text/reading.ts";
import { spokenName } from "../../../env/text/slots.ts";
import { snake } from "../../../env/util/names.ts";
import { createWorld } from "../../../env/world/index.ts";
import { WorldModel } from "../../../env/world/model.ts";
import grade from "../../../examples/grader.ts";
import type { AgentSpec, ChatMessage, Coordinate, Quality, Row } from "../../../spec/index.ts";
import { situationOf } from "../../fixtures/situations.ts";

/** The specs written apart from the examples (DESIGN §16), whose runs the quality table measures. */
const SPECS = "test/fixtures/specs/";
/** Every spec of the corpus: the examples and the fixture specs. */
const CORPUS = [
  ...readdirSync("examples")
    .filter((f) => f.endsWith(".json"))
    .map((f) => `examples/${f}`),
  ...readdirSync(SPECS)
    .filter((f) => f.endsWith(".json"))
    .map((f) => `${SPECS}${f}`),
].sort();
const RETAIL = "examples/retail-orders.json";
const FINANCE = "examples/personal-finance.json";
const HELPDESK = "examples/it-helpdesk.json";
/** Rows simulated per corpus spec, shared by every check that reads a run (≥ 300, ≥ 500 for openings). */
const ROWS = 500;
const HEAVY = 150_000;

const agents = new Map<string, Promise<Agent>>();
const agentOf = (path: string): Promise<Agent> => {
  let agent = agents.get(path);
  if (!agent) {
    agent = Agent.load(path);
    agents.set(path, agent);
  }
  return agent;
};

/** What a run yields for the checks: its rows, and its own measures of them. */
interface Run {
  rows: Row[];
  quality: Quality | null;
  warnings: string[];
}

const runs = new Map<string, Promise<Run>>();
/**
 * One offline run of a spec, simulated once per file and shared between tests: the roles' checks
 * and the quality table read the same rows, so the corpus is simulated once.
 */
const runOf = (path: string, slipRate?: number, rows = ROWS): Promise<Run> => {
  const key = `${path} ${slipRate ?? "default"} ${rows}`;
  let run = runs.get(key);
  if (!run) {
    run = simulate(path, { rows, ...(slipRate === undefined ? {} : { slipRate }) }).then(
      async (data) => ({ rows: await data.rows(), quality: data.quality, warnings: data.warnings }),
    );
    runs.set(key, run);
  }
  return run;
};
/** The rows of one offline run of a spec (see {@link runOf}). */
const rowsOf = async (path: string, slipRate?: number, rows = ROWS): Promise<Row[]> =>
  (await runOf(path, slipRate, rows)).rows;

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

/** The first message of the conversation proper (after any earlier contact). */
const startOf = (row: Row) => 1 + row.episode.history_turns;

/** The index of the person's last message before message `i` (in the conversation proper), or -1. */
const lastUserBefore = (row: Row, i: number): number => {
  for (let j = i - 1; j >= startOf(row); j--) if (row.messages[j]?.role === "user") return j;
  return -1;
};

/**
 * Whether a deliberate slip accounts for the agent's message `i`: recorded on it, or on an earlier
 * message since the person last spoke (the same slipped call made again after a timeout).
 */
const slipCovers = (row: Row, i: number): boolean => {
  const since = lastUserBefore(row, i);
  return row.episode.slips.some((s) => s.message > since && s.message <= i);
};

/** A value said as a whole token: "DQHVB1" is not said inside "DQHVB10". */
const saysValue = (text: string, value: string): boolean =>
  new RegExp(`(?<![A-Za-z0-9])${value.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?![A-Za-z0-9])`).test(
    text,
  );

const summary = <T>(cases: T[]) => ({ count: cases.length, first: cases.slice(0, 5) });
const none = { count: 0, first: [] };

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

  it(
    "never puts a sentence into an identifier field, except in a recorded slip",
    async () => {
      const DETAIL = /(_id|_number|_code|email|phone|name)$/;
      const cases: string[] = [];
      let checked = 0;
      for (const path of CORPUS) {
        const rows = await rowsOf(path);
        expect(rows.length).toBeGreaterThanOrEqual(300);
        for (const row of rows) {
          row.messages.forEach((message, i) => {
            if (message.role !== "assistant" || slipCovers(row, i)) return;
            for (const c of message.tool_calls ?? []) {
              // Fields nested in objects (a flight's number, a medication's rx number) count too.
              const visit = (value: unknown, field: string | null): void => {
                if (Array.isArray(value)) for (const v of value) visit(v, field);
                else if (value !== null && typeof value === "object")
                  for (const [k, v] of Object.entries(value)) visit(v, k);
                else if (typeof value === "string" && field && DETAIL.test(snake(field))) {
                  checked++;
                  if (isSentence(value))
                    cases.push(
                      `${path} ${row.task_id} message ${i}: ${c.function.name}.${field} = ${JSON.stringify(value)}`,
                    );
                }
              };
              visit(JSON.parse(c.function.arguments), null);
            }
          });
        }
      }
      expect(checked).toBeGreaterThan(1000);
      expect(summary(cases)).toEqual(none);
    },
    HEAVY,
  );

  it(
    "reads every detail of a write back and waits for a yes before it",
    async () => {
      const YES = /\b(yes|yeah|yep|sure|ok(ay)?|go ahead|do it|please do|correct)\b/i;
      const NO = /^\W*(no|nope|nah|don'?t|wait|stop)\b/i;
      const cases: string[] = [];
      let writes = 0;
      let refusals = 0;
      for (const path of CORPUS) {
        const agent = await agentOf(path);
        const model = WorldModel.of(agent);
        for (const row of await rowsOf(path)) {
          row.messages.forEach((message, i) => {
            if (message.role !== "assistant" || i < startOf(row)) return;
            for (const c of message.tool_calls ?? []) {
              const tool = model.tools.get(c.function.name);
              if (!tool || !needsConfirmation(agent, tool) || slipCovers(row, i)) continue;
              writes++;
              const where = `${path} ${row.task_id} message ${i} ${c.function.name}`;
              const answer = lastUserBefore(row, i);
              const reply = row.messages[answer];
              const readBack = row.messages[answer - 1];
              const text = readBack?.role === "assistant" ? (readBack.content ?? "") : "";
              if (reply?.role !== "user" || !YES.test(reply.content) || NO.test(reply.content)) {
                cases.push(`${where}: the person's last word was not a yes`);
                continue;
              }
              if (!awaitsGoAhead(text)) {
                cases.push(
                  `${where}: the yes did not answer a read-back (${JSON.stringify(text)})`,
                );
                continue;
              }
              // The agent's own free text (a summary, a description it writes) is not the person's to confirm.
              const values = Object.entries(JSON.parse(c.function.arguments) as object)
                .filter(([param]) => !agentWrites(tool, param))
                .flatMap(([param, value]) => strings(value).map((v) => [param, v] as const))
                .filter(([, v]) => v.length >= 3);
              for (const [param, value] of values)
                if (!text.includes(value))
                  cases.push(`${where}: ${param} ${JSON.stringify(value)} was not read back`);
            }
          });
          // Told no, the agent does not go on to make the change.
          row.messages.forEach((message, i) => {
            const asked = row.messages[i - 1];
            if (message.role !== "user" || i <= startOf(row) || asked?.role !== "assistant") return;
            if (!awaitsGoAhead(asked.content ?? "") || !NO.test(message.content)) return;
            refusals++;
            const next = row.messages[i + 1];
            for (const c of next?.role === "assistant" ? (next.tool_calls ?? []) : []) {
              const tool = model.tools.get(c.function.name);
              if (tool && needsConfirmation(agent, tool))
                cases.push(`${path} ${row.task_id}: called ${c.function.name} right after a no`);
            }
          });
        }
      }
      expect(writes).toBeGreaterThan(500);
      expect(refusals).toBeGreaterThan(0);
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
  });

  it(
    "slips only when allowed, and every slip is recorded and found",
    async () => {
      for (const path of [RETAIL, FINANCE, HELPDESK])
        for (const row of await rowsOf(path, 0, 200))
          expect(row.episode.slips, `${path} ${row.task_id}`).toEqual([]);

      const FINDING = {
        invented_identifier: "unknown_identifier",
        claimed_unperformed_action: "unbacked_action_claim",
        claimed_success_after_error: "success_after_failure",
      } as const;
      const cases: string[] = [];
      const kinds = new Set<string>();
      for (const path of CORPUS) {
        const agent = await agentOf(path);
        const model = WorldModel.of(agent);
        for (const row of await rowsOf(path)) {
          for (const slip of row.episode.slips) {
            kinds.add(slip.kind);
            const where = `${path} ${row.task_id} ${slip.kind} (${slip.detail}) at ${slip.message}`;
            const message = row.messages[slip.message];
            if (message?.role !== "assistant") {
              cases.push(`${where}: not an agent message`);
              continue;
            }
            const calls = message.tool_calls ?? [];
            if (slip.kind === "early_handoff") {
              const handedOff =
                calls.some((c) => model.tools.get(c.function.name)?.kind === "handoff") ||
                /colleague/i.test(message.content ?? "");
              if (!handedOff) cases.push(`${where}: no hand-off there`);
            } else if (slip.kind === "skipped_confirmation") {
              const write = calls.some((c) => {
                const tool = model.tools.get(c.function.name);
                return tool !== undefined && needsConfirmation(agent, tool);
              });
              const asked = awaitsGoAhead(
                (row.messages[lastUserBefore(row, slip.message) - 1] as { content?: string | null })
                  ?.content ?? "",
              );
              if (!write || asked) cases.push(`${where}: no unconfirmed write there`);
            } else {
              const check = FINDING[slip.kind];
              if (
                !row.conduct.some((f) => f.check === check && f.evidence.message === slip.message)
              )
                cases.push(
                  `${where}: no ${check} finding (conduct: ${JSON.stringify(row.conduct)})`,
                );
            }
          }
        }
      }
      expect(kinds.size).toBeGreaterThanOrEqual(4);
      expect(summary(cases)).toEqual(none);
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

  it(
    "never sends the same message twice",
    async () => {
      const cases: string[] = [];
      for (const path of [RETAIL, FINANCE, "test/fixtures/specs/hotel.json"]) {
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

  it(
    "paraphrases a rule when pressing, never quoting it",
    async () => {
      const words = (text: string) =>
        text
          .toLowerCase()
          .replace(/[\uE000\uE001]/g, "")
          .split(/[^a-z0-9']+/)
          .filter(Boolean);
      const cases: string[] = [];
      let pressing = 0;
      for (const path of CORPUS) {
        const agent = await agentOf(path);
        const runs = new Set<string>();
        for (const rule of agent.policy.rules) {
          const w = words(rule.text);
          for (let i = 0; i + 8 <= w.length; i++) runs.add(w.slice(i, i + 8).join(" "));
        }
        for (const row of await rowsOf(path)) {
          const stance = agent.axes.stance.find((s) => s.name === row.situation.axes.stance);
          if (!stance || behaviourOf(stance) !== "pressuring") continue;
          pressing++;
          for (const message of row.messages) {
            if (message.role !== "user") continue;
            const w = words(message.content);
            for (let i = 0; i + 8 <= w.length; i++) {
              const run = w.slice(i, i + 8).join(" ");
              if (runs.has(run)) {
                cases.push(`${path} ${row.task_id}: "${run}"`);
                break;
              }
            }
          }
        }
      }
      expect(pressing).toBeGreaterThan(100);
      expect(summary(cases)).toEqual(none);
    },
    HEAVY,
  );

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

describe("the offline writer", () => {
  it(
    "varies its openings and never puts a filler code where a name is expected",
    async () => {
      const frame = (text: string) =>
        text
          .toLowerCase()
          .replace(/\S*\d\S*/g, "#")
          .split(/[^a-z#']+/)
          .filter(Boolean)
          .slice(0, 5)
          .join(" ");
      const cases: string[] = [];
      for (const path of CORPUS) {
        const rows = await rowsOf(path);
        expect(rows.length).toBeGreaterThanOrEqual(500);
        const frames = new Set<string>();
        for (const row of rows) {
          const first = row.messages[startOf(row)];
          if (first?.role === "user") frames.add(frame(first.content));
          for (const [param, value] of Object.entries(row.episode.goal.arguments))
            if (/_name$/.test(snake(param)) && typeof value === "string")
              if (/^[A-Z][a-z]+-\d{3}$/.test(value))
                cases.push(`${path} ${row.task_id}: ${param} = ${value}`);
        }
        if (frames.size < rows.length * 0.25)
          cases.push(`${path}: ${frames.size} opening frames in ${rows.length} rows`);
      }
      expect(summary(cases)).toEqual(none);
    },
    HEAVY,
  );
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

describe("the run's quality on the corpus", () => {
  /** Ids a utility tool's answer would carry had it made a record. */
  function createdIdIn(content: string, idFields: ReadonlySet<string>): string | null {
    let body: unknown;
    try {
      body = JSON.parse(content);
    } catch {
      return null;
    }
    if (body === null || typeof body !== "object") return null;
    const key = Object.keys(body).find((k) => idFields.has(k) || k === "created_at");
    return key ?? null;
  }

  it("the quality table: every figure in bounds on every corpus spec, with no warning", async () => {
    const table: string[] = [];
    const problems: string[] = [];
    const pct = (f: { fraction: number | null }) =>
      f.fraction === null ? "   —  " : `${(f.fraction * 100).toFixed(1).padStart(5)}%`;
    table.push(
      [
        "spec".padEnd(17),
        "exercised",
        "loops ",
        "empty ",
        "sentences",
        "confirmed",
        "openings",
        "reached",
        "utility",
        "never called",
      ].join(" | "),
    );
    for (const path of CORPUS.filter((p) => p.startsWith(SPECS))) {
      const name = basename(path, ".json");
      const agent = await agentOf(path);
      const { rows, quality: q, warnings } = await runOf(path);
      expect(q, name).not.toBeNull();
      if (!q) continue;
      const model = WorldModel.of(agent);
      const utilities = new Set(agent.tools.filter((t) => t.role === "utility").map((t) => t.name));
      const idFields = new Set([...model.entities.values()].map((e) => e.idField));
      let utilityCalls = 0;
      for (const row of rows) {
        const names = new Map<string, string>();
        for (const message of row.messages) {
          if (message.role === "assistant")
            for (const call of message.tool_calls ?? []) names.set(call.id, call.function.name);
          if (message.role !== "tool") continue;
          const tool = names.get(message.tool_call_id) ?? message.name ?? "";
          if (!utilities.has(tool)) continue;
          utilityCalls++;
          const created = createdIdIn(message.content, idFields);
          if (created)
            problems.push(
              `${name} ${row.id}: ${tool} answered with ${created}: ${message.content}`,
            );
        }
      }
      table.push(
        [
          name.padEnd(17),
          pct(q.situation_tool_exercised).padEnd(9),
          pct(q.loops),
          pct(q.empty_lookups),
          pct(q.sentence_arguments).padEnd(9),
          pct(q.confirmed_writes).padEnd(9),
          pct(q.distinct_openings).padEnd(8),
          pct(q.goal_reached).padEnd(7),
          String(utilityCalls).padEnd(7),
          `${q.tools_never_called.join(", ") || "—"}  (${rows.length} rows)`,
        ].join(" | "),
      );
      const check = (ok: boolean, what: string) => {
        if (!ok) problems.push(`${name}: ${what}`);
      };
      const f = (x: { count: number; of: number; fraction: number | null }) =>
        `${x.count}/${x.of} = ${x.fraction}`;
      check(rows.length === 500, `${rows.length} rows`);
      check(
        (q.situation_tool_exercised.fraction ?? 0) >= 0.95,
        `situation_tool_exercised ${f(q.situation_tool_exercised)} < 0.95`,
      );
      check((q.loops.fraction ?? 0) <= 0.01, `loops ${f(q.loops)} > 0.01`);
      if (q.empty_lookups.of > 0)
        check(
          (q.empty_lookups.fraction ?? 0) <= 0.05,
          `empty_lookups ${f(q.empty_lookups)} > 0.05`,
        );
      check(
        (q.sentence_arguments.fraction ?? 0) <= 0.005,
        `sentence_arguments ${f(q.sentence_arguments)} > 0.005`,
      );
      if (q.confirmed_writes.of >= 20)
        check(
          (q.confirmed_writes.fraction ?? 0) >= 0.95,
          `confirmed_writes ${f(q.confirmed_writes)} < 0.95`,
        );
      check(
        (q.distinct_openings.fraction ?? 0) >= 0.25,
        `distinct_openings ${f(q.distinct_openings)} < 0.25`,
      );
      check(
        q.tools_never_called.length === 0,
        `tools never called: ${q.tools_never_called.join(", ")}`,
      );
      for (const warning of warnings.filter((w) => w.startsWith("quality:")))
        problems.push(`${name}: warning ${warning}`);
    }
    console.log(`\n${table.join("\n")}\n`);
    expect(problems).toEqual([]);
  });
});

/** Every string inside a value, through lists and objects. */
function strings(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(strings);
  if (value !== null && typeof value === "object") return Object.values(value).flatMap(strings);
  return typeof value === "string" ? [value] : [];
}
