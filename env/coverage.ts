import { AXIS_NAMES, type Coordinate, type PairwiseCoverage } from "../spec/index.ts";
import type { Agent } from "./agent.ts";
import { levelsOf, rowOf, valuePairsOf } from "./axes.ts";
import { PairSpace, type Reachability, reachablePairs } from "./covering/index.ts";

/** Each spec's pairs, worked out once: a run counts its coverage with several counters. */
const workedPairs = new WeakMap<Agent, { space: PairSpace; reach: Reachability }>();

/**
 * The pairs of an agent's grid and which of them a valid situation can hold, worked out once per
 * agent: finding the reachable pairs searches the forbidden pairs, seconds on a large grid, and
 * the planner, the run's tally and the report each count with their own counter.
 */
function pairsOf(agent: Agent): { space: PairSpace; reach: Reachability } {
  let pairs = workedPairs.get(agent);
  if (!pairs) {
    const space = new PairSpace({
      levels: levelsOf(agent.axes),
      forbidden: valuePairsOf(agent.axes, agent.forbidden),
    });
    pairs = { space, reach: reachablePairs(space) };
    workedPairs.set(agent, pairs);
  }
  return pairs;
}

/**
 * The pairs a spec's grid must cover (every pair of values on two axes, minus forbidden pairs and
 * those no valid situation can hold), and a counter of which of them a run visited.
 */
export class PairwiseCounter {
  readonly agent: Agent;
  readonly space: PairSpace;
  readonly reach: Reachability;
  readonly #seen: Uint8Array;
  #covered = 0;

  constructor(agent: Agent, pairs?: { space: PairSpace; reach: Reachability }) {
    this.agent = agent;
    const worked = pairs ?? pairsOf(agent);
    this.space = worked.space;
    this.reach = worked.reach;
    this.#seen = new Uint8Array(this.space.size);
  }

  /** A counter of the same pairs with nothing visited, without working the pairs out again. */
  fresh(): PairwiseCounter {
    return new PairwiseCounter(this.agent, this);
  }

  /** Records a visited situation, by coordinate or by value indexes. */
  visit(situation: Coordinate | readonly number[]): void {
    const row = Array.isArray(situation)
      ? situation
      : rowOf(this.agent.axes, situation as Coordinate);
    const { space } = this;
    for (let i = 0; i < AXIS_NAMES.length; i++) {
      for (let j = i + 1; j < AXIS_NAMES.length; j++) {
        const p = space.index(i, row[i] as number, j, row[j] as number);
        if (this.reach.target[p] === 1 && this.#seen[p] === 0) {
          this.#seen[p] = 1;
          this.#covered++;
        }
      }
    }
  }

  /** `{pairs_planned, pairs_covered, fraction}` for everything visited so far. */
  result(): PairwiseCoverage {
    const planned = this.reach.targetCount;
    return {
      pairs_planned: planned,
      pairs_covered: this.#covered,
      fraction: planned === 0 ? 0 : this.#covered / planned,
    };
  }
}
