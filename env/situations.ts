import type { ResetRequest, Situation, Split } from "../spec/index.ts";
import type { Agent } from "./agent.ts";
import { situationId } from "./plan.ts";
import { Rng } from "./rng.ts";
import { InputError } from "./util/errors.ts";
import { fnv1a } from "./util/hash.ts";

/** Where an episode's situations come from: what a reset asks for, or a refusal naming the field. */
export interface SituationSource {
  pick(request: ResetRequest): Situation;
}

/**
 * The split a situation belongs to, from a stable hash of its id: about 80% `train`, 10%
 * `holdout`, 10% `eval`, the same whatever else the grid holds.
 */
export function splitOf(situation: Pick<Situation, "id">): Split {
  const bucket = fnv1a(situation.id) % 10;
  return bucket === 0 ? "eval" : bucket === 1 ? "holdout" : "train";
}

/** The same coordinate with another seed: a fresh world and person, under its own id. */
export function reseeded(agent: Agent, situation: Situation, seed: number): Situation {
  if (seed === situation.seed) return situation;
  return { ...situation, seed, id: situationId(agent.hash, situation.axes, seed) };
}

/** An episode's one situation: a reset may reseed it, and may name it, but not ask for another. */
export function oneSituation(agent: Agent, situation: Situation): SituationSource {
  return {
    pick(request) {
      const problems = [];
      if (request.task_id !== undefined && request.task_id !== situation.id)
        problems.push({
          path: "task_id",
          message: `this episode plays ${situation.id} only; expected that id or none (serve a grid to choose among situations)`,
        });
      if (request.split !== undefined && request.split !== splitOf(situation))
        problems.push({
          path: "split",
          message: `this episode's situation is in ${splitOf(situation)}, not ${request.split}`,
        });
      if (problems.length > 0) throw new InputError("reset request", problems);
      return request.seed === undefined ? situation : reseeded(agent, situation, request.seed);
    },
  };
}

/**
 * A grid of planned situations to deal from: by id (`task_id`), drawn by `seed`, or in plan
 * order, within a `split` when one is asked for. Dealing in order keeps a cursor per split.
 */
export class SituationPool implements SituationSource {
  readonly #agent: Agent;
  readonly #byId = new Map<string, Situation>();
  readonly #bySplit = new Map<Split | "all", Situation[]>();
  readonly #cursor = new Map<Split | "all", number>();

  constructor(agent: Agent, situations: Iterable<Situation>) {
    this.#agent = agent;
    const all: Situation[] = [];
    for (const situation of situations) {
      if (this.#byId.has(situation.id)) continue;
      this.#byId.set(situation.id, situation);
      all.push(situation);
      const split = splitOf(situation);
      const part = this.#bySplit.get(split) ?? [];
      part.push(situation);
      this.#bySplit.set(split, part);
    }
    if (all.length === 0) throw new RangeError("SituationPool: expected at least one situation");
    this.#bySplit.set("all", all);
  }

  /** How many situations each split holds. */
  get sizes(): Record<Split, number> {
    return {
      train: this.#bySplit.get("train")?.length ?? 0,
      holdout: this.#bySplit.get("holdout")?.length ?? 0,
      eval: this.#bySplit.get("eval")?.length ?? 0,
    };
  }

  pick(request: ResetRequest): Situation {
    if (request.task_id !== undefined) return this.#named(request.task_id, request);
    const key = request.split ?? "all";
    const part = this.#bySplit.get(key) ?? [];
    if (part.length === 0)
      throw new InputError("reset request", [
        {
          path: "split",
          message: `${key} holds no situation of this grid (${JSON.stringify(this.sizes)}); expected one of the splits that has some`,
        },
      ]);
    if (request.seed !== undefined) {
      const drawn = part[new Rng(request.seed, "reset", key).int(part.length)] as Situation;
      return reseeded(this.#agent, drawn, request.seed);
    }
    const at = this.#cursor.get(key) ?? 0;
    this.#cursor.set(key, (at + 1) % part.length);
    return part[at] as Situation;
  }

  #named(id: string, request: ResetRequest): Situation {
    const situation = this.#byId.get(id);
    if (!situation)
      throw new InputError("reset request", [
        {
          path: "task_id",
          message: `no situation ${JSON.stringify(id)} in this grid of ${this.#byId.size}; expected the id of a planned situation (sit_…)`,
        },
      ]);
    if (request.split !== undefined && request.split !== splitOf(situation))
      throw new InputError("reset request", [
        { path: "split", message: `${id} is in ${splitOf(situation)}, not ${request.split}` },
      ]);
    return request.seed === undefined ? situation : reseeded(this.#agent, situation, request.seed);
  }
}
