import { stillWorking } from "../util/long-work.ts";
import type { PairSpace } from "./space.ts";

/**
 * Orders the values to try on axis `c` for the partial row, best first. A ranking may reuse one
 * buffer per axis: read it before ranking the same axis again.
 */
export type ValueRanking = (row: Int32Array, c: number) => Iterable<number>;

/**
 * Fills the unassigned axes (−1) of `row` in `order`, trying values as `rank` orders them, so that
 * no forbidden pair appears. Backtracks with forward checking, so a completion is found whenever one
 * exists. Returns false (row unchanged) when none does.
 */
export function completeRow(
  space: PairSpace,
  row: Int32Array,
  order: readonly number[],
  rank: ValueRanking,
): boolean {
  if (space.forbidden === null) {
    for (const c of order) if ((row[c] as number) < 0) row[c] = firstOf(rank(row, c));
    return true;
  }
  const open = order.filter((c) => (row[c] as number) < 0);
  const solved = search(space, row, open, 0, rank);
  if (!solved) for (const c of open) row[c] = -1;
  return solved;
}

function firstOf(values: Iterable<number>): number {
  for (const v of values) return v;
  throw new RangeError("covering: an axis offered no value");
}

function search(
  space: PairSpace,
  row: Int32Array,
  open: readonly number[],
  at: number,
  rank: ValueRanking,
): boolean {
  if (at === open.length) return true;
  const c = open[at] as number;
  for (const v of rank(row, c)) {
    if (!space.fits(row, c, v)) continue;
    row[c] = v;
    if (stillOpen(space, row, open, at + 1) && search(space, row, open, at + 1, rank)) return true;
  }
  row[c] = -1;
  return false;
}

/** Forward check: every axis still to fill keeps at least one value that fits. */
function stillOpen(
  space: PairSpace,
  row: Int32Array,
  open: readonly number[],
  from: number,
): boolean {
  for (let n = from; n < open.length; n++) {
    const c = open[n] as number;
    let any = false;
    for (let v = 0; v < (space.levels[c] as number) && !any; v++) any = space.fits(row, c, v);
    if (!any) return false;
  }
  return true;
}

/** The pairs that some valid row can hold, and the ones constraints rule out. */
export interface Reachability {
  /** 1 for every pair a valid row can contain: the pairs a covering array must cover. */
  target: Uint8Array;
  targetCount: number;
  forbiddenCount: number;
  /** Pairs not forbidden themselves but in no valid row, because of other forbidden pairs. */
  implied: number[];
}

/** Works out which pairs are coverable: each is checked by finding a valid row that holds it. */
export function reachablePairs(space: PairSpace): Reachability {
  const target = new Uint8Array(space.size);
  if (space.forbidden === null) {
    target.fill(1);
    return { target, targetCount: space.size, forbiddenCount: 0, implied: [] };
  }
  const forbidden = space.forbidden;
  const checked = new Uint8Array(space.size);
  const implied: number[] = [];
  const allAxes = Array.from({ length: space.k }, (_, c) => c);
  const inOrder = Array.from({ length: space.k }, (_, c) =>
    Array.from({ length: space.levels[c] as number }, (_, v) => v),
  );
  const byIndex: ValueRanking = (_row, c) => inOrder[c] as number[];
  const row = new Int32Array(space.k);
  let forbiddenCount = 0;
  for (let p = 0; p < space.size; p++) {
    stillWorking("finding which value pairs a situation can hold");
    if (forbidden[p] === 1) {
      forbiddenCount++;
      continue;
    }
    if (checked[p] === 1) continue;
    row.fill(-1);
    row[space.axisA[p] as number] = space.valueA[p] as number;
    row[space.axisB[p] as number] = space.valueB[p] as number;
    if (!completeRow(space, row, allAxes, byIndex)) {
      implied.push(p);
      continue;
    }
    for (let i = 0; i < space.k; i++) {
      for (let j = i + 1; j < space.k; j++) {
        const q = space.index(i, row[i] as number, j, row[j] as number);
        checked[q] = 1;
        target[q] = 1;
      }
    }
  }
  return {
    target,
    targetCount: space.size - forbiddenCount - implied.length,
    forbiddenCount,
    implied,
  };
}
