import { z } from "zod";
import { ConditionKindSchema, WorldKindSchema } from "./axes.ts";

/** Where a trace sits on the spec's axes: the tool it met, the tool's state, and the world's. */
export const TraceCoordinateSchema = z.object({
  /** The situation's tool: the first known tool that failed, else that found an unusual world, else the last called; null when no known tool ran. */
  tool: z.string().nullable(),
  condition: ConditionKindSchema,
  world: WorldKindSchema,
});
export type TraceCoordinate = z.infer<typeof TraceCoordinateSchema>;

/** One tool call as a trace shows it. */
export const TraceCallSchema = z.object({
  tool: z.string(),
  /** The error the call ended with (span status message, `error.type`), or null. */
  error: z.string().nullable(),
  /** The call's result text when the trace carries it. */
  result: z.string().nullable(),
});
export type TraceCall = z.infer<typeof TraceCallSchema>;

/** A grade as a trace carries it: an evaluation attribute, a label from a labels file, or a row's reward. */
export const TraceGradeSchema = z.object({
  reward: z.number().min(0).max(1),
  failure_class: z.string().optional(),
  by: z.enum(["row", "evaluation", "label"]),
});
export type TraceGrade = z.infer<typeof TraceGradeSchema>;

/** One conversation read from a trace file, on the spec's axes. */
export const TraceSchema = z.object({
  /** The conversation id (`gen_ai.conversation.id`, a row's id, or the trace id). */
  id: z.string(),
  /** File and line (or span) it was read from. */
  source: z.string(),
  /** The model version that played the agent, or null when the trace does not say. */
  model: z.string().nullable(),
  /** Start time in milliseconds since the epoch, or null (our rows carry none). */
  started: z.number().nullable(),
  calls: z.array(TraceCallSchema),
  coordinate: TraceCoordinateSchema,
  grade: TraceGradeSchema.nullable(),
  /** Tools it called that the spec does not have. */
  unknown_tools: z.array(z.string()),
});
export type Trace = z.infer<typeof TraceSchema>;

/** Something in a trace file that could not be read as a conversation: counted and named, never dropped silently. */
export const TraceProblemSchema = z.object({
  source: z.string(),
  kind: z.enum([
    "broken_json",
    "not_a_trace",
    "no_conversation",
    "no_grade",
    "unknown_tool",
    "no_model",
  ]),
  detail: z.string(),
});
export type TraceProblem = z.infer<typeof TraceProblemSchema>;

/** How a cell fares against the previous model version. */
export const CELL_STATUSES = ["new_failure", "still_failing", "stopped_failing", "fine"] as const;
export const CellStatusSchema = z.enum(CELL_STATUSES);
export type CellStatus = z.infer<typeof CellStatusSchema>;

/** One version's figures in a cell: graded traces, failures, the rate and its 95% Wilson interval. */
export const CellFiguresSchema = z.object({
  count: z.int().min(0),
  failures: z.int().min(0),
  failure_rate: z.number().min(0).max(1).nullable(),
  interval: z.tuple([z.number(), z.number()]).nullable(),
  failing: z.boolean(),
});
export type CellFigures = z.infer<typeof CellFiguresSchema>;

/** One cell of the axis space (tool × condition × world) with the current and previous versions' figures. */
export const TraceCellSchema = z.object({
  coordinate: TraceCoordinateSchema,
  current: CellFiguresSchema,
  previous: CellFiguresSchema,
  status: CellStatusSchema,
});
export type TraceCell = z.infer<typeof TraceCellSchema>;

/** Where the deployed agent fails: cells by status, the versions compared, and what could not be read. */
export const TracePictureSchema = z.object({
  versions: z.object({ current: z.string().nullable(), previous: z.string().nullable() }),
  /** Conversations read, graded ones, and those of each version. */
  traces: z.object({
    read: z.int().min(0),
    graded: z.int().min(0),
    current: z.int().min(0),
    previous: z.int().min(0),
  }),
  /** A cell fails for a version when at least this share of its graded traces failed. */
  fail_threshold: z.number().min(0).max(1),
  cells: z.array(TraceCellSchema),
  problems: z.array(TraceProblemSchema),
  /** Problems by kind, and unknown tools by name, with counts. */
  problem_counts: z.record(z.string(), z.int().min(0)),
  unknown_tools: z.record(z.string(), z.int().min(0)),
});
export type TracePicture = z.infer<typeof TracePictureSchema>;

/** A grade for a conversation from a separate labels file (JSONL). */
export const TraceLabelSchema = z.strictObject({
  conversation_id: z.string().min(1),
  reward: z.number().min(0).max(1),
  failure_class: z.string().optional(),
});
export type TraceLabel = z.infer<typeof TraceLabelSchema>;

/** Options of the picture: which versions to compare, and when a cell counts as failing. */
export const TracePictureOptionsSchema = z.strictObject({
  /** The model version to judge (default: the version of the newest trace). */
  current: z.string().min(1).optional(),
  /** The version it is compared with (default: the newest other version). */
  previous: z.string().min(1).optional(),
  failThreshold: z.number().min(0).max(1).default(0.25),
});
export type TracePictureOptions = z.input<typeof TracePictureOptionsSchema>;

/** `rehearse traces` flags; the files are the arguments. */
export const TracesCommandOptionsSchema = z.object({
  spec: z.string().min(1, "expected the agent spec's path"),
  labels: z.string().min(1, "expected a JSONL file of labels").optional(),
  current: z.string().min(1).optional(),
  previous: z.string().min(1).optional(),
  failThreshold: z
    .number()
    .min(0, "expected a share from 0 to 1")
    .max(1, "expected a share from 0 to 1")
    .optional(),
});

/** `rehearse gap` flags; the asks are the arguments or a file, the judge a backend spec. */
export const GapCommandOptionsSchema = z.object({
  spec: z.string().min(1, "expected the agent spec's path"),
  asks: z.string().min(1, "expected a file of asks, one per line").optional(),
});
