export { Agent } from "./agent.ts";
export { type Axes, type AxisValue, NO_RULE } from "./axes.ts";
export { PairwiseCounter } from "./coverage.ts";
export {
  type CoveringArray,
  type CoveringOptions,
  type CoveringProblem,
  coveringArray,
  type ValuePair,
} from "./covering/index.ts";
export {
  DEFAULT_FAULT_RATE,
  type FlipReport,
  type Plan,
  type PlanOptions,
  planSituations,
  situationId,
} from "./plan.ts";
export { Rng, type Seed } from "./rng.ts";
export { SpecError, type SpecIssue } from "./spec-error.ts";
export { createWorld, type ToolAnswer, World, type WorldOptions } from "./world/index.ts";
