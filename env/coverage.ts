import { AXIS_NAMES, type Coordinate, type PairwiseCoverage } from "../spec/index.ts";
import type { Agent } from "./agent.ts";
import { levelsOf, rowOf, valuePairsOf } from "./axes.ts";
import { PairSpace, type Reachability, reachablePairs } from "./covering/index.ts";

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
    this.space =
      pairs?.space ??
      new PairSpace({
        levels: levelsOf(agent.axes),
        forbidden: valuePairsOf(agent.axes, agent.forbidden),
      });
    this.reach = pairs?.reach ?? reachablePairs(this.space);
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
