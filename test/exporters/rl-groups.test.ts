import { describe, expect, it } from "vitest";
import { attachLabels, PASS_THRESHOLD } from "../../env/index.ts";
import { selectForRl } from "../../exporters/index.ts";
import type { Row } from "../../spec/index.ts";
import { craftedRow, gradedRows } from "./rows.ts";

async function rollouts(task: string, rewards: number[]): Promise<Row[]> {
  return Promise.all(
    rewards.map((reward, n) =>
      craftedRow({
        id: `${task}-${n}`,
        task_id: task,
        reward,
        messages: [
          { role: "system", content: "You help." },
          { role: "user", content: `Help with ${task}` },
          { role: "assistant", content: `Attempt ${n}` },
        ],
      }),
    ),
  );
}

describe("RL groups", () => {
  it("k rollouts of one situation with n0, n1, mean, std (n − 1) and the calibration stamp", async () => {
    const rows = [...(await rollouts("t1", [1, 0, 1, 0.25])), ...(await rollouts("t2", [0, 0]))];
    const { groups, short_tasks, zero_variance } = await selectForRl(rows, { k: 4 });
    expect(short_tasks).toBe(1);
    expect(zero_variance).toBe(0);
    expect(groups).toHaveLength(1);
    const group = groups[0];
    expect(group).toMatchObject({
      group_id: "t1#k4",
      task_id: "t1",
      k: 4,
      n0: 2,
      n1: 2,
      mean: 0.5625,
      ids: ["t1-0", "t1-1", "t1-2", "t1-3"],
      rewards: [1, 0, 1, 0.25],
    });
    const mean = 0.5625;
    const std = Math.sqrt([1, 0, 1, 0.25].reduce((a, r) => a + (r - mean) ** 2, 0) / 3);
    expect(group?.std).toBeCloseTo(std, 12);
    expect(group?.prompt.map((m) => m.role)).toEqual(["system", "user"]);
    expect(group?.completions).toEqual(
      [0, 1, 2, 3].map((n) => [{ role: "assistant", content: `Attempt ${n}` }]),
    );
    expect(group?.calibration).toMatchObject({ status: "unmeasured" });
  });

  it("leaves out groups whose rollouts all scored the same unless keepZeroVariance", async () => {
    const rows = [...(await rollouts("z", [1, 1, 1])), ...(await rollouts("v", [1, 0, 0]))];
    const dropped = await selectForRl(rows, { k: 3 });
    expect(dropped.groups.map((g) => g.task_id)).toEqual(["v"]);
    expect(dropped.zero_variance).toBe(1);
    const kept = await selectForRl(rows, { k: 3, keepZeroVariance: true });
    expect(kept.groups.map((g) => [g.task_id, g.std, g.n0, g.n1])).toEqual([
      ["z", 0, 0, 3],
      ["v", expect.any(Number), 2, 1],
    ]);
  });

  it("stamps each group with the judge's measured calibration when labels are attached", async () => {
    const rows = await gradedRows("examples/retail-orders.json", 24, 3);
    attachLabels(
      rows,
      rows
        .slice(0, 20)
        .map((r) => ({ id: r.id, reward: (r.reward as number) >= PASS_THRESHOLD ? 1 : 0 })),
      { kind: "human" },
    );
    const { groups, calibration } = await selectForRl(rows, { k: 3 });
    expect(groups.length).toBeGreaterThan(0);
    expect(calibration).toMatchObject({ status: "measured", n: 20, agreement: 1 });
    for (const group of groups) {
      expect(group.calibration).toEqual(calibration);
      expect(group.n0 + group.n1).toBe(3);
      expect(group.n1).toBe(group.rewards.filter((r) => r >= PASS_THRESHOLD).length);
    }
  });

  it("refuses a group size below 2 by name", async () => {
    await expect(selectForRl([], { k: 1 })).rejects.toThrow(
      /k: expected a group size of at least 2/,
    );
  });
});
