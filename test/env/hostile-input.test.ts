import { describe, expect, it } from "vitest";
import { Agent } from "../../env/agent.ts";
import {
  DEFAULT_MAX_MESSAGE_BYTES,
  DEFAULT_MAX_TOOL_CALLS,
  Episode,
  EpisodeError,
} from "../../env/episode.ts";
import { EVIDENCE_CHARS, excerpt, FINDINGS_PER_CHECK } from "../../env/grade/evidence.ts";
import { simulatorChecks } from "../../env/grade/simulator.ts";
import { EMAIL, IdentifierReader } from "../../env/text/identifiers.ts";
import { argumentsIn, intentOf } from "../../env/text/reading.ts";
import { InputError, SpecError } from "../../env/util/errors.ts";
import { WorldModel } from "../../env/world/model.ts";
import { placeholderReason } from "../../env/world/placeholders.ts";
import { createWorld, World } from "../../env/world/world.ts";
import type { ChatMessage, WorldSnapshot } from "../../spec/index.ts";
import { financeSpec, helpdeskSpec, referenceSpec } from "../fixtures/reference-spec.ts";
import { situationOf, withDefaultAxes } from "../fixtures/situations.ts";

const retail = Agent.from(withDefaultAxes(referenceSpec));
const finance = Agent.from(financeSpec);
const helpdesk = Agent.from(helpdeskSpec);

type Call = [name: string, args: Record<string, unknown> | string, id: string];
const calls = (...list: Call[]) => ({
  role: "assistant" as const,
  content: null,
  tool_calls: list.map(([name, args, id]) => ({
    id,
    type: "function" as const,
    function: { name, arguments: typeof args === "string" ? args : JSON.stringify(args) },
  })),
});
const say = (content: string) => ({ role: "assistant" as const, content });

/** Order ids of the retail shape (W and 7 digits), all distinct. */
const orderIds = (n: number) => Array.from({ length: n }, (_, i) => `W${1_000_000 + i * 7}`);

/** A safety net only: each of these inputs took minutes before its fix and takes milliseconds after. */
const SLOW_BEFORE_THE_FIX = 30_000;

async function started(agent: Agent, axes = {}, options = {}) {
  const episode = new Episode({ spec: agent, situation: situationOf(agent, axes), ...options });
  await episode.reset();
  return episode;
}

describe("evidence stays bounded however many identifiers a message names", () => {
  it("an agent message with thousands of unknown ids: 20 findings and one counting the rest, each quoting a short excerpt", async () => {
    const episode = await started(retail, { tool: "get_order" }, { maxTurns: 1 });
    const earlier = JSON.stringify(episode.messages);
    const ids = orderIds(3000);
    const text = `Here are your orders. ${ids.join(" ")}. Anything else?`;
    await episode.step(say(text));
    const row = episode.row();
    const found = row.conduct.filter((f) => f.check === "unknown_identifier");
    expect(found).toHaveLength(FINDINGS_PER_CHECK + 1);
    const unsourced = ids.filter((id) => !earlier.includes(id)).length;
    expect(found.at(-1)?.detail).toMatch(
      new RegExp(`^${unsourced - FINDINGS_PER_CHECK} more unknown_identifier findings`),
    );
    for (const finding of found) {
      const { message, text: quoted, value } = finding.evidence;
      expect(row.messages[message]?.content).toBe(text);
      expect(quoted.length).toBeLessThanOrEqual(EVIDENCE_CHARS + 2);
      expect(quoted).toContain(value);
      expect(text).toContain(quoted.replace(/^…|…$/g, ""));
    }
    // Before, each finding carried the whole 27 KB message: 3,000 of them, 80 MB.
    expect(JSON.stringify(row.conduct).length).toBeLessThan(20_000);
  });

  it("a tool call with thousands of unknown ids in its arguments is capped the same way", async () => {
    const episode = await started(retail, { tool: "get_order" }, { maxTurns: 1 });
    const args = { order_id: "W1000000", note: orderIds(3000).slice(1).join(" ") };
    await episode.step(calls(["get_order", args, "c1"]));
    const found = episode.row().conduct.filter((f) => f.check === "unknown_identifier");
    expect(found).toHaveLength(FINDINGS_PER_CHECK + 1);
    for (const { evidence } of found) {
      expect(evidence.text.length).toBeLessThanOrEqual(EVIDENCE_CHARS + 2);
      expect(evidence.call?.arguments).toBe(evidence.text);
      expect(evidence.text).toContain(evidence.value);
    }
  });

  it("the simulator checks cap a person's unheld details the same way", async () => {
    const episode = await started(retail, { tool: "get_order" }, { maxTurns: 1 });
    await episode.step(say("Let me check."));
    const row = episode.row();
    const stated: ChatMessage = {
      role: "user",
      content: `My orders: ${orderIds(3000).join(", ")}`,
    };
    const findings = simulatorChecks(retail, { ...row, messages: [...row.messages, stated] });
    const unheld = findings.filter((f) => f.check === "stated_unheld_details");
    expect(unheld).toHaveLength(FINDINGS_PER_CHECK + 1);
    expect(unheld.every((f) => f.evidence.text.length <= EVIDENCE_CHARS + 2)).toBe(true);
    expect(unheld[0]?.evidence).toMatchObject({ message: row.messages.length, value: "W1000000" });
  });

  it("an excerpt is the sentence that holds the value, clipped with an ellipsis when it is long", () => {
    const text = "Hello there. Your order W1234567 is on its way! Anything else?";
    expect(excerpt(text, "W1234567")).toBe("Your order W1234567 is on its way!");
    const long = `${"x ".repeat(500)}W1234567${" y".repeat(500)}`;
    const quoted = excerpt(long, "W1234567");
    expect(quoted).toMatch(/^…x .*W1234567.* y…$/);
    expect(quoted.length).toBe(EVIDENCE_CHARS + 2);
  });

  it("the identifier reader gives each identifier where it first appears, in order", () => {
    const reader = new IdentifierReader(retail);
    const text = "W1000007 then ann@shop.example.com, W1000000 and again W1000007.";
    const found = reader.locate(text);
    expect(found.map((f) => f.value)).toEqual(["W1000007", "ann@shop.example.com", "W1000000"]);
    for (const { value, at } of found) expect(at).toBe(text.indexOf(value));
    expect(reader.read(text)).toEqual(found.map((f) => f.value));
  });
});

describe("regular expressions stay linear on hostile text", () => {
  it(
    'a value of "${" repeated is not a template slot, and is read in linear time',
    () => {
      expect(placeholderReason("address", "${".repeat(500_000))).toBeNull();
      expect(placeholderReason("order_id", `\${order_id}`)).toBe("it is a template slot");
      expect(placeholderReason("address", "<address>")).toBe("it is a template slot");
      expect(placeholderReason("name", "%NAME%")).toBe("it is a template slot");
    },
    SLOW_BEFORE_THE_FIX,
  );

  it(
    "EMAIL finds nothing in a long run of word characters, in linear time",
    () => {
      expect([..."a".repeat(1_000_000).matchAll(EMAIL)]).toEqual([]);
      const domain = `a@${"b".repeat(1_000_000)}`;
      expect([...domain.matchAll(EMAIL)]).toEqual([]);
      const labels = `a@${"a.".repeat(500_000)}!`;
      expect([...labels.matchAll(EMAIL)].map((m) => m[0])).toEqual(["a@a.a.a.a.a.a.a.a.a"]);
    },
    SLOW_BEFORE_THE_FIX,
  );

  it(
    "the offline roles' reading of an email argument is linear too",
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

  it(
    "the offline roles' reading skips quotations, and an unclosed quote mark stays linear",
    () => {
      const model = WorldModel.of(retail);
      expect(intentOf(model, `${"“".repeat(1_000_000)} cancel my order`)?.tool.name).toBe(
        "cancel_order",
      );
      expect(
        intentOf(model, 'the sign said "cancel anytime", but I want to check my order')?.tool.name,
      ).not.toBe("cancel_order");
    },
    SLOW_BEFORE_THE_FIX,
  );

  it("still finds the emails people in the example worlds have", () => {
    for (const agent of [retail, finance, helpdesk]) {
      const world = createWorld({ spec: agent, situation: situationOf(agent, {}) });
      const { email } = world.person;
      const reader = new IdentifierReader(agent);
      expect(reader.read(`Hi, it's ${email}.`)).toEqual([email]);
      expect(reader.read(`(${email.toUpperCase()})`)).toEqual([email.toUpperCase()]);
    }
    expect([..."x jane.doe+tag@mail.example.co.uk y".matchAll(EMAIL)].map((m) => m[0])).toEqual([
      "jane.doe+tag@mail.example.co.uk",
    ]);
  });
});

describe("reward after thousands of created records", () => {
  it(
    "grades in one pass over the records, not one pass per created id",
    async () => {
      const episode = await started(finance, { tool: "transfer_funds" });
      const [from, to] = episode.world.snapshot().collections.accounts as { account_id: string }[];
      for (let i = 0; i < 10_000; i++) {
        const [a, b] = i % 2 === 0 ? [from, to] : [to, from];
        episode.world.call("transfer_funds", {
          from_account_id: a?.account_id,
          to_account_id: b?.account_id,
          amount: 0.01,
        });
      }
      // 10,000 transfers and 20,000 ledger entries were created: minutes of splitting before.
      expect(episode.world.describe().records.transfers).toBeGreaterThanOrEqual(10_000);
      expect(episode.reward().checks[0]).toMatchObject({ name: "goal_state", passed: false });
    },
    SLOW_BEFORE_THE_FIX,
  );
});

describe("sampling settings", () => {
  const withSampling = (sampling: unknown) => ({ ...say("Let me check."), sampling });

  it("refuses settings nested too deep or too large, naming sampling, and the episode goes on", async () => {
    const episode = await started(retail, {}, { maxTurns: 2 });
    let deep: Record<string, unknown> = { a: 1 };
    for (let i = 0; i < 3000; i++) deep = { a: deep };
    await expect(episode.step(withSampling(deep))).rejects.toThrow(
      /sampling: expected settings nested at most 8 levels deep/,
    );
    await expect(episode.step(withSampling({ notes: "x".repeat(20_000) }))).rejects.toThrow(
      /sampling: expected at most 16384 bytes of JSON, got 20012/,
    );
    expect(episode.messages.filter((m) => m.role === "assistant")).toHaveLength(0);
    await episode.step(withSampling({ temperature: 0.7, a: { b: { c: { d: { e: { f: 1 } } } } } }));
    await episode.step(say("Anything else?"));
    expect(episode.row().messages.find((m) => m.role === "assistant")).toMatchObject({
      sampling: { temperature: 0.7 },
    });
  });
});

describe("episode limits on one assistant message", () => {
  it(`refuses more than ${DEFAULT_MAX_TOOL_CALLS} tool calls, naming tool_calls, and runs none of them`, async () => {
    const episode = await started(retail, { tool: "get_order" });
    const orderId = episode.world.person.ids.order_id as string;
    const many = Array.from(
      { length: DEFAULT_MAX_TOOL_CALLS + 1 },
      (_, i): Call => ["get_order", { order_id: orderId }, `c${i}`],
    );
    const before = episode.messages.length;
    await expect(episode.step(calls(...many))).rejects.toThrow(
      /tool_calls: expected at most 32 tool calls in one message \(the episode's maxToolCalls\), got 33/,
    );
    expect(episode.messages).toHaveLength(before);
    expect(episode.world.snapshot().calls).toEqual({});
    const answered = await episode.step(calls(...many.slice(0, DEFAULT_MAX_TOOL_CALLS)));
    expect(answered.observation.messages).toHaveLength(DEFAULT_MAX_TOOL_CALLS);
  });

  it("refuses a message larger than the byte limit, and both limits can be set", async () => {
    const episode = await started(retail);
    await expect(episode.step(say("x".repeat(DEFAULT_MAX_MESSAGE_BYTES)))).rejects.toThrow(
      /expected at most 262144 bytes as JSON \(the episode's maxMessageBytes\)/,
    );
    const tight = await started(retail, {}, { maxToolCalls: 1, maxMessageBytes: 200 });
    await expect(tight.step(say("é".repeat(100)))).rejects.toThrow(
      /expected at most 200 bytes as JSON/,
    );
    await expect(
      tight.step(calls(["get_order", {}, "c1"], ["get_order", {}, "c2"])),
    ).rejects.toThrow(/tool_calls: expected at most 1 tool calls/);
    expect(
      () => new Episode({ spec: retail, situation: situationOf(retail, {}), maxToolCalls: 0 }),
    ).toThrow(/maxToolCalls: expected a whole number ≥ 1, got 0/);
  });
});

describe("money", () => {
  it("refuses amounts with fractions of a cent, so transfers never make or lose money", () => {
    const world = createWorld({ spec: finance, situation: situationOf(finance, {}) });
    type Account = { account_id: string; current: number; available: number };
    const accounts = () => world.snapshot().collections.accounts as Account[];
    const cents = () =>
      accounts().reduce(
        (sum, a) => sum + Math.round(a.current * 100) + Math.round(a.available * 100),
        0,
      );
    const before = cents();
    const ids = accounts().map((a) => a.account_id);
    const refused = world.call("transfer_funds", {
      from_account_id: ids[0],
      to_account_id: ids[1],
      amount: 0.004,
    });
    expect(refused).toMatchObject({ ok: false, error: "invalid_amount" });
    expect(JSON.parse(refused.content)).toMatchObject({ argument: "amount", value: 0.004 });
    let moved = 0;
    for (let i = 0; i < 400; i++) {
      const amount = [0.005, 0.015, 0.01, 1.23, 0.004, 0.29][i % 6] as number;
      const answer = world.call("transfer_funds", {
        from_account_id: ids[i % ids.length],
        to_account_id: ids[(i + 1) % ids.length],
        amount,
      });
      if (answer.ok) moved++;
      else expect(answer.error).toBe("invalid_amount");
    }
    expect(moved).toBeGreaterThan(100);
    expect(cents()).toBe(before);
  });
});

describe("one step or reset at a time", () => {
  it("refuses a second step or a reset while a step runs, keeping the conversation whole", async () => {
    const episode = await started(retail, { stance: "cooperative" });
    const first = episode.step(say("Could you tell me your order id?"));
    const second = episode.step(say("Hello?"));
    const reset = episode.reset();
    await expect(second).rejects.toThrow(
      /a step is already running: await it before calling step\(\)/,
    );
    await expect(reset).rejects.toThrow(
      /a step is already running: await it before calling reset\(\)/,
    );
    const result = await first;
    expect(result.observation.turn).toBe(1);
    expect(episode.messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "user"]);
    const again = episode.reset();
    await expect(episode.step(say("Hi"))).rejects.toThrow(/a reset is already running/);
    expect((await again).observation.turn).toBe(0);
    expect((await episode.step(say("How can I help?"))).observation.turn).toBe(1);
  });
});

describe("hand-off", () => {
  it("answers the calls after a hand-off in the same message with a refusal, and runs none", async () => {
    const episode = await started(retail, { tool: "get_order" });
    const orderId = episode.world.person.ids.order_id as string;
    const status = () =>
      (episode.world.snapshot().collections.orders ?? []).find((o) => o.order_id === orderId)
        ?.status;
    const was = status();
    const result = await episode.step(
      calls(
        ["transfer_to_human", { summary: "wants a person" }, "a"],
        ["cancel_order", { order_id: orderId, reason: "other" }, "b"],
      ),
    );
    expect(result).toMatchObject({ done: true, observation: { ended_by: "handoff" } });
    const refused = result.observation.messages[1];
    expect(refused).toMatchObject({ role: "tool", tool_call_id: "b", name: "cancel_order" });
    expect(JSON.parse(refused?.content as string)).toMatchObject({
      error: "conversation_handed_off",
    });
    expect(status()).toBe(was);
    expect(episode.world.snapshot().calls).toEqual({ transfer_to_human: 1 });
  });
});

describe("World.restore refuses snapshots that do not hold together", () => {
  const situation = situationOf(retail, { tool: "get_order" });
  const fresh = (): WorldSnapshot =>
    JSON.parse(JSON.stringify(createWorld({ spec: retail, situation }).snapshot()));
  const refusal = (snapshot: unknown, s: unknown = situation) => {
    try {
      World.restore(retail, s as typeof situation, snapshot);
    } catch (error) {
      // A snapshot is input, not a spec: the error says which.
      expect(error).toBeInstanceOf(InputError);
      expect(error).not.toBeInstanceOf(SpecError);
      return (error as Error).message;
    }
    throw new Error("restored");
  };
  const orders = (s: WorldSnapshot) => s.collections.orders as Record<string, unknown>[];

  it("a missing situation is a clear error, not a TypeError", () => {
    expect(refusal(fresh(), null)).toMatch(/^situation is invalid/);
  });

  it("unknown collections, records without a string id, duplicate ids", () => {
    const renamed = fresh();
    renamed.collections.ordrs = renamed.collections.orders as [];
    delete renamed.collections.orders;
    expect(refusal(renamed)).toMatch(/collections\.ordrs: is not a collection of this spec/);
    expect(refusal(renamed)).toMatch(/collections\.orders: expected the collection/);

    const noId = fresh();
    delete orders(noId)[0]?.order_id;
    (orders(noId)[1] as Record<string, unknown>).order_id = 1264170;
    expect(refusal(noId)).toMatch(
      /collections\.orders\[0\]\.order_id: expected the record's id as a non-empty string, got none/,
    );
    expect(refusal(noId)).toMatch(/collections\.orders\[1\]\.order_id: .* got 1264170/);

    const twice = fresh();
    const first = orders(twice)[0] as Record<string, unknown>;
    orders(twice).push({ ...first, total: 1 });
    const last = orders(twice).length - 1;
    expect(refusal(twice)).toMatch(
      new RegExp(
        `collections\\.orders\\[${last}\\]\\.order_id: "${first.order_id}" is already the id of collections\\.orders\\[0\\]`,
      ),
    );
  });

  it("a world built with a seed of its own comes back with it", () => {
    const built = createWorld({ spec: retail, situation, seed: 1 });
    const restored = World.restore(retail, situation, built.snapshot());
    expect(restored.seed).toBe(1);
    expect(restored.snapshot()).toEqual(built.snapshot());
  });

  it("faults and call counts of tools the spec lacks", () => {
    const snapshot = fresh();
    snapshot.faults = [{ tool: "nope", kind: "timeout", at_call: 1, persistent: true, fired: [] }];
    snapshot.calls = { nope: 5, get_order: 1 };
    const message = refusal(snapshot);
    expect(message).toMatch(/faults\[0\]\.tool: "nope" is not a tool of this spec/);
    expect(message).toMatch(/calls\.nope: "nope" is not a tool of this spec/);
  });

  it("lists at most 20 problems and counts the rest", () => {
    const snapshot = fresh();
    snapshot.collections.orders = Array.from({ length: 30 }, () => ({ total: 1 }));
    const message = refusal(snapshot);
    expect(message.match(/✖/g)).toHaveLength(21);
    expect(message).toMatch(/✖ \(top level\): and 10 more problems$/);
  });
});

describe("tool-call ids, fail() and row()", () => {
  it("refuses an id repeated in a message or reused from an earlier one, naming it", async () => {
    const episode = await started(retail, { tool: "get_order" });
    const orderId = episode.world.person.ids.order_id as string;
    const get = (id: string): Call => ["get_order", { order_id: orderId }, id];
    await expect(episode.step(calls(get("c1"), get("c1")))).rejects.toThrow(
      /tool_calls\[1\]\.id: "c1" is already the id of tool_calls\[0\]/,
    );
    expect(episode.world.snapshot().calls).toEqual({});
    await episode.step(calls(get("c1")));
    const at = episode.messages.findIndex((m) => m.role === "assistant");
    await expect(episode.step(calls(get("c2"), get("c1")))).rejects.toThrow(
      new RegExp(`tool_calls\\[1\\]\\.id: "c1" is already the id of a tool call in message ${at}`),
    );
    expect((await episode.step(calls(get("c2")))).observation.messages).toHaveLength(1);
  });

  it("fail() after the end keeps the real ending; row() before the end is refused", async () => {
    const episode = await started(retail, { tool: "get_order" });
    expect(() => episode.row()).toThrow(EpisodeError);
    expect(() => episode.row()).toThrow(/the episode is not over/);
    expect(episode.goal.tool).toBe("get_order");
    await episode.step(calls(["transfer_to_human", { summary: "wants a person" }, "h"]));
    episode.fail(new Error("late"));
    expect(episode.row().episode).toMatchObject({ ended_by: "handoff", errors: [] });

    const broken = await started(retail);
    broken.fail(new Error("the agent model timed out"));
    expect(broken.row().episode).toMatchObject({
      ended_by: "error",
      errors: ["the agent model timed out"],
    });
  });
});
