import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { coverageOrder, type OrderInput } from "../../../env/covering/index.ts";
import { growth } from "../../support/growth.ts";

/**
 * The walk's order as it was first written (issue 16 measured it at 69% of plan time): rescan every
 * row left for every place. Kept here as the definition the fast order must match exactly.
 */
function referenceOrder({ pairs, target, seen: before, faults }: OrderInput): number[] {
  const seen = before.slice();
  const left = pairs.map((_, cell) => cell);
  const order: number[] = [];
  const isFault = (cell: number) => faults?.[cell] === 1;
  const faultTotal = faults === undefined ? 0 : left.filter(isFault).length;
  let placed = 0;
  while (left.length > 0) {
    const capped =
      faultTotal > 0 &&
      placed + 1 > Math.ceil((faultTotal * (order.length + 1)) / pairs.length) &&
      left.some((c) => !isFault(c));
    let bestAt = -1;
    let bestGain = -1;
    left.forEach((cell, at) => {
      if (capped && isFault(cell)) return;
      let gain = 0;
      for (const p of pairs[cell] as number[]) if (seen[p] === 0 && target[p] === 1) gain++;
      if (gain > bestGain) {
        bestGain = gain;
        bestAt = at;
      }
    });
    const [cell] = left.splice(bestAt, 1) as [number];
    if (isFault(cell)) placed++;
    order.push(cell);
    for (const p of pairs[cell] as number[]) seen[p] = (seen[p] as number) + 1;
  }
  return order;
}

/** Rows over `levels` as a grid's rows are: one value per axis, a pair per two axes. */
function pairsOfRows(levels: number[], rows: number[][]): number[][] {
  const offset: number[][] = [];
  let size = 0;
  for (let i = 0; i < levels.length; i++) {
    offset[i] = [];
    for (let j = i + 1; j < levels.length; j++) {
      (offset[i] as number[])[j] = size;
      size += (levels[i] as number) * (levels[j] as number);
    }
  }
  return rows.map((row) => {
    const pairs: number[] = [];
    for (let i = 0; i < row.length; i++)
      for (let j = i + 1; j < row.length; j++)
        pairs.push(
          ((offset[i] as number[])[j] as number) +
            (row[i] as number) * (levels[j] as number) +
            (row[j] as number),
        );
    return pairs;
  });
}

const spaceSize = (levels: number[]) => {
  let size = 0;
  for (let i = 0; i < levels.length; i++)
    for (let j = i + 1; j < levels.length; j++)
      size += (levels[i] as number) * (levels[j] as number);
  return size;
};

const inputs = fc
  .array(fc.integer({ min: 1, max: 4 }), { minLength: 2, maxLength: 6 })
  .chain((levels) => {
    const size = spaceSize(levels);
    return fc.record({
      levels: fc.constant(levels),
      rows: fc.array(fc.tuple(...levels.map((n) => fc.nat(n - 1))), {
        minLength: 1,
        maxLength: 40,
      }),
      target: fc.array(fc.integer({ min: 0, max: 5 }), { minLength: size, maxLength: size }),
      seen: fc.array(fc.integer({ min: 0, max: 3 }), { minLength: size, maxLength: size }),
      faults: fc.option(fc.array(fc.boolean(), { minLength: 40, maxLength: 40 })),
    });
  })
  .map(({ levels, rows, target, seen, faults }) => {
    const input: OrderInput = {
      pairs: pairsOfRows(levels, rows),
      // Mostly target pairs, some not; mostly unvisited pairs, some visited once or more.
      target: Uint8Array.from(target, (t) => (t === 0 ? 0 : 1)),
      seen: Int32Array.from(seen, (s) => (s < 2 ? 0 : s - 1)),
    };
    if (faults !== null) input.faults = Uint8Array.from(faults.slice(0, rows.length), Number);
    return input;
  });

describe("coverageOrder", () => {
  it("places rows exactly as the rescanning greedy does, ties and fault spreading included", () => {
    fc.assert(
      fc.property(inputs, (input) => {
        const seenBefore = input.seen.slice();
        expect(coverageOrder(input)).toEqual(referenceOrder(input));
        expect(input.seen).toEqual(seenBefore);
      }),
      { numRuns: 1000 },
    );
  });

  it("matches the reference on grids of plan size with repeated rows and every row a fault but one", () => {
    const levels = [12, 9, 7, 6, 7, 4];
    const rows = Array.from({ length: 300 }, (_, r) =>
      levels.map((n, axis) => (r * (axis + 3) + Math.floor(r / (axis + 2))) % n),
    );
    const pairs = pairsOfRows(levels, [...rows, ...rows.slice(0, 50)]);
    const size = spaceSize(levels);
    const input: OrderInput = {
      pairs,
      target: new Uint8Array(size).fill(1),
      seen: new Int32Array(size),
      faults: Uint8Array.from(pairs, (_, r) => (r === 7 ? 0 : 1)),
    };
    expect(coverageOrder(input)).toEqual(referenceOrder(input));
    const spread = { ...input, faults: Uint8Array.from(pairs, (_, r) => r % 3) };
    spread.faults = Uint8Array.from(spread.faults, (f) => (f === 0 ? 1 : 0));
    expect(coverageOrder(spread)).toEqual(referenceOrder(spread));
  });

  it("grows near-linearly: four times the rows take well under sixteen times as long", () => {
    // A grid like a plan's with rules scoped to tools: the tool axis grows with the rows.
    const make = (n: number): OrderInput => {
      const levels = [n / 7, 8, 7, 6, 7, 4];
      const rows = Array.from({ length: n }, (_, r) =>
        levels.map((v, axis) => (r * (2 * axis + 1) + Math.floor(r / 7) * axis) % v),
      );
      const size = spaceSize(levels);
      return {
        pairs: pairsOfRows(levels, rows),
        target: new Uint8Array(size).fill(1),
        seen: new Int32Array(size),
        faults: Uint8Array.from(rows, (row) => ((row[4] as number) === 0 ? 0 : 1)),
      };
    };
    expect(growth(make, coverageOrder, 1000, 3)).toBeLessThan(8);
  });
});
