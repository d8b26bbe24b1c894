import { z } from "zod";
import { CoverageSchema } from "./situation.ts";

/** Substitutions a run made, recorded on the data so that none is silent. */
export const DegradedSchema = z.object({
  /** One model played more than one role. */
  same_model: z.object({ model: z.string(), roles: z.array(z.string()) }).optional(),
  /** The situation writer failed and the offline writer took over for these rows. */
  generator_fallback: z
    .object({
      rows: z.int().min(0),
      last_error: z.string(),
      /** The spec itself was drafted from a sentence by the offline drafter in a model's place: which template, chosen by which words, and why. */
      drafter: z
        .object({
          sentence: z.string(),
          template: z.string(),
          matched: z.array(z.string()),
          behaviour_rule: z.string().nullable(),
          reason: z.string(),
        })
        .optional(),
    })
    .optional(),
  /** The agent or the person failed (a model backend error, a refused turn) and these rows ended early. */
  role_errors: z.object({ rows: z.int().min(0), last_error: z.string() }).optional(),
});
export type Degraded = z.infer<typeof DegradedSchema>;

/** Where a share of a run's rows went, and why: a failing cell of the traces, or the plain grid. */
export const BudgetEntrySchema = z.object({
  cell: z.string(),
  rows: z.int().min(0),
  reason: z.string(),
  weight: z.number().min(0),
});

/** One batch of a graded search: its rows, how many were mutations, how many failed the grader. */
export const SearchBatchSchema = z.object({
  rows: z.int().min(0),
  mutations: z.int().min(0),
  failing: z.int().min(0),
});

/** What the run spent and tried: the row budget, search mutations, and the writer's errors. */
export const SearchReportSchema = z.object({
  budget: z.int().min(0),
  /** With traces: where every row of the budget went, and why. */
  allocation: z.array(BudgetEntrySchema).optional(),
  /** With a grader: parent → child, the axis moved, both values and both rewards. */
  mutations: z.array(z.record(z.string(), z.unknown())),
  /** With a grader: each batch's rows, mutations and failures. */
  batches: z.array(SearchBatchSchema).optional(),
  writer_errors: z.array(z.string()),
});

/** What the search part of a run decided before or while its rows were played. */
export const RunSearchSchema = SearchReportSchema.pick({
  allocation: true,
  mutations: true,
  batches: true,
}).partial();
export type RunSearch = z.infer<typeof RunSearchSchema>;

/**
 * A dataset's search report: the run's own, from its sidecar (`recorded`), or for rows with no
 * sidecar a plain statement that none was recorded (`unrecorded`), never invented figures.
 */
export const DatasetSearchSchema = z.discriminatedUnion("status", [
  SearchReportSchema.extend({ status: z.literal("recorded") }),
  z.object({ status: z.literal("unrecorded"), reason: z.string() }),
]);
export type DatasetSearch = z.infer<typeof DatasetSearchSchema>;

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

/** One quality figure: how many of how many, and the share (null when there was nothing to count). */
export const QualityFigureSchema = z.object({
  count: z.int().min(0),
  of: z.int().min(0),
  fraction: z.number().min(0).max(1).nullable(),
});
export type QualityFigure = z.infer<typeof QualityFigureSchema>;

/** What a run measured about its own data (see the README's "Data quality"). */
export const QualitySchema = z.object({
  rows: z.int().min(0),
  /** Plain rows (normal world, ok condition, no slip) in which the situation's tool really ran. */
  situation_tool_exercised: QualityFigureSchema,
  /** Rows in which a role repeated itself: the person's same words twice, the agent's same message or call three times (retries of calls answered with a retryable error not counted). */
  loops: QualityFigureSchema,
  /** Read answers that found nothing, in normal-world rows with an honest person. */
  empty_lookups: QualityFigureSchema,
  /** Tool calls that put a sentence into an argument holding a detail (an id, a name, a code). */
  sentence_arguments: QualityFigureSchema,
  /** Writes under a confirmation rule preceded by a go-ahead question and a yes (deliberate slips left out). */
  confirmed_writes: QualityFigureSchema,
  /** Distinct five-word frames among the rows' opening messages. */
  distinct_openings: QualityFigureSchema,
  /** Plain rows whose person got what they came for, by the world's records (`episode.outcome`). */
  goal_reached: QualityFigureSchema,
  /**
   * Tool answers (errors and answers spoiled by a planned fault left out) that do not fit their
   * tool's output schema, each object closed to the fields it names. A sidecar written before this
   * figure existed reads as nothing counted.
   */
  answers_off_schema: QualityFigureSchema.default({ count: 0, of: 0, fraction: null }),
  /**
   * The agent's tool calls the world refused as malformed (`invalid_arguments`,
   * `placeholder_argument`), a slip's calls among them. A sidecar written before this figure
   * existed reads as nothing counted.
   */
  refused_calls: QualityFigureSchema.default({ count: 0, of: 0, fraction: null }),
  /** Tools some row was planned for that no row ever called. */
  tools_never_called: z.array(z.string()),
});
export type Quality = z.infer<typeof QualitySchema>;

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
  quality: QualitySchema.optional(),
  degraded: DegradedSchema,
  warnings: z.array(z.string()),
  search: SearchReportSchema,
  /** One shard of a run (`--shard i/n`): its episodes, and the run's own degraded and warnings, for `rehearse merge`. */
  shard: z
    .object({
      index: z.int().min(0),
      count: z.int().min(1),
      first: z.int().min(0),
      end: z.int().min(0),
      run: z.object({
        degraded: DegradedSchema,
        warnings: z.array(z.string()),
        logprobs: z.boolean(),
        search: RunSearchSchema.optional(),
      }),
    })
    .optional(),
});
export type DatasetMeta = z.infer<typeof DatasetMetaSchema>;
