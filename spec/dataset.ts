import { z } from "zod";
import { CoverageSchema } from "./situation.ts";

/** Substitutions a run made, recorded on the data so that none is silent. */
export const DegradedSchema = z.object({
  /** One model played more than one role. */
  same_model: z.object({ model: z.string(), roles: z.array(z.string()) }).optional(),
  /** The situation writer failed and the offline writer took over for these rows. */
  generator_fallback: z.object({ rows: z.int().min(0), last_error: z.string() }).optional(),
  /** The agent or the person failed (a model backend error, a refused turn) and these rows ended early. */
  role_errors: z.object({ rows: z.int().min(0), last_error: z.string() }).optional(),
});
export type Degraded = z.infer<typeof DegradedSchema>;

/** What the run spent and tried: the row budget, search mutations, and the writer's errors. */
export const SearchReportSchema = z.object({
  budget: z.int().min(0),
  mutations: z.array(z.record(z.string(), z.unknown())),
  writer_errors: z.array(z.string()),
});

/** The options a run was made with: everything that decides its rows. */
export const RunOptionsSchema = z.object({
  rows: z.int().min(1),
  seed: z.union([z.int().min(0), z.string()]),
  fault_rate: z.number().min(0).max(1),
  prefer_success: z.boolean(),
  max_turns: z.int().min(1),
  /** Rollouts of each situation (the file holds rows × rollouts conversations). */
  rollouts: z.int().min(1),
  slip_rate: z.number().min(0).max(1),
  agent: z.string(),
  simulator: z.string(),
  user_model: z.string(),
});
export type RunOptions = z.infer<typeof RunOptionsSchema>;

/** The sidecar `<file>.meta.json` of a dataset: how it was made and what it covers. */
export const DatasetMetaSchema = z.object({
  version: z.literal(1),
  generator: z.string(),
  spec: z.unknown(),
  spec_hash: z.string(),
  options: RunOptionsSchema,
  rows: z.int().min(0),
  complete: z.boolean(),
  coverage: CoverageSchema,
  degraded: DegradedSchema,
  warnings: z.array(z.string()),
  search: SearchReportSchema,
});
export type DatasetMeta = z.infer<typeof DatasetMetaSchema>;
