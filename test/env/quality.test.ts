import { describe, expect, it } from "vitest";
import { Agent } from "../../env/agent.ts";
import { QualityTally } from "../../env/quality.ts";
import { simulate } from "../../env/simulate.ts";
import type { ChatMessage, Row } from "../../spec/index.ts";

const RETAIL = "examples/retail-orders.json";

const call = (id: string): ChatMessage => ({
  role: "assistant",
  content: null,
  tool_calls: [
    { id, type: "function", function: { name: "get_order", arguments: '{"order_id":"W0000001"}' } },
  ],
});
const answer = (id: string, content: string): ChatMessage => ({
  role: "tool",
  tool_call_id: id,
  name: "get_order",
  content,
});
const FOUND = '{"order_id":"W0000001","status":"delivered"}';
const FAILED = '{"error":"server_error","message":"Internal server error","retryable":true}';
const REFUSED = '{"error":"permission_denied","message":"You may not read this order"}';

/** A row of the retail example whose conversation, after its system prompt, is `messages`. */
async function rowWith(messages: ChatMessage[]): Promise<Row> {
  const [row] = await (await simulate(RETAIL, { rows: 1, seed: 3 })).rows();
  const base = row as Row;
  return {
    ...base,
    messages: [
      base.messages[0] as ChatMessage,
      { role: "user", content: "Where is my order W0000001?" },
      ...messages,
    ],
    episode: { ...base.episode, history_turns: 0 },
  };
}

describe("the loops figure", () => {
  it("counts the agent making the same call three times", async () => {
    const tally = new QualityTally(await Agent.load(RETAIL));
    const row = await rowWith([
      call("a"),
      answer("a", FOUND),
      call("b"),
      answer("b", FOUND),
      call("c"),
      answer("c", FOUND),
    ]);
    expect(tally.facts(row).loops).toBe(true);
  });

  it("does not count retries of a call the world answered with a retryable error, but counts a refusal repeated", async () => {
    const tally = new QualityTally(await Agent.load(RETAIL));
    const row = await rowWith([
      call("a"),
      answer("a", FAILED),
      call("b"),
      answer("b", FAILED),
      call("c"),
      answer("c", FOUND),
    ]);
    expect(tally.facts(row).loops).toBe(false);
    const refused = await rowWith([
      call("a"),
      answer("a", REFUSED),
      call("b"),
      answer("b", REFUSED),
      call("c"),
      answer("c", REFUSED),
    ]);
    expect(tally.facts(refused).loops).toBe(true);
  });

  it("does not count a read made again after an answer that came back partial or cut off", async () => {
    const tally = new QualityTally(await Agent.load(RETAIL));
    const partial =
      '{"order_id":"W0000001","warnings":["partial result: status could not be loaded"]}';
    for (const spoiled of [partial, FOUND.slice(0, 20)]) {
      const row = await rowWith([
        call("a"),
        answer("a", spoiled),
        call("b"),
        answer("b", FOUND),
        call("c"),
        answer("c", FOUND),
      ]);
      expect(tally.facts(row).loops, spoiled).toBe(false);
    }
  });
});

describe("the empty-lookups figure", () => {
  it("counts a read that found nothing, but not one after a write of the same kind of record (a list after a removal)", async () => {
    const tally = new QualityTally(await Agent.load(RETAIL));
    const honest = (row: Row): Row => ({
      ...row,
      situation: { ...row.situation, axes: { ...row.situation.axes, world: "normal" } },
      persona: { ...row.persona, misstated: [] },
    });
    const missing = '{"error":"not_found","message":"No order W0000001"}';
    const cancel: ChatMessage = {
      role: "assistant",
      content: null,
      tool_calls: [
        {
          id: "w",
          type: "function",
          function: {
            name: "cancel_order",
            arguments: '{"order_id":"W0000001","reason":"ordered_by_mistake"}',
          },
        },
      ],
    };
    const cancelled: ChatMessage = {
      role: "tool",
      tool_call_id: "w",
      name: "cancel_order",
      content: '{"order_id":"W0000001","status":"cancelled"}',
    };
    const alone = tally.facts(honest(await rowWith([call("a"), answer("a", missing)])));
    expect([alone.lookups, alone.empty]).toEqual([1, 1]);
    const after = tally.facts(
      honest(await rowWith([cancel, cancelled, call("a"), answer("a", missing)])),
    );
    expect([after.lookups, after.empty]).toEqual([0, 0]);
  });
});

describe("the confirmed-writes figure", () => {
  it("leaves out a write slipped through unconfirmed, and its retry after a retryable error", async () => {
    const tally = new QualityTally(await Agent.load(RETAIL));
    const cancel = (id: string): ChatMessage => ({
      role: "assistant",
      content: null,
      tool_calls: [
        {
          id,
          type: "function",
          function: {
            name: "cancel_order",
            arguments: '{"order_id":"W0000001","reason":"ordered_by_mistake"}',
          },
        },
      ],
    });
    const done = (id: string, content: string): ChatMessage => ({
      role: "tool",
      tool_call_id: id,
      name: "cancel_order",
      content,
    });
    const row = await rowWith([
      cancel("a"),
      done("a", FAILED),
      cancel("b"),
      done("b", '{"order_id":"W0000001","status":"cancelled"}'),
    ]);
    const slipped = {
      ...row,
      episode: {
        ...row.episode,
        slips: [
          {
            kind: "skipped_confirmation" as const,
            message: 2,
            detail: "called cancel_order without the person's yes",
          },
        ],
      },
    };
    expect(tally.facts(row).writes).toBe(2);
    expect(tally.facts(slipped).writes).toBe(0);
  });

  it("counts a write as confirmed after a yes to the read-back, not after a no that opens with a filler", async () => {
    const tally = new QualityTally(await Agent.load(RETAIL));
    const afterAnswer = async (answer: string) =>
      tally.facts(
        await rowWith([
          { role: "assistant", content: "I'll cancel order W0000001. Shall I go ahead? (yes/no)" },
          { role: "user", content: answer },
          {
            role: "assistant",
            content: null,
            tool_calls: [
              {
                id: "c",
                type: "function",
                function: {
                  name: "cancel_order",
                  arguments: '{"order_id":"W0000001","reason":"ordered_by_mistake"}',
                },
              },
            ],
          },
          {
            role: "tool",
            tool_call_id: "c",
            name: "cancel_order",
            content: '{"order_id":"W0000001","status":"cancelled"}',
          },
        ]),
      );
    expect(await afterAnswer("Yes, go ahead.")).toMatchObject({ writes: 1, confirmed: 1 });
    expect(await afterAnswer("Okay, no.")).toMatchObject({ writes: 1, confirmed: 0 });
    expect(await afterAnswer("No, don't, okay?")).toMatchObject({ writes: 1, confirmed: 0 });
  });
});

describe("the refused-calls figure", () => {
  const MALFORMED =
    '{"error":"invalid_arguments","message":"The arguments to get_order were refused","problems":["missing required argument \\"order_id\\""]}';
  const PLACEHOLDER =
    '{"error":"placeholder_argument","message":"\\"order_id\\" looks like a placeholder","argument":"order_id"}';

  it("counts calls the world refused as malformed, not calls it answered with another error", async () => {
    const tally = new QualityTally(await Agent.load(RETAIL));
    const row = await rowWith([
      call("a"),
      answer("a", MALFORMED),
      call("b"),
      answer("b", PLACEHOLDER),
      call("c"),
      answer("c", FAILED),
      call("d"),
      answer("d", FOUND),
    ]);
    expect([tally.facts(row).refused, tally.facts(row).calls]).toEqual([2, 4]);
    tally.add(row);
    expect(tally.result().refused_calls).toEqual({ count: 2, of: 4, fraction: 0.5 });
  });

  it("counts a slip's call too: a slip is a choice, never a malformed call", async () => {
    const tally = new QualityTally(await Agent.load(RETAIL));
    const row = await rowWith([call("a"), answer("a", MALFORMED)]);
    const slipped = {
      ...row,
      episode: {
        ...row.episode,
        slips: [{ kind: "early_handoff" as const, message: 2, detail: "handed off before trying" }],
      },
    };
    expect(tally.facts(row).refused).toBe(1);
    expect(tally.facts(slipped).refused).toBe(1);
  });
});

describe("the distinct-openings figure", () => {
  it("tells openings apart within blocks of 500 rows, so a long run is held to what a short one is", async () => {
    const tally = new QualityTally(await Agent.load(RETAIL));
    const base = tally.facts(await rowWith([]));
    // 1,500 rows with 300 ways to open, in turn: every block of 500 holds all 300.
    for (let i = 0; i < 1500; i++) tally.addFacts({ ...base, frame: `frame ${i % 300}` });
    expect(tally.result().distinct_openings.fraction).toBeCloseTo(900 / 1500);
    // The rows of an unfinished block count theirs too.
    for (let i = 0; i < 100; i++) tally.addFacts({ ...base, frame: `frame ${i % 50}` });
    expect(tally.result().distinct_openings.fraction).toBeCloseTo(950 / 1600);
  });
});
