import { describe, expect, it } from "vitest";
import { trainingMessage } from "../../env/index.ts";
import { buildPreferencePairs, tokensOf } from "../../exporters/index.ts";
import type { Row } from "../../spec/index.ts";
import { craftedRow, gradedRows } from "./rows.ts";

/** A rollout of one situation: the shared opening, then `reply` from the agent, scored `reward`. */
async function rollout(id: string, reward: number, reply: string, agent = "offline"): Promise<Row> {
  const row = await craftedRow({
    id,
    task_id: "sit_same",
    reward,
    messages: [
      { role: "system", content: "You help." },
      { role: "user", content: "Where is my order W1?" },
      { role: "assistant", content: reply },
      { role: "user", content: "Thanks." },
    ],
  });
  return { ...row, models: { ...row.models, agent } };
}

describe("preference pairs in TRL's conversational form with an explicit prompt", () => {
  it("pairs rollouts of one situation with different rewards, field by field", async () => {
    const rows = await gradedRows("examples/retail-orders.json");
    const { pairs, single_reward_tasks } = await buildPreferencePairs(rows);
    expect(pairs.length).toBeGreaterThan(0);
    expect(single_reward_tasks).toBeGreaterThan(0);
    const byId = new Map(rows.map((r) => [r.id, r]));
    for (const pair of pairs) {
      const chosen = byId.get(pair.chosen_id) as Row;
      const rejected = byId.get(pair.rejected_id) as Row;
      expect(chosen.task_id).toBe(pair.task_id);
      expect(rejected.task_id).toBe(pair.task_id);
      expect(pair.score_chosen).toBe(chosen.reward);
      expect(pair.score_rejected).toBe(rejected.reward);
      expect(pair.score_chosen).toBeGreaterThan(pair.score_rejected);
      expect(pair.margin).toBe(pair.score_chosen - pair.score_rejected);
      expect(pair.chosen_model).toBe(chosen.models.agent);
      expect(pair.same_policy).toBe(chosen.models.agent === rejected.models.agent);
      // prompt: the conversation up to the policy's first turn, ending with the person's opening.
      expect(pair.prompt.at(-1)?.role).toBe("user");
      const start = pair.prompt.length;
      expect(pair.prompt).toEqual(chosen.messages.slice(0, start).map(trainingMessage));
      expect(pair.prompt).toEqual(rejected.messages.slice(0, start).map(trainingMessage));
      // chosen / rejected: how each rollout went on, starting with the agent's turn.
      expect(pair.chosen[0]?.role).toBe("assistant");
      expect(pair.rejected[0]?.role).toBe("assistant");
      expect([...pair.prompt, ...pair.chosen]).toEqual(chosen.messages.map(trainingMessage));
      expect([...pair.prompt, ...pair.rejected]).toEqual(rejected.messages.map(trainingMessage));
      expect(pair.length_delta).toBe(tokensOf(pair.chosen) - tokensOf(pair.rejected));
      expect(pair.tools).toEqual(chosen.tools);
    }
  });

  it("warns when the chosen side is the longer one in most pairs", async () => {
    const long =
      "Your order W1 shipped on Monday from our warehouse and should arrive by Thursday; here is the tracking link and the carrier's phone number.";
    const rows = [
      await rollout("a1", 1, long),
      await rollout("a2", 0, "No idea."),
      await rollout("a3", 0, "It shipped."),
    ];
    const result = await buildPreferencePairs(rows);
    expect(result.pairs).toHaveLength(2);
    expect(result.pairs.every((p) => p.length_delta > 0)).toBe(true);
    expect(result.chosen_longer).toBe(1);
    expect(result.warnings).toEqual([
      expect.stringMatching(/chosen side is the longer one in 2 of 2 pairs.*learns length/),
    ]);
  });

  it("does not warn when the chosen side is the shorter one in most pairs", async () => {
    const long =
      "Let me explain at length everything that might have happened to an order in general, with every possibility listed before I look.";
    const rows = [
      await rollout("b1", 1, "It shipped Monday."),
      await rollout("b2", 0.25, long),
      await rollout("b3", 0, `${long} Sorry.`, "openai:gpt-4.1"),
    ];
    const result = await buildPreferencePairs(rows);
    expect(result.pairs).toHaveLength(3);
    expect(result.pairs.filter((p) => p.length_delta > 0)).toHaveLength(0);
    expect(result.chosen_longer).toBe(0);
    expect(result.warnings).toEqual([]);
    const crossModel = result.pairs.filter((p) => p.rejected_id === "b3");
    expect(crossModel.map((p) => [p.same_policy, p.rejected_model])).toEqual([
      [false, "openai:gpt-4.1"],
      [false, "openai:gpt-4.1"],
    ]);
    expect(result.pairs.find((p) => p.rejected_id === "b2")?.margin).toBe(0.75);
  });

  it("refuses rows never graded", async () => {
    const row = await rollout("c1", 1, "Hi");
    delete row.reward;
    await expect(buildPreferencePairs([row])).rejects.toThrow(/no reward.*Grade the data first/);
  });
});
