import { describe, expect, it } from "vitest";
import {
  Dataset,
  InputError,
  lossMask,
  PASS_THRESHOLD,
  sftRow,
  trainingRows,
} from "../../env/index.ts";
import type { Row } from "../../spec/index.ts";
import { craftedRow, gradedRows } from "./rows.ts";

const SPECS = [
  "examples/retail-orders.json",
  "examples/personal-finance.json",
  "test/fixtures/specs/airline.json",
  "test/fixtures/specs/pharmacy.json",
];

/** Index of the first message after the system prompt and the history turns. */
const policyStart = (row: Row) => 1 + row.episode.history_turns;

describe("the loss mask on real conversations (offline runs of examples/ and test/fixtures/specs/)", () => {
  it.each(SPECS)("%s: true exactly on the policy's own agent turns", async (spec) => {
    const rows = await gradedRows(spec);
    // The examples replay earlier contact (history turns); every spec's rows call tools.
    if (spec.startsWith("examples/"))
      expect(rows.some((r) => r.episode.history_turns > 0)).toBe(true);
    expect(rows.some((r) => r.messages.some((m) => m.role === "tool"))).toBe(true);
    for (const row of rows) {
      const mask = lossMask(row);
      expect(mask).toHaveLength(row.messages.length);
      row.messages.forEach((message, i) => {
        const policyTurn = message.role === "assistant" && i >= policyStart(row);
        expect(mask[i], `${row.id} message ${i} (${message.role})`).toBe(policyTurn);
      });
      const final = lossMask(row, "final");
      const lastPolicy = mask.lastIndexOf(true);
      expect(final.filter(Boolean)).toHaveLength(lastPolicy === -1 ? 0 : 1);
      if (lastPolicy !== -1) expect(final[lastPolicy]).toBe(true);
    }
  });

  it("never learns a history turn, even one claiming an action no tool backs", async () => {
    const row = await craftedRow({
      history_turns: 2,
      messages: [
        { role: "system", content: "You help." },
        { role: "user", content: "Please cancel order W1." },
        {
          role: "assistant",
          content: "I've taken care of it. You'll see the change within 24 hours.",
        },
        { role: "user", content: "It was never cancelled." },
        {
          role: "assistant",
          content: null,
          tool_calls: [
            {
              id: "call_1",
              type: "function",
              function: { name: "get_order", arguments: '{"order_id":"W1"}' },
            },
          ],
        },
        {
          role: "tool",
          tool_call_id: "call_1",
          name: "get_order",
          content: '{"status":"pending"}',
        },
        { role: "assistant", content: "It is still pending. Shall I cancel it now?" },
        { role: "user", content: "Yes." },
      ],
    });
    expect(lossMask(row)).toEqual([false, false, false, false, true, false, true, false]);
    expect(lossMask(row, "final")).toEqual([false, false, false, false, false, false, true, false]);
  });
});

describe("SFT rows in TRL's conversational format, field by field", () => {
  it("messages, tool calls, tool replies and tools as TRL documents them", async () => {
    const rows = await gradedRows("examples/retail-orders.json");
    const row = rows.find((r) => r.messages.some((m) => m.role === "tool")) as Row;
    const sft = sftRow(row);
    expect(Object.keys(sft).sort()).toEqual([
      "id",
      "loss_mask",
      "messages",
      "reward",
      "task_id",
      "tools",
    ]);
    expect(sft.id).toBe(row.id);
    expect(sft.task_id).toBe(row.task_id);
    expect(sft.reward).toBe(row.reward);
    expect(sft.messages).toHaveLength(row.messages.length);
    sft.messages.forEach((message, i) => {
      const original = row.messages[i] as Row["messages"][number];
      expect(message.role).toBe(original.role);
      if (original.role === "assistant") {
        expect(message).toMatchObject({ role: "assistant", content: original.content ?? "" });
        const calls = original.tool_calls ?? [];
        if (calls.length === 0) expect(message).not.toHaveProperty("tool_calls");
        else
          expect((message as { tool_calls: unknown[] }).tool_calls).toEqual(
            calls.map((c) => ({
              id: c.id,
              type: "function",
              // TRL's documented form: the arguments as an object, not the JSON string our rows hold.
              function: { name: c.function.name, arguments: JSON.parse(c.function.arguments) },
            })),
          );
        // Sampling facts stay on the row: a chat template sees only what a trainer expects.
        expect(Object.keys(message).sort()).toEqual(
          calls.length > 0 ? ["content", "role", "tool_calls"] : ["content", "role"],
        );
      } else if (original.role === "tool") {
        expect(message).toEqual({
          role: "tool",
          name: original.name,
          tool_call_id: original.tool_call_id,
          content: original.content,
        });
      } else expect(message).toEqual({ role: original.role, content: original.content });
    });
    // The tools column: a list of JSON schemas {type: "function", function: {name, description, parameters}}.
    expect(sft.tools.length).toBeGreaterThan(0);
    for (const tool of sft.tools) {
      expect(tool.type).toBe("function");
      expect(Object.keys(tool.function).sort()).toEqual(["description", "name", "parameters"]);
      expect(tool.function.parameters).toMatchObject({ type: "object" });
    }
  });

  it("keeps arguments that are not a JSON object as the string the agent wrote", async () => {
    const row = await craftedRow({
      messages: [
        { role: "system", content: "You help." },
        { role: "user", content: "Hi" },
        {
          role: "assistant",
          content: "",
          tool_calls: [
            { id: "c1", type: "function", function: { name: "get_order", arguments: "{not json" } },
          ],
        },
      ],
    });
    const message = sftRow(row).messages[2] as {
      tool_calls: { function: { arguments: unknown } }[];
    };
    expect(message.tool_calls[0]?.function.arguments).toBe("{not json");
  });
});

describe("which rows a training set takes", () => {
  it("passing rows only by default; every row with passing: false", async () => {
    const rows = await gradedRows("examples/retail-orders.json");
    const passing = rows.filter((r) => (r.reward as number) >= PASS_THRESHOLD);
    expect(passing.length).toBeGreaterThan(0);
    expect(passing.length).toBeLessThan(rows.length);
    expect(trainingRows(rows).map((r) => r.id)).toEqual(passing.map((r) => r.id));
    expect(trainingRows(rows, { passing: false })).toHaveLength(rows.length);
    const data = new Dataset({ rows, meta: null });
    expect((await data.trainingSet({ maskMode: "final" })).map((r) => r.loss_mask)).toEqual(
      passing.map((r) => lossMask(r, "final")),
    );
  });

  it("refuses ungraded data with an InputError naming the row, unless passing: false", async () => {
    const rows = (await gradedRows("examples/retail-orders.json")).map((r) => {
      const { reward: _r, reason: _s, judge_meta: _j, failure_class: _f, ...ungraded } = r;
      return ungraded as Row;
    });
    const data = new Dataset({ rows, meta: null });
    const refusal = await data.trainingSet().catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(InputError);
    expect((refusal as InputError).message).toMatch(
      /no reward.*Grade the data first.*passing: false/s,
    );
    expect((refusal as InputError).issues[0]?.path).toBe(`rows[id=${rows[0]?.id}].reward`);
    expect(await data.trainingSet({ passing: false })).toHaveLength(rows.length);
  });

  it("leaves out a row the judge could not grade, and a row with no policy turn", async () => {
    const [a, b, c] = await gradedRows("examples/retail-orders.json");
    const failedJudge = { ...(a as Row), reward: undefined, grade_error: "judge timed out" } as Row;
    delete failedJudge.reward;
    const onlyHistory = {
      ...(b as Row),
      reward: 1,
      messages: (b as Row).messages.slice(0, 2),
    } as Row;
    const kept = { ...(c as Row), reward: 1 };
    expect(trainingRows([failedJudge, onlyHistory, kept]).map((r) => r.id)).toEqual([kept.id]);
  });
});

describe("the training set's options", () => {
  it("refuses a mask mode or passing flag it does not know, by name", async () => {
    const rows = await gradedRows("examples/retail-orders.json");
    expect(() => trainingRows(rows, { maskMode: "last" as "final" })).toThrow(
      /maskMode: expected "all" or "final", got "last"/,
    );
    expect(() => trainingRows(rows, { passing: "yes" as unknown as boolean })).toThrow(
      /passing: expected true or false, got "yes"/,
    );
  });
});
