import { Rng, type Seed } from "../rng.ts";
import { type Bounds, boundsOf } from "./bound.ts";
import { Cover } from "./cover.ts";
import { greedyRows, rankByGain } from "./greedy.ts";
import { completeRow, type Reachability, reachablePairs } from "./rows.ts";
import { type CoveringProblem, PairSpace, type ValuePair } from "./space.ts";
import { REMOVAL_CHECKPOINTS, repair } from "./tabu.ts";

export { type Bounds, binaryBound, boundsOf } from "./bound.ts";
export { MinHeap } from "./heap.ts";
export { coverageOrder, type OrderInput } from "./order.ts";
export type { Reachability } from "./rows.ts";
export { reachablePairs } from "./rows.ts";
export type { CoveringProblem, ValuePair } from "./space.ts";
export { PairSpace } from "./space.ts";

/** How hard to search for a smaller array. */
export interface CoveringOptions {
  seed: Seed;
  /** Multiplies every search budget; 0 keeps the greedy array as built. Default 1. */
  effort?: number;
}

/** A pairwise covering array and the figures that say how good it is. */
export interface CoveringArray {
  /** One entry per row: a value index for every axis. */
  rows: number[][];
  /** No array covering the target pairs can have fewer rows than this ({@link boundsOf}). */
  lowerBound: number;
  /** Pairs every array must cover: all pairs minus forbidden and implied ones. */
  pairsTarget: number;
  pairsForbidden: number;
  /** Pairs not forbidden themselves but in no valid row, because of other forbidden pairs. */
  impliedConflicts: ValuePair[];
  /** Rows of the greedy array before the search removed any. */
  greedyRows: number;
  /** Tabu iterations spent removing rows. */
  searchIterations: number;
}

/** Candidate rows the greedy start compares per row (AETG's own choice). */
const CANDIDATES = 50;
/**
 * Tabu tenure, measured on the benchmark grids (1–40 tried): a short one reached the smallest arrays.
 * Its edge is sharp: removing the 21st row of 4^1 3^39 2^35 (64 tries of 400,000 steps) succeeded
 * 19 times with 2, twice with 3, never with 1 or 4.
 */
const TENURE = 2;

/**
 * Builds a pairwise covering array: a greedy array first, then rows removed one at a time, each
 * removal repaired by tabu search, until a removal fails or the array meets the lower bound
 * ({@link boundsOf}); when the two largest axes set the bound, it is tried directly with those two
 * axes fixed to their cross product. Deterministic for a seed.
 */
export function coveringArray(problem: CoveringProblem, options: CoveringOptions): CoveringArray {
  const space = new PairSpace(problem);
  return coveringArrayOver(space, reachablePairs(space), options);
}

/** {@link coveringArray} over a pair space whose reachable pairs are already worked out. */
export function coveringArrayOver(
  space: PairSpace,
  reach: Reachability,
  options: CoveringOptions,
): CoveringArray {
  if (reach.targetCount === 0)
    throw new RangeError("covering: the forbidden pairs leave no valid row");
  const rng = new Rng(options.seed, "covering");
  const effort = options.effort ?? 1;
  const bounds = boundsOf(space, reach.target);
  const lowerBound = bounds.lower;

  const greedy = new Cover(space, reach);
  greedyRows(greedy, rng.fork("greedy"), CANDIDATES);
  const greedyCount = greedy.n;
  let best = rowsOf(greedy);
  let iterations = 0;
  const budget = Math.round(effort * iterationBudget(space));

  // The search stops as soon as it meets the lower bound: no smaller array exists.
  if (
    budget > 0 &&
    bounds.block === lowerBound &&
    best.length > lowerBound &&
    best.length <= 1.5 * lowerBound
  ) {
    const attempt = atBound(space, reach, bounds, rng.fork("bound"), budget * 4);
    iterations += attempt.iterations;
    if (attempt.rows) best = attempt.rows;
  }

  const shrink = rng.fork("shrink");
  // A repaired cover holds exactly the rows of `best`, in order, so the next removal starts from it.
  const cover = budget > 0 && best.length > lowerBound ? coverOf(space, reach, best) : null;
  while (cover !== null && best.length > lowerBound) {
    cover.removeRow(fewestUniquePairs(cover, shrink));
    const result = repair(cover, {
      rng: shrink,
      maxIterations: budget,
      tenure: TENURE,
      checkpoints: REMOVAL_CHECKPOINTS,
    });
    iterations += result.iterations;
    if (!result.covered) break;
    best = rowsOf(cover);
  }

  return {
    rows: best.map((row) => Array.from(row)),
    lowerBound,
    pairsTarget: reach.targetCount,
    pairsForbidden: reach.forbiddenCount,
    impliedConflicts: reach.implied.map((p) => ({
      axisA: space.axisA[p] as number,
      valueA: space.valueA[p] as number,
      axisB: space.axisB[p] as number,
      valueB: space.valueB[p] as number,
    })),
    greedyRows: greedyCount,
    searchIterations: iterations,
  };
}

/**
 * At a lower bound set by the binding axes' block, every row holds a different target pair of them, so those two
 * columns are exactly that set of pairs; only the other axes are searched.
 */
function atBound(
  space: PairSpace,
  reach: ReturnType<typeof reachablePairs>,
  bounds: Bounds,
  rng: Rng,
  maxIterations: number,
): { rows: Int32Array[] | null; iterations: number } {
  const [bi, bj] = bounds.binding;
  const cover = new Cover(space, reach);
  const rank = rankByGain(cover, rng);
  const { start, count } = space.block(bi, bj);
  const row = new Int32Array(space.k);
  for (let p = start; p < start + count; p++) {
    if (reach.target[p] !== 1) continue;
    row.fill(-1);
    row[bi] = space.valueA[p] as number;
    row[bj] = space.valueB[p] as number;
    const order = rng.shuffle(Array.from({ length: space.k }, (_, c) => c));
    if (!completeRow(space, row, order, rank)) return { rows: null, iterations: 0 };
    cover.addRow(row);
  }
  const frozen = new Uint8Array(space.k);
  frozen[bi] = 1;
  frozen[bj] = 1;
  const result = repair(cover, { rng, maxIterations, tenure: TENURE, frozen });
  return { rows: result.covered ? rowsOf(cover) : null, iterations: result.iterations };
}

function fewestUniquePairs(cover: Cover, rng: Rng): number {
  let chosen = 0;
  let fewest = Number.POSITIVE_INFINITY;
  let ties = 0;
  for (let r = 0; r < cover.n; r++) {
    const u = cover.uniquePairs(r);
    if (u < fewest) {
      fewest = u;
      chosen = r;
      ties = 1;
    } else if (u === fewest && rng.int(++ties) === 0) chosen = r;
  }
  return chosen;
}

/** Iterations allowed per row removed: enough for the classic benchmarks, small for six axes. */
function iterationBudget(space: PairSpace): number {
  return 2000 + 20 * space.size;
}

function coverOf(
  space: PairSpace,
  reach: ReturnType<typeof reachablePairs>,
  rows: Int32Array[],
): Cover {
  const cover = new Cover(space, reach);
  for (const row of rows) cover.addRow(row);
  return cover;
}

function rowsOf(cover: Cover): Int32Array[] {
  return Array.from({ length: cover.n }, (_, r) => cover.row(r));
}
