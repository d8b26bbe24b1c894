import type { Situation } from "../../spec/index.ts";
import type { Agent } from "../agent.ts";
import { type Baseline, createWorld, World, type WorldStart } from "./world.ts";

/**
 * Situations whose starting worlds are kept per agent: the groups of a batch in flight, or a
 * server's whole planned grid (64 by default), which a trainer resets to epoch after epoch. A
 * start is tens of kilobytes, so this many hold a few megabytes.
 */
export const KEPT_STARTS = 256;

/**
 * Starting worlds lately built, per agent, by situation id and seed: the situation as given (to
 * tell it from another under the same id) and as the world checked it.
 */
const kept = new WeakMap<
  Agent,
  Map<string, WorldStart & { given: string; situation: Situation }>
>();

/**
 * The world a situation starts in, and its baseline: started from a kept start of the same
 * situation and seed when there is one, else built, and kept when `keep` says another episode of
 * it follows (the rollouts of an RL group play one world). A world started from a kept start holds
 * the same records in the same order as a build, so an episode plays the same either way. Starts
 * are kept only when asked: one nobody uses again outlives a few collections and costs more than
 * it saves. A start used without `keep` (a group's last rollout) is let go; the least recently
 * used give way past {@link KEPT_STARTS}.
 */
export function startingWorld(
  agent: Agent,
  situation: Situation,
  keep: boolean,
): { world: World; baseline: Baseline } {
  let starts = kept.get(agent);
  if (!starts) {
    starts = new Map();
    kept.set(agent, starts);
  }
  const key = `${situation.id}\u0000${situation.seed}`;
  // The same id with other coordinates is another situation (ids are the caller's to give). It is
  // written out only to compare or keep: a world built and let go (most rows) never needs it.
  const start = starts.get(key);
  const written = start || keep ? JSON.stringify(situation) : "";
  if (start && start.given === written) {
    starts.delete(key);
    if (keep) starts.set(key, start);
    return {
      world: World.fromStart(agent, start.situation, start.situation.seed, start),
      baseline: start.baseline,
    };
  }
  const world = createWorld({ spec: agent, situation });
  const baseline = world.baseline();
  if (!keep) return { world, baseline };
  // Another situation under a kept id and seed takes its place as the newest.
  starts.delete(key);
  if (starts.size >= KEPT_STARTS) starts.delete(starts.keys().next().value as string);
  starts.set(key, {
    given: written,
    situation: world.situation,
    baseline,
    person: world.person,
    state: world.state,
  });
  return { world, baseline };
}
