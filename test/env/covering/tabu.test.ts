import { describe, expect, it } from "vitest";
import { Cover } from "../../../env/covering/cover.ts";
import { greedyRows } from "../../../env/covering/greedy.ts";
import { coveringArray, PairSpace, reachablePairs } from "../../../env/covering/index.ts";
import { REMOVAL_CHECKPOINTS, repair } from "../../../env/covering/tabu.ts";
import { Rng } from "../../../env/rng.ts";

/** The greedy array of 3^13 with seed 1, as a cover the search can change. */
function greedyCover(): Cover {
  const space = new PairSpace({ levels: Array(13).fill(3) });
  const cover = new Cover(space, reachablePairs(space));
  greedyRows(cover, new Rng(1, "greedy"), 50);
  return cover;
}

/** A cover of 3^13 cut down to `rows` rows, the first ones removed. */
function cutTo(rows: number): Cover {
  const cover = greedyCover();
  while (cover.n > rows) cover.removeRow(0);
  return cover;
}

const BUDGET = 20_000;

describe("repair checkpoints", () => {
  it("gives up a hopeless repair at the first checkpoint it fails, not at the end of its budget", () => {
    // Eight rows hold at most 8 × 78 of the 702 pairs: far more than 13 stay open.
    const run = (checkpoints?: typeof REMOVAL_CHECKPOINTS) =>
      repair(cutTo(8), {
        rng: new Rng(1, "shrink"),
        maxIterations: BUDGET,
        tenure: 2,
        ...(checkpoints ? { checkpoints } : {}),
      });
    const first = REMOVAL_CHECKPOINTS[0]?.share as number;
    expect(run(REMOVAL_CHECKPOINTS)).toEqual({
      covered: false,
      iterations: Math.round(first * BUDGET) - 1,
    });
    expect(run()).toEqual({ covered: false, iterations: BUDGET });
  });

  it("leaves a repair that gets close in time exactly as it was", () => {
    const run = (checkpoints?: typeof REMOVAL_CHECKPOINTS) => {
      const cover = greedyCover();
      cover.removeRow(0);
      const result = repair(cover, {
        rng: new Rng(1, "shrink"),
        maxIterations: BUDGET,
        tenure: 2,
        ...(checkpoints ? { checkpoints } : {}),
      });
      return { ...result, rows: Array.from({ length: cover.n }, (_, r) => [...cover.row(r)]) };
    };
    const checked = run(REMOVAL_CHECKPOINTS);
    expect(checked.covered).toBe(true);
    expect(checked).toEqual(run());
  });

  it("takes two checkpoints that fall on one iteration of a tiny budget in turn", () => {
    const result = repair(cutTo(8), {
      rng: new Rng(1, "shrink"),
      maxIterations: 4,
      tenure: 2,
      checkpoints: [
        { share: 0.1, uncovered: 1000 },
        { share: 0.2, uncovered: 1 },
      ],
    });
    expect(result).toEqual({ covered: false, iterations: 0 });
  });

  it("stops the last, failing removal of 3^13 early and keeps its 15 rows", () => {
    const result = coveringArray({ levels: Array(13).fill(3) }, { seed: 1 });
    expect(result.rows).toHaveLength(15);
    // One removal's budget is 2,000 + 20 × 702 pairs: the failing removal alone would spend it.
    expect(result.searchIterations).toBeLessThan((2000 + 20 * 702) / 2);
  });
});

describe("early checkpoints", () => {
  it("gives up the hopeless last removal of 4^1 3^39 2^35 within 1 % of its budget and keeps its 20 rows", () => {
    const levels = [4, ...Array(39).fill(3), ...Array(35).fill(2)];
    // Seed 15 reaches 20 rows (a third of seeds do) in 15,836 iterations; the failing removal of
    // the 20th row, with a budget of 361,740, gives up at its 1 % checkpoint, after 3,616.
    const result = coveringArray({ levels }, { seed: 15 });
    expect(result.rows).toHaveLength(20);
    expect(result.searchIterations).toBe(15_836 + 3_616);
  });
});

describe("loops", () => {
  it("breaks out of a loop its short tabu list cannot, and keeps shrinking the array", () => {
    const levels = [...Array(15).fill(4), ...Array(17).fill(3), ...Array(29).fill(2)];
    const result = coveringArray({ levels }, { seed: 9 });
    // At seed 9 the removal of the 33rd row went round three moves and one uncovered pair for its
    // whole budget of 282,520 iterations, and the array stopped at 33 rows; the other seeds reach 28.
    expect(result.rows).toHaveLength(28);
  });
});
