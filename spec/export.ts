import { z } from "zod";
import { CalibrationSchema } from "./grade.ts";

/** The most each count option of the exports takes: far past any real run, refused by name above. */
export const EXPORT_LIMITS = {
  /** Rollouts in one RL group (the same bound as rollouts per situation). */
  k: 1024,
} as const;

/** The near-copy and semantic thresholds of the leakage check (the brief's figures). */
export const DECONTAMINATION = {
  /** Words in one n-gram shared with an eval text (the Llama 2 rule uses token n-grams). */
  ngram: 8,
  /** Share of the row's words one eval text must cover with shared n-grams for a near copy. */
  coverage: 0.8,
  /** Cosine similarity at or above which an embedder calls a row a paraphrase of an eval text. */
  cosine: 0.85,
} as const;

const shown = (value: unknown): string =>
  typeof value === "string" ? JSON.stringify(value) : String(value);
const refused = (expected: string) => (issue: { input?: unknown }) =>
  `${expected}, got ${shown(issue.input)}`;
const text = (expected: string) =>
  z.string({ error: refused(expected) }).min(1, { error: refused(expected) });
const yesNo = () => z.boolean({ error: refused("expected true or false") });

/** The file formats an export writes. */
export const ExportFormatSchema = z.enum(["jsonl", "parquet"], {
  error: refused('expected "jsonl" or "parquet"'),
});
export type ExportFormat = z.infer<typeof ExportFormatSchema>;

/** Which agent turns an SFT row learns: every policy turn, or only the last. */
export const MaskModeSchema = z.enum(["all", "final"], {
  error: refused('expected "all" or "final"'),
});

/** The options of `data.trainingSet` / `exportSft`. */
export const TrainingSetOptionsSchema = z.object({
  maskMode: MaskModeSchema.optional(),
  passing: yesNo().optional(),
});

/** Rollouts per RL group: at least 2, since a group's spread needs two rewards. */
const groupSize = () => {
  const low = refused("expected a group size of at least 2 (a whole number)");
  return z
    .number({ error: low })
    .int({ error: low })
    .min(2, { error: low })
    .max(EXPORT_LIMITS.k, {
      error: refused(`expected a group size of at most ${EXPORT_LIMITS.k}`),
    });
};

/** The options of `selectForRl` / `exportDataset`: the group size, and whether groups with one reward stay. */
export const RlOptionsSchema = z.object({
  k: groupSize(),
  keepZeroVariance: yesNo().optional(),
});
export type RlOptions = z.infer<typeof RlOptionsSchema>;

/** The plain flags of `rehearse export sft|preference|rl`. */
export const ExportCommandOptionsSchema = z.object({
  in: text("expected the path of a JSONL dataset"),
  out: text("expected a file path"),
  format: ExportFormatSchema.optional(),
  maskMode: MaskModeSchema.optional(),
  passing: yesNo().optional(),
  k: groupSize().optional(),
  keepZeroVariance: yesNo().optional(),
  overwrite: yesNo().optional(),
});

/** The plain flags of `rehearse decontaminate`; the embedder is a backend spec, checked where backends are. */
export const DecontaminateCommandOptionsSchema = z.object({
  in: text("expected the path of a JSONL dataset"),
  eval: text("expected the path of a JSONL eval set"),
  out: text("expected a file path"),
  overwrite: yesNo().optional(),
});

/** A message of an eval item: only its words are read. */
const EvalMessageSchema = z.object({
  role: z.string(),
  content: z.string().nullable().optional(),
});

/**
 * One item of an eval set, one JSONL line: our own rows, or any record with a `text` or `messages`
 * (chat format) and, to match by id, a `task_id`. `id` names it in the report (else `task_id`, else
 * its line).
 */
export const EvalItemSchema = z
  .object({
    id: z.union([z.string(), z.number()]).optional(),
    task_id: z.union([z.string(), z.number()]).optional(),
    text: z.string().optional(),
    messages: z.array(EvalMessageSchema).optional(),
  })
  .refine((item) => item.text !== undefined || item.messages !== undefined, {
    message: "expected a `text` or a `messages` list",
  });
export type EvalItem = z.infer<typeof EvalItemSchema>;

/** The rules of the leakage check, in the order they are applied. */
export const DecontaminationRuleSchema = z.enum(["task_id", "exact_text", "ngram", "embedding"]);
export type DecontaminationRule = z.infer<typeof DecontaminationRuleSchema>;

/** A row the leakage check removed: which rule, the eval item it matched, and the figure that decided. */
export const RemovalSchema = z.object({
  id: z.string(),
  task_id: z.string(),
  rule: DecontaminationRuleSchema,
  eval_id: z.string(),
  /** Share of the row's words covered (`ngram`) or cosine similarity (`embedding`); 1 for the exact rules. */
  score: z.number(),
});
export type Removal = z.infer<typeof RemovalSchema>;

/** How many rows one filter of an export removed, and why. */
export const FilterCountSchema = z.object({
  name: z.string(),
  removed: z.int().min(0),
  reason: z.string(),
});
export type FilterCount = z.infer<typeof FilterCountSchema>;

/** The sidecar `<file>.meta.json` of an export: what was exported from what, and how. */
export const ExportSidecarSchema = z.object({
  version: z.literal(1),
  kind: z.enum(["sft", "preference", "rl", "decontaminate"]),
  generator: z.string(),
  format: ExportFormatSchema,
  source: z.object({
    /** The dataset file, or null for rows held in memory. */
    path: z.string().nullable(),
    /** sha256 of the source file's bytes, or of the rows as JSON lines when held in memory. */
    sha256: z.string(),
    rows: z.int().min(0),
  }),
  options: z.record(z.string(), z.unknown()),
  filters: z.array(FilterCountSchema),
  rows: z.int().min(0),
  calibration: CalibrationSchema,
  warnings: z.array(z.string()),
  /** The eval set checked against (decontaminate only). */
  eval: z.object({ path: z.string().nullable(), sha256: z.string(), items: z.int() }).optional(),
  /** Every removed row with its rule (decontaminate only). */
  removed: z.array(RemovalSchema).optional(),
});
export type ExportSidecar = z.infer<typeof ExportSidecarSchema>;
