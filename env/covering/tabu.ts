import type { Rng } from "../rng.ts";
import { stillWorking } from "../util/long-work.ts";
import { type Cover, INVALID } from "./cover.ts";

/** Settings of one repair run. */
export interface RepairOptions {
  rng: Rng;
  /** Iterations before giving up. */
  maxIterations: number;
  /** Iterations a changed cell stays untouchable. */
  tenure: number;
  /** Axes whose values must not change (1 = frozen). */
  frozen?: Uint8Array;
  /** Points at which a repair too far from covering gives up early (none: it runs its whole budget). */
  checkpoints?: readonly Checkpoint[];
}

/** At `share` of its budget, a repair that has never had `uncovered` or fewer pairs left gives up. */
export interface Checkpoint {
  share: number;
  uncovered: number;
}

/**
 * When a row removal is hopeless. A removal that fails spends its whole budget, and short of the
 * lower bound the last one fails: 62–90 % of the search on the large classic grids. Failing repairs
 * stay far from covering, while those that succeed get close early.
 * - From 10 %, each limit is the most pairs a successful removal still had open, plus two: over
 *   14 grids × 30 seeds (2,808 successful removals), at most 11, 7, 7, 5 and 2 at 10, 15, 25, 50 and
 *   75 % of the budget. On 840 runs with other seeds no array came out larger, and they took a
 *   quarter less time.
 * - Before 10 %, hopeless removals are told apart by a wide margin. Over 14 grids × 56 seeds (5,650
 *   successful removals) at most 28, 23 and 14 pairs were open at 1, 2 and 5 %. Limits of the most
 *   seen plus two cost one array a row: its removal had 28 and 23 open at 1 and 2 % and still
 *   succeeded. The hopeless last removal of 4^1 3^39 2^35 has 39 to 52 open at 1 % and 44 or more
 *   at 5 %, and it used to run to 10 %: a fifth of that grid's search at seed 1.
 * - At 60 %, the most seen plus one. Over 14 grids × 70 seeds (7,013 successful removals) at most
 *   4 pairs were open there. The hopeless last removal of 4^15 3^17 2^29 (to 27 rows, one below the
 *   best known) has 5 to 8 open at 60 % and used to run to 75 %; that grid's search now takes 18 %
 *   fewer steps at the median of seeds 1–8, and none of the 980 arrays came out larger.
 */
export const REMOVAL_CHECKPOINTS: readonly Checkpoint[] = [
  { share: 0.01, uncovered: 36 },
  { share: 0.02, uncovered: 33 },
  { share: 0.05, uncovered: 21 },
  { share: 0.1, uncovered: 13 },
  { share: 0.15, uncovered: 9 },
  { share: 0.25, uncovered: 9 },
  { share: 0.5, uncovered: 7 },
  { share: 0.6, uncovered: 5 },
  { share: 0.75, uncovered: 4 },
];

/** Moves back a search looks for a state it has been in (a power of two): loops seen were three moves long. */
const RECENT_STATES = 8;
/** Moves in a row that each return to a recent state before the search takes it for a loop. */
const LOOP_REVISITS = 24;

/**
 * Tabu search at a fixed row count (after Nurmela): take an uncovered pair, look at every row that
 * already holds one of its two values, and make the single change that leaves the fewest pairs
 * uncovered. Recently changed cells are tabu unless the change beats the best state seen; a walk
 * caught in a loop ({@link LOOP_REVISITS}) makes one random covering change instead. Returns
 * whether every target pair ended up covered.
 */
export function repair(
  cover: Cover,
  options: RepairOptions,
): { covered: boolean; iterations: number } {
  const { space } = cover;
  const { rng, maxIterations, tenure } = options;
  const frozen = options.frozen ?? new Uint8Array(space.k);
  const k = space.k;
  const tabuUntil = new Float64Array(cover.n * k);
  const checkpoints = options.checkpoints ?? [];
  let next = 0;
  let nextAt = checkpointAt(checkpoints, next, maxIterations);
  let best = cover.uncoveredCount;
  // The fingerprints after the last few moves. A state seen again now and then is the tabu walk's
  // own back and forth; one seen again on every move for a while is a loop its short tabu list
  // cannot break (seen: three moves round one uncovered pair for a whole budget).
  const recent = new Int32Array(RECENT_STATES);
  let revisits = 0;
  for (let iteration = 1; iteration <= maxIterations; iteration++) {
    if (cover.uncoveredCount === 0) return { covered: true, iterations: iteration - 1 };
    if (cover.uncoveredCount < best) best = cover.uncoveredCount;
    revisits = revisited(recent, iteration, cover.fingerprint) ? revisits + 1 : 0;
    // A while: in a tiny budget two checkpoints can fall on one iteration.
    while (iteration === nextAt) {
      if (best > (checkpoints[next] as Checkpoint).uncovered)
        return { covered: false, iterations: iteration - 1 };
      nextAt = checkpointAt(checkpoints, ++next, maxIterations);
    }
    stillWorking("making the covering array smaller");
    const p = cover.uncovered[rng.int(cover.uncoveredCount)] as number;
    const i = space.axisA[p] as number;
    const a = space.valueA[p] as number;
    const j = space.axisB[p] as number;
    const b = space.valueB[p] as number;
    if (revisits >= LOOP_REVISITS) {
      revisits = 0;
      anyMove(cover, rng, frozen, i, a, j, b, tabuUntil, iteration + tenure);
      continue;
    }
    let bestDelta = INVALID;
    let moveRow = -1;
    let moveAxis = -1;
    let moveValue = -1;
    let ties = 0;
    // The rows holding a or b, in row order, from the two values' row sets.
    const { rowBits, words, valueBase, deficit, losses, uncoveredCount } = cover;
    const withA = ((valueBase[i] as number) + a) * words;
    const withB = ((valueBase[j] as number) + b) * words;
    // A row holding a would take b, and one holding b would take a: at most this many pairs to gain.
    const openOfB = deficit[(valueBase[j] as number) + b] as number;
    const openOfA = deficit[(valueBase[i] as number) + a] as number;
    for (let w = 0, rest = 0; w < words; w++) {
      for (rest = (rowBits[withA + w] as number) | (rowBits[withB + w] as number); rest !== 0; ) {
        const low = rest & -rest;
        rest ^= low;
        const r = (w << 5) + 31 - Math.clz32(low);
        const holdsA = ((rowBits[withA + w] as number) & low) !== 0;
        const c = holdsA ? j : i;
        const v = holdsA ? b : a;
        if (frozen[c] === 1) continue;
        // A move whose least possible change could neither be taken nor tie is not worked out.
        const tabu = (tabuUntil[r * k + c] as number) > iteration;
        const least = (losses[r * k + c] as number) - (holdsA ? openOfB : openOfA);
        if (least > bestDelta || (tabu && uncoveredCount + least >= best)) continue;
        const d = cover.delta(r, c, v);
        if (d === INVALID) continue;
        if (tabu && uncoveredCount + d >= best) continue;
        if (d < bestDelta) {
          bestDelta = d;
          ties = 1;
          moveRow = r;
          moveAxis = c;
          moveValue = v;
        } else if (d === bestDelta && rng.int(++ties) === 0) {
          moveRow = r;
          moveAxis = c;
          moveValue = v;
        }
      }
    }
    if (moveRow >= 0) {
      cover.set(moveRow, moveAxis, moveValue);
      tabuUntil[moveRow * k + moveAxis] = iteration + tenure;
    } else {
      placePair(cover, rng, frozen, i, a, j, b, tabuUntil, iteration + tenure);
    }
  }
  return { covered: cover.uncoveredCount === 0, iterations: maxIterations };
}

/** Whether `state` is among the `recent` ones; it takes the slot of the oldest. */
function revisited(recent: Int32Array, iteration: number, state: number): boolean {
  let seen = false;
  for (let s = 0; s < RECENT_STATES; s++) if (recent[s] === state) seen = true;
  recent[iteration & (RECENT_STATES - 1)] = state;
  return seen;
}

/** The iteration of checkpoint `at` within a budget, or 0 past the last one. */
function checkpointAt(checkpoints: readonly Checkpoint[], at: number, budget: number): number {
  const checkpoint = checkpoints[at];
  return checkpoint ? Math.max(1, Math.round(checkpoint.share * budget)) : 0;
}

/** No row holds either value: write both into a random row where that is allowed. */
function placePair(
  cover: Cover,
  rng: Rng,
  frozen: Uint8Array,
  i: number,
  a: number,
  j: number,
  b: number,
  tabuUntil: Float64Array,
  until: number,
): void {
  const k = cover.space.k;
  const start = rng.int(cover.n);
  for (let step = 0; step < cover.n; step++) {
    const r = (start + step) % cover.n;
    if ((frozen[i] === 1 && cover.at(r, i) !== a) || (frozen[j] === 1 && cover.at(r, j) !== b))
      continue;
    const old = cover.at(r, i);
    if (cover.delta(r, i, a) === INVALID) continue;
    cover.set(r, i, a);
    if (cover.delta(r, j, b) === INVALID) {
      cover.set(r, i, old);
      continue;
    }
    cover.set(r, j, b);
    tabuUntil[r * k + i] = until;
    tabuUntil[r * k + j] = until;
    return;
  }
}

/**
 * Out of a loop: one change, drawn at random among those that cover the pair (i = a, j = b) in a
 * row holding one of its values, whatever it costs and tabu or not; the pair is placed anew when
 * there is none.
 */
function anyMove(
  cover: Cover,
  rng: Rng,
  frozen: Uint8Array,
  i: number,
  a: number,
  j: number,
  b: number,
  tabuUntil: Float64Array,
  until: number,
): void {
  let chosen = -1;
  let chosenAxis = -1;
  let ties = 0;
  for (let r = 0; r < cover.n; r++) {
    const holdsA = cover.at(r, i) === a;
    if (!holdsA && cover.at(r, j) !== b) continue;
    const c = holdsA ? j : i;
    if (frozen[c] === 1 || cover.delta(r, c, holdsA ? b : a) === INVALID) continue;
    if (rng.int(++ties) === 0) {
      chosen = r;
      chosenAxis = c;
    }
  }
  if (chosen < 0) {
    placePair(cover, rng, frozen, i, a, j, b, tabuUntil, until);
    return;
  }
  cover.set(chosen, chosenAxis, chosenAxis === j ? b : a);
  tabuUntil[chosen * cover.space.k + chosenAxis] = until;
}
