import { AXIS_NAMES, type AxisName, type Coordinate, type Situation } from "../../spec/index.ts";
import type { Agent } from "../agent.ts";
import { situationId } from "../plan.ts";
import type { Rng } from "../rng.ts";
import { allowed } from "./allowed.ts";

/** One move of a failing situation: the axis moved, and its value before and after. */
export interface Mutation {
  parent: Situation;
  child: Situation;
  axis: AxisName;
  from: string;
  to: string;
}

/**
 * Children of a failing situation, each with one axis moved to another value of that axis (the
 * tool, the rule, the person's stance, the world, the tool's condition, the history), so the
 * search learns which part of the situation the failure needs: a failure of wording (a stance, a
 * history) keeps failing when the tool or the world moves, and stops when the wording does.
 * Axes are taken in a random order, one child each, up to `count`; children the spec forbids are
 * skipped. Each child has a fresh seed from `rng`.
 */
export function mutations(agent: Agent, parent: Situation, count: number, rng: Rng): Mutation[] {
  const out: Mutation[] = [];
  for (const axis of rng.shuffle(AXIS_NAMES)) {
    if (out.length >= count) break;
    const from = parent.axes[axis];
    const others = agent.axes[axis].map((value) => value.name).filter((name) => name !== from);
    for (const to of rng.shuffle(others)) {
      const axes = { ...parent.axes, [axis]: to } as Coordinate;
      if (!allowed(agent, axes)) continue;
      const seed = rng.uint32();
      out.push({
        parent,
        child: {
          id: situationId(agent.hash, axes, seed),
          axes,
          seed,
          cell: parent.cell,
          pass: parent.pass,
        },
        axis,
        from,
        to,
      });
      break;
    }
  }
  return out;
}
