import type { Coordinate } from "../../spec/index.ts";
import type { Agent } from "../agent.ts";

/** Whether a coordinate breaks none of the spec's forbidden pairs (rules scoped to tools among them). */
export function allowed(agent: Agent, coordinate: Coordinate): boolean {
  return agent.forbidden.every((pair) => {
    const named = Object.entries(pair) as [keyof Coordinate, string][];
    return !named.every(([axis, value]) => coordinate[axis] === value);
  });
}
