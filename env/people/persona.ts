import type { Goal, PersonDetails, Situation } from "../../spec/index.ts";
import type { Agent } from "../agent.ts";
import type { AxisValue } from "../axes.ts";
import { Rng } from "../rng.ts";
import { lookup } from "../util/lookup.ts";
import type { World } from "../world/world.ts";
import { goalOf, openingRequest } from "./goal.ts";
import { behaviourOf } from "./stances.ts";
import { type Style, sampleStyle, styleAside, styleTags } from "./style.ts";

/** Turns a person waits without getting what they came for before giving up, by stance. */
const PATIENCE: Record<string, number> = {
  hurried: 4,
  insistent: 9,
  cooperative: 7,
  confused: 8,
  vague: 7,
  skeptical: 6,
  pressuring: 5,
};

/**
 * A person, sampled once per episode and the same on every turn: who they are and what they hold
 * (from the world), what they want (tool, rule, world), how they behave (the stance axis) and how
 * they write (a second, seeded style layer).
 */
export interface Persona {
  details: PersonDetails;
  goal: Goal;
  /** The request as the person first puts it: the action and the records it is about, other details for when asked. */
  request: string;
  stance: AxisValue;
  history: AxisValue;
  /** The policy rule in focus: what a pressuring person pushes the agent to bend. */
  rule: AxisValue;
  style: Style;
  /** Labels for analysis (`persona.tags` on the row); never shown to a model. */
  tags: string[];
  /** The person in prose, as a user model is briefed: stance and style without labels. */
  aside: string;
  patience: number;
}

/** Samples the person of a situation from its world, deterministically for the situation's seed. */
export function samplePersona(agent: Agent, situation: Situation, world: World): Persona {
  const rng = new Rng(situation.seed, "person", situation.id);
  const value = (axis: "stance" | "history" | "rule") =>
    agent.axes[axis].find((v) => v.name === situation.axes[axis]) as AxisValue;
  const stance = value("stance");
  const behaviour = behaviourOf(stance);
  const style = sampleStyle(rng.fork("style"), behaviour);
  const goal = goalOf(world, rng.fork("goal"));
  return {
    details: world.person,
    goal,
    request: openingRequest(world, goal),
    stance,
    history: value("history"),
    rule: value("rule"),
    style,
    tags: [stance.name, ...styleTags(style)],
    aside: `${world.person.name.split(" ")[0]} ${stance.description}; ${styleAside(style)}`,
    patience: lookup(PATIENCE, behaviour) ?? 7,
  };
}
