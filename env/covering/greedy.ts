import type { Rng } from "../rng.ts";
import { stillWorking } from "../util/long-work.ts";
import type { Cover } from "./cover.ts";
import { completeRow, type ValueRanking } from "./rows.ts";

/**
 * Ranks the values of axis c by how many uncovered pairs they would close with the axes already
 * assigned in the row; ties are broken by the stream so that equal candidates are not biased.
 * Values that would put a forbidden pair in the row are left out (a row could not take them).
 * A row mostly takes the first value it is offered, so the best is found by one scan and the
 * rest are sorted only if it is refused.
 */
export function rankByGain(cover: Cover, rng: Rng): ValueRanking {
  const { space, target } = cover;
  // One buffer per axis: a search holds the rankings of different axes at once, never two of one.
  const scores = Array.from(
    { length: space.k },
    (_, c) => new Int32Array(space.levels[c] as number),
  );
  const ties = Array.from(
    { length: space.k },
    (_, c) => new Float64Array(space.levels[c] as number),
  );
  return (row, c) => {
    const n = space.levels[c] as number;
    const score = scores[c] as Int32Array;
    const tie = ties[c] as Float64Array;
    let best = 0;
    for (let v = 0; v < n; v++) {
      let gained = REFUSED;
      if (space.fits(row, c, v)) {
        gained = 0;
        for (let j = 0; j < space.k; j++) {
          const x = row[j] as number;
          if (j === c || x < 0) continue;
          const p = space.index(c, v, j, x);
          if (cover.count(p) === 0 && target[p] === 1) gained++;
        }
      }
      score[v] = gained;
      // Every value draws, fitting or not, so the stream is the same whatever the constraints.
      tie[v] = rng.next();
      if (ranksBefore(score, tie, v, best)) best = v;
    }
    return rankedFrom(best, score, tie);
  };
}

/** Whether value a ranks before value b: more pairs closed, then the lower tie draw. */
function ranksBefore(score: Int32Array, tie: Float64Array, a: number, b: number): boolean {
  const d = (score[a] as number) - (score[b] as number);
  return d > 0 || (d === 0 && (tie[a] as number) < (tie[b] as number));
}

/** The score of a value that would put a forbidden pair in the row. */
const REFUSED = -1;

/** The best value, then (only if asked) the other allowed values in rank order. */
function* rankedFrom(best: number, score: Int32Array, tie: Float64Array): Generator<number> {
  if (score[best] === REFUSED) return;
  yield best;
  const rest: number[] = [];
  for (let v = 0; v < score.length; v++) if (v !== best && score[v] !== REFUSED) rest.push(v);
  rest.sort((a, b) => (ranksBefore(score, tie, a, b) ? -1 : ranksBefore(score, tie, b, a) ? 1 : 0));
  yield* rest;
}

/**
 * Adds rows until every target pair is covered, one row at a time (AETG): each row is the best of
 * `candidates` tries, each try seeded with an uncovered pair of the most under-covered value and
 * completed axis by axis in a random order, each axis taking the value that closes most pairs.
 */
export function greedyRows(cover: Cover, rng: Rng, candidates: number): void {
  const { space } = cover;
  // Without constraints no row is refused, so rows are completed by the lean path.
  const free = space.forbidden === null ? freeCompletion(cover, rng) : null;
  const rank = rankByGain(cover, rng);
  const best = new Int32Array(space.k);
  const row = new Int32Array(space.k);
  const axes = Array.from({ length: space.k }, (_, c) => c);
  while (cover.uncoveredCount > 0) {
    stillWorking("building the covering array");
    let bestGain = -1;
    for (let t = 0; t < candidates; t++) {
      row.fill(-1);
      const seed = seedPair(cover, rng);
      row[space.axisA[seed] as number] = space.valueA[seed] as number;
      row[space.axisB[seed] as number] = space.valueB[seed] as number;
      const order = rng.shuffle(axes);
      let gain: number;
      if (free !== null) gain = free(row, order);
      else if (completeRow(space, row, order, rank)) gain = cover.gain(row);
      else throw new Error(`covering: pair ${seed} was judged reachable but no valid row holds it`);
      if (gain > bestGain) {
        bestGain = gain;
        best.set(row);
      }
    }
    cover.addRow(best);
  }
}

/**
 * {@link completeRow} with {@link rankByGain} for a problem without forbidden pairs, drawing the
 * same numbers and choosing the same values, and returning the row's gain ({@link Cover.gain}).
 * A value's score is the number of placed values it has an uncovered pair with: each value placed
 * adds one to the score of every value in its open list, so an axis reads its values' scores
 * instead of pairing each with every placed axis, and the gain is the sum of the scores taken.
 */
function freeCompletion(cover: Cover, rng: Rng): (row: Int32Array, order: number[]) => number {
  const { space, valueBase, deficit, openBase, openPartner } = cover;
  const { k, levels } = space;
  const score = new Int32Array(deficit.length);
  const tie = new Float64Array(Math.max(...levels));
  const place = (row: Int32Array, c: number, v: number, last: boolean): number => {
    row[c] = v;
    const value = (valueBase[c] as number) + v;
    // The last value placed has no one left to score for.
    if (!last) {
      const from = openBase[value] as number;
      const to = from + (deficit[value] as number);
      for (let s = from; s < to; s++) {
        const partner = openPartner[s] as number;
        score[partner] = (score[partner] as number) + 1;
      }
    }
    return score[value] as number;
  };
  return (row, order) => {
    score.fill(0);
    let gain = 0;
    let left = 0;
    for (let c = 0; c < k; c++) if ((row[c] as number) < 0) left++;
    for (let c = 0; c < k; c++)
      if ((row[c] as number) >= 0) gain += place(row, c, row[c] as number, false);
    for (const c of order) {
      if ((row[c] as number) >= 0) continue;
      const base = valueBase[c] as number;
      let best = 0;
      for (let v = 0; v < (levels[c] as number); v++) {
        tie[v] = rng.next();
        const d = (score[base + v] as number) - (score[base + best] as number);
        if (d > 0 || (d === 0 && (tie[v] as number) < (tie[best] as number))) best = v;
      }
      gain += place(row, c, best, --left === 0);
    }
    return gain;
  };
}

/**
 * An uncovered pair that contains the axis value with the most uncovered pairs (ties at random):
 * a pass for the most, a pass to draw among the values that have it, one draw among its open pairs.
 */
function seedPair(cover: Cover, rng: Rng): number {
  const { deficit } = cover;
  let most = 0;
  let ties = 0;
  for (let value = 0; value < deficit.length; value++) {
    const d = deficit[value] as number;
    if (d > most) {
      most = d;
      ties = 1;
    } else if (d === most) ties++;
  }
  if (most === 0) return -1;
  let pick = rng.int(ties);
  let chosen = 0;
  for (let value = 0; value < deficit.length; value++)
    if (deficit[value] === most && pick-- === 0) {
      chosen = value;
      break;
    }
  return cover.openPairAt(chosen, rng.int(most));
}
