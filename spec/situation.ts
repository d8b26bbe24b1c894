import { z } from "zod";
import { ConditionKindSchema, WorldKindSchema } from "./axes.ts";

/** One point in the six-axis space: a value for every axis. */
export const CoordinateSchema = z.object({
  tool: z.string(),
  rule: z.string(),
  stance: z.string(),
  world: WorldKindSchema,
  condition: ConditionKindSchema,
  history: z.string(),
});
export type Coordinate = z.infer<typeof CoordinateSchema>;

/** A planned situation: a coordinate, its seed and a stable id (spec hash, coordinate, seed). */
export const SituationSchema = z.object({
  id: z.string().regex(/^sit_[0-9a-f]{16}$/),
  axes: CoordinateSchema,
  seed: z.int().min(0),
  /** Index of the grid row this situation came from. */
  cell: z.int().min(0),
  /** Which walk over the grid this is (0 first; later passes reuse cells with fresh seeds). */
  pass: z.int().min(0),
  /** The planned fault when the cold-start flip turned this cell to `ok`. */
  flipped_from: ConditionKindSchema.optional(),
});
export type Situation = z.infer<typeof SituationSchema>;

/** Pairwise coverage of the six-axis grid, counted on what a run visited. */
export const PairwiseCoverageSchema = z.object({
  pairs_planned: z.int().min(0),
  pairs_covered: z.int().min(0),
  fraction: z.number().min(0).max(1),
  /**
   * On a run: the pairs of rows that really touched their situation (the situation's tool ran and
   * the condition's fault fired), beside the pairs the plan visited. Absent on a plan.
   */
  pairs_touched: z.int().min(0).optional(),
  touched_fraction: z.number().min(0).max(1).optional(),
});
export type PairwiseCoverage = z.infer<typeof PairwiseCoverageSchema>;

/** Coverage figures reported on a plan and on a dataset. */
export const CoverageSchema = z.object({ pairwise: PairwiseCoverageSchema });
export type Coverage = z.infer<typeof CoverageSchema>;
