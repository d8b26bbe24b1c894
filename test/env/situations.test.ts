import { describe, expect, it } from "vitest";
import { Agent } from "../../env/agent.ts";
import { Planner, situationId } from "../../env/plan.ts";
import { oneSituation, SituationPool, splitOf } from "../../env/situations.ts";
import { InputError } from "../../env/util/errors.ts";
import type { Situation, Split } from "../../spec/index.ts";
import { referenceSpec } from "../fixtures/reference-spec.ts";
import { situationOf } from "../fixtures/situations.ts";

const retail = Agent.from(referenceSpec);
const grid: Situation[] = [...new Planner(retail, { rows: 200, seed: 3 }).walk()];

/** The refusal's problems as `path: message`, or the value when nothing was refused. */
function refusal(pick: () => unknown): string[] {
  try {
    pick();
  } catch (error) {
    expect(error).toBeInstanceOf(InputError);
    return (error as InputError).issues.map((i) => `${i.path}: ${i.message}`);
  }
  throw new Error("not refused");
}

describe("splits", () => {
  it("deal a grid about 80/10/10 by a stable hash of each id, whatever else the grid holds", () => {
    const counts: Record<Split, number> = { train: 0, holdout: 0, eval: 0 };
    for (const situation of grid) counts[splitOf(situation)]++;
    expect(counts.train).toBeGreaterThan(0.7 * grid.length);
    expect(counts.holdout).toBeGreaterThan(0.04 * grid.length);
    expect(counts.eval).toBeGreaterThan(0.04 * grid.length);
    const smaller = [...new Planner(retail, { rows: 50, seed: 3 }).walk()];
    for (const situation of smaller) expect(splitOf(situation)).toBe(splitOf({ id: situation.id }));
  });
});

describe("SituationPool", () => {
  it("deals the grid in plan order without a seed, round and round, one cursor per split", () => {
    const pool = new SituationPool(retail, grid);
    expect([0, 1, 2].map(() => pool.pick({}).id)).toEqual(grid.slice(0, 3).map((s) => s.id));
    const evals = grid.filter((s) => splitOf(s) === "eval");
    const dealt = evals.map(() => pool.pick({ split: "eval" }).id);
    expect(dealt).toEqual(evals.map((s) => s.id));
    expect(pool.pick({ split: "eval" }).id).toBe(evals[0]?.id);
    // The eval cursor did not move the one over the whole grid.
    expect(pool.pick({}).id).toBe(grid[3]?.id);
  });

  it("names a situation by task_id, and reseeds it with seed: the same coordinate under its own id", () => {
    const pool = new SituationPool(retail, grid);
    const target = grid[17] as Situation;
    expect(pool.pick({ task_id: target.id })).toBe(target);
    const again = pool.pick({ task_id: target.id, seed: 4242 });
    expect(again).toEqual({
      ...target,
      seed: 4242,
      id: situationId(retail.hash, target.axes, 4242),
    });
  });

  it("draws by seed the same situation every time, within the split asked for", () => {
    const a = new SituationPool(retail, grid);
    const b = new SituationPool(retail, grid);
    for (const seed of [0, 1, 99, 123456]) {
      const drawn = a.pick({ seed, split: "holdout" });
      expect(b.pick({ seed, split: "holdout" })).toEqual(drawn);
      expect(drawn.seed).toBe(seed);
      const planned = grid.find((s) => s.cell === drawn.cell && s.pass === drawn.pass);
      expect(planned && splitOf(planned)).toBe("holdout");
    }
    const seeds = Array.from({ length: 40 }, (_, seed) => a.pick({ seed }).cell);
    expect(new Set(seeds).size).toBeGreaterThan(10);
  });

  it("refuses an unknown task, a task outside the split, and a split with nothing in it, naming the field", () => {
    const pool = new SituationPool(retail, grid);
    expect(refusal(() => pool.pick({ task_id: "sit_0000000000000000" }))).toEqual([
      expect.stringMatching(/^task_id: no situation "sit_0000000000000000" in this grid of 200/),
    ]);
    const train = grid.find((s) => splitOf(s) === "train") as Situation;
    expect(refusal(() => pool.pick({ task_id: train.id, split: "eval" }))).toEqual([
      `split: ${train.id} is in train, not eval`,
    ]);
    const onlyTrain = new SituationPool(retail, [train]);
    expect(refusal(() => onlyTrain.pick({ split: "holdout" }))).toEqual([
      expect.stringMatching(
        /^split: holdout holds no situation of this grid \(\{"train":1,"holdout":0,"eval":0\}\)/,
      ),
    ]);
  });
});

describe("an episode's one situation", () => {
  const situation = situationOf(retail, { tool: "get_order" });
  const one = oneSituation(retail, situation);

  it("is played as it is, or reseeded", () => {
    expect(one.pick({})).toBe(situation);
    expect(one.pick({ task_id: situation.id })).toBe(situation);
    expect(one.pick({ seed: 8 })).toMatchObject({ axes: situation.axes, seed: 8 });
    expect(one.pick({ seed: 8 }).id).not.toBe(situation.id);
  });

  it("refuses another task or a split it is not in, with both problems at once", () => {
    const other = (["train", "holdout", "eval"] as const).find((s) => s !== splitOf(situation));
    expect(refusal(() => one.pick({ task_id: "sit_ffffffffffffffff", split: other }))).toEqual([
      expect.stringMatching(/^task_id: this episode plays sit_[0-9a-f]{16} only/),
      `split: this episode's situation is in ${splitOf(situation)}, not ${other}`,
    ]);
  });
});
