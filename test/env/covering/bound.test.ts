import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  binaryBound,
  boundsOf,
  coveringArray,
  PairSpace,
  reachablePairs,
  type ValuePair,
} from "../../../env/covering/index.ts";

/** 20 tools × 4 rules × 2 stances; rules 0 and 1 concern every tool, rules 2 and 3 tool 0 only. */
function scopedRules(): { levels: number[]; forbidden: ValuePair[] } {
  const forbidden: ValuePair[] = [];
  for (const rule of [2, 3])
    for (let tool = 1; tool < 20; tool++)
      forbidden.push({ axisA: 0, valueA: tool, axisB: 1, valueB: rule });
  return { levels: [20, 4, 2], forbidden };
}

const boundsFor = (problem: { levels: number[]; forbidden?: ValuePair[] }) => {
  const space = new PairSpace(problem);
  return boundsOf(space, reachablePairs(space).target);
};

describe("lower bounds", () => {
  it("counts per value under scoped rules, where the largest block undercounts", () => {
    // Tools × rules holds 20 + 20 + 1 + 1 = 42 pairs; but rules 2 and 3 each need two rows (one per
    // stance) though they meet one tool, so the rule axis needs 20 + 20 + 2 + 2 = 44 rows.
    const bounds = boundsFor(scopedRules());
    expect(bounds).toMatchObject({ block: 42, perValue: 44, lower: 44 });
    const array = coveringArray(scopedRules(), { seed: 1 });
    expect(array.lowerBound).toBe(44);
    expect(array.rows).toHaveLength(44);
    // The greedy start meets the bound, so no search runs: with the block bound the search spent
    // its whole budget (2,000 + 20 × pairs iterations) looking for 43 rows.
    expect(array.greedyRows).toBe(44);
    expect(array.searchIterations).toBe(0);
  });

  it("gives Kleitman and Spencer's exact sizes for free binary axes", () => {
    // Least N with C(N-1, ceil(N/2)) >= m: 4 axes need 5 rows, 10 need 6, 11 need 7, 100 need 10.
    expect([2, 3, 4, 10, 11, 15, 16, 35, 36, 100, 126, 127].map(binaryBound)).toEqual([
      4, 4, 5, 6, 7, 7, 8, 8, 9, 10, 10, 11,
    ]);
    expect(boundsFor({ levels: Array(100).fill(2) })).toMatchObject({ block: 4, binary: 10 });
  });

  it("stops the search once it meets the bound: 2^100 in 10 rows with a few hundred iterations", () => {
    const array = coveringArray({ levels: Array(100).fill(2) }, { seed: 1 });
    expect(array.rows).toHaveLength(10);
    expect(array.lowerBound).toBe(10);
    // Trying 9 rows cost the full budget for one removal: 2,000 + 20 × 19,800 pairs.
    expect(array.searchIterations).toBeLessThan(2_000);
  });

  it("leaves out of the binary bound two-level axes that a forbidden pair constrains", () => {
    const forbidden = [{ axisA: 0, valueA: 0, axisB: 1, valueB: 0 }];
    // Axes 0 and 1 no longer meet freely: only the other 8 count, which need 6 rows.
    expect(boundsFor({ levels: Array(10).fill(2), forbidden }).binary).toBe(binaryBound(8));
  });

  it("holds every array the engine builds to its bound, on the reference grid at the bound", () => {
    const array = coveringArray({ levels: [8, 8, 7, 3, 3, 2] }, { seed: 0 });
    expect(array.lowerBound).toBe(64);
    expect(array.rows).toHaveLength(64);
  });
});

/** The fewest rows that cover every pair some valid row holds, by exhaustive search (tiny problems). */
function exactSize(levels: number[], forbidden: ValuePair[]): number {
  const banned = new Set(forbidden.map((f) => pairKey(f.axisA, f.valueA, f.axisB, f.valueB)));
  const rows: number[][] = [];
  const walk = (row: number[]) => {
    if (row.length === levels.length) return void rows.push(row);
    for (let v = 0; v < (levels[row.length] as number); v++)
      if (row.every((x, j) => !banned.has(pairKey(j, x, row.length, v)))) walk([...row, v]);
  };
  walk([]);
  const pairsOf = (row: number[]) =>
    row.flatMap((x, i) => row.slice(i + 1).map((y, d) => pairKey(i, x, i + 1 + d, y)));
  const rowPairs = rows.map(pairsOf);
  const targets = [...new Set(rowPairs.flat())];
  const covers = (limit: number, covered: Map<string, number>): boolean => {
    const open = targets.filter((p) => !covered.get(p));
    if (open.length === 0) return true;
    if (limit === 0) return false;
    // Branch on the open pair held by the fewest rows.
    let pick: number[] = [];
    for (const p of open) {
      const holders = rowPairs.flatMap((pairs, r) => (pairs.includes(p) ? [r] : []));
      if (pick.length === 0 || holders.length < pick.length) pick = holders;
    }
    for (const r of pick) {
      for (const p of rowPairs[r] as string[]) covered.set(p, (covered.get(p) ?? 0) + 1);
      const found = covers(limit - 1, covered);
      for (const p of rowPairs[r] as string[]) covered.set(p, (covered.get(p) as number) - 1);
      if (found) return true;
    }
    return false;
  };
  for (let size = 1; ; size++) if (covers(size, new Map())) return size;
}

function pairKey(i: number, a: number, j: number, b: number): string {
  return i < j ? `${i}:${a}|${j}:${b}` : `${j}:${b}|${i}:${a}`;
}

describe("the lower bound is sound", () => {
  it("never exceeds the exact smallest array, on small problems with forbidden pairs", () => {
    const shapes = fc.oneof(
      fc.array(fc.integer({ min: 1, max: 3 }), { minLength: 2, maxLength: 3 }),
      fc.array(fc.integer({ min: 1, max: 2 }), { minLength: 2, maxLength: 5 }),
    );
    const problems = shapes.chain((levels) =>
      fc.record({
        levels: fc.constant(levels),
        forbidden: fc.array(
          fc
            .tuple(fc.nat(levels.length - 1), fc.nat(levels.length - 1), fc.nat(2), fc.nat(2))
            .filter(([a, b]) => a !== b)
            .map(([axisA, axisB, va, vb]) => ({
              axisA,
              valueA: va % (levels[axisA] as number),
              axisB,
              valueB: vb % (levels[axisB] as number),
            })),
          { maxLength: 4 },
        ),
      }),
    );
    // The search itself checked on sizes known exactly.
    expect(
      [
        [3, 3, 3],
        [2, 2, 2, 2],
        [2, 2, 2, 2, 2],
      ].map((levels) => exactSize(levels, [])),
    ).toEqual([9, 5, 6]);
    let tight = 0;
    fc.assert(
      fc.property(problems, ({ levels, forbidden }) => {
        const space = new PairSpace({ levels, forbidden });
        const reach = reachablePairs(space);
        if (reach.targetCount === 0) return;
        const bound = boundsOf(space, reach.target).lower;
        const exact = exactSize(levels, forbidden);
        expect(bound).toBeLessThanOrEqual(exact);
        if (bound === exact) tight++;
      }),
      { numRuns: 300 },
    );
    // Not a formality: on most of these problems the bound is the exact size.
    expect(tight).toBeGreaterThan(150);
  });
});
