import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type CoveringProblem,
  coveringArray,
  PairSpace,
  type ValuePair,
} from "../../../env/covering/index.ts";

/** Every pair a valid row can hold, found by enumerating every full row (small problems only). */
function bruteForceReachable(problem: CoveringProblem): Set<string> {
  const { levels } = problem;
  const forbidden = new Set(
    (problem.forbidden ?? []).flatMap((f) => [
      key(f.axisA, f.valueA, f.axisB, f.valueB),
      key(f.axisB, f.valueB, f.axisA, f.valueA),
    ]),
  );
  const reachable = new Set<string>();
  const row: number[] = [];
  const walk = (c: number) => {
    if (c === levels.length) {
      for (let i = 0; i < levels.length; i++)
        for (let j = i + 1; j < levels.length; j++)
          reachable.add(key(i, row[i] as number, j, row[j] as number));
      return;
    }
    for (let v = 0; v < (levels[c] as number); v++) {
      if (row.slice(0, c).some((x, j) => forbidden.has(key(j, x, c, v)))) continue;
      row[c] = v;
      walk(c + 1);
    }
  };
  walk(0);
  return reachable;
}

function key(i: number, a: number, j: number, b: number): string {
  return i < j ? `${i}:${a}|${j}:${b}` : `${j}:${b}|${i}:${a}`;
}

function pairsIn(rows: number[][]): Set<string> {
  const out = new Set<string>();
  for (const row of rows)
    for (let i = 0; i < row.length; i++)
      for (let j = i + 1; j < row.length; j++)
        out.add(key(i, row[i] as number, j, row[j] as number));
  return out;
}

const problems = fc
  .array(fc.integer({ min: 1, max: 5 }), { minLength: 2, maxLength: 6 })
  .chain((levels) =>
    fc.record({
      levels: fc.constant(levels),
      forbidden: fc.array(
        fc
          .tuple(fc.nat(levels.length - 1), fc.nat(levels.length - 1), fc.nat(4), fc.nat(4))
          .filter(([a, b]) => a !== b)
          .map(
            ([axisA, axisB, va, vb]): ValuePair => ({
              axisA,
              valueA: va % (levels[axisA] as number),
              axisB,
              valueB: vb % (levels[axisB] as number),
            }),
          ),
        { maxLength: 6 },
      ),
      seed: fc.nat(1000),
    }),
  );

describe("coveringArray", () => {
  it("covers every reachable pair, holds no forbidden pair, and names exactly the implied conflicts", () => {
    fc.assert(
      fc.property(problems, ({ levels, forbidden, seed }) => {
        const problem = { levels, forbidden };
        const reachable = bruteForceReachable(problem);
        if (reachable.size === 0) {
          expect(() => coveringArray(problem, { seed })).toThrow(/leave no valid row/);
          return;
        }
        const result = coveringArray(problem, { seed });
        const covered = pairsIn(result.rows);
        expect([...reachable].filter((p) => !covered.has(p))).toEqual([]);
        expect([...covered].filter((p) => !reachable.has(p))).toEqual([]);
        expect(result.pairsTarget).toBe(reachable.size);
        const forbiddenKeys = new Set(
          forbidden.map((f) => key(f.axisA, f.valueA, f.axisB, f.valueB)),
        );
        for (const implied of result.impliedConflicts) {
          const k = key(implied.axisA, implied.valueA, implied.axisB, implied.valueB);
          expect(reachable.has(k)).toBe(false);
          expect(forbiddenKeys.has(k)).toBe(false);
        }
        const space = new PairSpace(problem);
        expect(result.pairsTarget + result.pairsForbidden + result.impliedConflicts.length).toBe(
          space.size,
        );
        expect(result.rows.length).toBeGreaterThanOrEqual(result.lowerBound);
      }),
      { numRuns: 300 },
    );
  });

  it("gives the same array for the same seed and a different one for another seed", () => {
    const levels = [3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3];
    const a = coveringArray({ levels }, { seed: 7 });
    expect(coveringArray({ levels }, { seed: 7 }).rows).toEqual(a.rows);
    expect(coveringArray({ levels }, { seed: 8 }).rows).not.toEqual(a.rows);
    expect(coveringArray({ levels }, { seed: "seven" }).rows).not.toEqual(a.rows);
  });

  it("reaches the lower bound on the reference six-axis grid (8,8,7,3,3,2)", () => {
    const result = coveringArray({ levels: [8, 8, 7, 3, 3, 2] }, { seed: 0 });
    expect(result.lowerBound).toBe(64);
    expect(result.pairsTarget).toBe(381);
    expect(result.rows).toHaveLength(64);
    expect(pairsIn(result.rows).size).toBe(381);
  });

  it("shrinks the greedy array on a classic grid, 3^13, to at most PICT's 18 rows", () => {
    const result = coveringArray({ levels: Array(13).fill(3) }, { seed: 1 });
    expect(result.rows.length).toBeLessThan(result.greedyRows);
    expect(result.rows.length).toBeLessThanOrEqual(18);
    expect(pairsIn(result.rows).size).toBe(((13 * 12) / 2) * 9);
  });

  it("derives a conflict implied by two forbidden pairs", () => {
    // axis 0 value 0 may only meet axis 1 value 0, which may never meet axis 2 value 1.
    const forbidden: ValuePair[] = [
      { axisA: 0, valueA: 0, axisB: 1, valueB: 1 },
      { axisA: 1, valueA: 0, axisB: 2, valueB: 1 },
    ];
    const result = coveringArray({ levels: [2, 2, 2], forbidden }, { seed: 0 });
    expect(result.impliedConflicts).toEqual([{ axisA: 0, valueA: 0, axisB: 2, valueB: 1 }]);
    expect(result.pairsTarget).toBe(12 - 2 - 1);
  });

  it("refuses malformed problems, naming what is wrong", () => {
    expect(() => coveringArray({ levels: [3] }, { seed: 0 })).toThrow(/at least 2 axes/);
    expect(() => coveringArray({ levels: [3, 0] }, { seed: 0 })).toThrow(
      /levels\[1\] must be a positive integer/,
    );
    expect(() =>
      coveringArray(
        { levels: [2, 2], forbidden: [{ axisA: 0, valueA: 5, axisB: 1, valueB: 0 }] },
        { seed: 0 },
      ),
    ).toThrow(/forbidden\[0\] names value 5 of axis 0/);
    expect(() =>
      coveringArray(
        { levels: [2, 2], forbidden: [{ axisA: 1, valueA: 0, axisB: 1, valueB: 0 }] },
        { seed: 0 },
      ),
    ).toThrow(/names axis 1 twice/);
  });
});
