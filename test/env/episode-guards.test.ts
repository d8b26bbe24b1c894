import { describe, expect, it } from "vitest";
import { Agent } from "../../env/agent.ts";
import {
  DEFAULT_MAX_MESSAGE_BYTES,
  DEFAULT_MAX_TOOL_CALLS,
  Episode,
  EpisodeError,
} from "../../env/episode.ts";
import { simulate } from "../../env/simulate.ts";
import { financeSpec, helpdeskSpec, referenceSpec } from "../fixtures/reference-spec.ts";
import { situationOf, withDefaultAxes } from "../fixtures/situations.ts";
import { type Call, calls, say, started } from "../support/episodes.ts";
import { SLOW_BEFORE_THE_FIX } from "../support/hostile.ts";

// What one episode refuses and what it survives: hostile messages, limits, overlapping calls, big worlds.

const retail = Agent.from(withDefaultAxes(referenceSpec));
const finance = Agent.from(financeSpec);

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

describe("reward after spoiled answers", () => {
  for (const condition of ["malformed_result", "partial_result"] as const) {
    it(`${condition}: reward() grades instead of throwing, and a clean offline agent earns it`, async () => {
      const rows = await simulate(helpdeskSpec, {
        rows: 60,
        slipRate: 0,
        preferSuccess: false,
        seed: 5,
      });
      expect(rows.size).toBe(60);
      for (const tool of ["listTickets", "createTicket", "getTicket"]) {
        const situation = situationOf(helpdeskSpec, { tool, condition });
        const episode = new Episode({ spec: helpdeskSpec, situation });
        await episode.reset();
        const goal = episode.goal;
        const call = {
          role: "assistant" as const,
          content: null,
          tool_calls: [
            {
              id: "c1",
              type: "function" as const,
              function: { name: goal.tool, arguments: JSON.stringify(goal.arguments) },
            },
          ],
        };
        await episode.step(call);
        expect(() => episode.reward()).not.toThrow();
        if (tool === "createTicket")
          expect(episode.reward().checks[0]?.passed, `${tool} under ${condition}`).toBe(true);
      }
    });
  }
});
