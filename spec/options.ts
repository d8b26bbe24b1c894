import { z } from "zod";

/**
 * The default of every option the commands take, in one table: the SDK applies these, and the
 * CLI's help prints them from here. `seed`, `faultRate` and `preferSuccess` give way to the spec's
 * world dials (`world.seed`, `world.fault_rate`, `world.prefer_success`) when those are set.
 */
export const DEFAULTS = {
  /** Situations a run simulates (a plan alone covers one pass over the grid). */
  rows: 64,
  seed: 0,
  /** Share of fault cells that keep their fault under the cold-start flip. */
  faultRate: 0.1,
  preferSuccess: true,
  /**
   * Assistant messages before an episode is cut off, each a tool call or a reply: tau-bench's 30
   * steps. The offline roles end every corpus conversation in 14; a model agent reads more.
   */
  maxTurns: 30,
  /** Share of episodes in which the offline agent makes one of its named slips. */
  slipRate: 0.25,
  /** Episodes run at once. */
  concurrency: 4,
  /** Conversations per situation. */
  rollouts: 1,
  /** How hard the covering-array search tries to shrink the grid. */
  effort: 1,
} as const;

/**
 * The most each count option takes. Each is far past any real run; more is a typo or an attack,
 * refused by name before any work instead of exhausting memory or time minutes later.
 */
export const LIMITS = {
  /** Situations a run simulates or a plan summarises (rows stream to disk; a run holds only those in flight). */
  rows: 10_000_000,
  /** Episodes run at once: each holds its conversation and world in memory. */
  concurrency: 1024,
  /** Worker threads a run plays offline episodes on (each holds the engine and a few episodes). */
  workers: 256,
  /** Assistant messages before an episode is cut off: the conversation, and each model call, grows with them. */
  maxTurns: 1000,
  /** Conversations per situation. */
  rollouts: 1024,
  /** How hard the covering-array search tries: its iterations grow in proportion. */
  effort: 100,
  /**
   * Values of one axis of a plan (tools, rules, stances, histories): the covering array's search
   * weighs every value of every axis for each row it adds.
   */
  axisValues: 500,
  /**
   * Rows the smallest grid of a plan can have (the target pairs of its two largest axes): planning
   * takes time about the square of it, some seconds at this bound, and more with more large axes
   * (four axes of 70 values: 42 s), which the CLI reports as it goes.
   */
  gridRows: 5000,
  /**
   * Bytes of a spec file: every parameter's schema is compiled and checked, about 7 s and 120 MB
   * a megabyte (a 21 MB spec took 146 s and 2.6 GB); a spec of 500 rich tools is under 1 MB.
   */
  specBytes: 4 << 20,
  /** Retries of one model call on 429 and 5xx, each after a backoff: more only delays the error. */
  backendRetries: 20,
  /** Milliseconds one model call may take (ten minutes; setTimeout cannot wait past 2^31 - 1). */
  backendTimeoutMs: 600_000,
} as const;

/** Shows a refused value as it was given: a string quoted, anything else as written. */
const shown = (value: unknown): string =>
  typeof value === "string" ? JSON.stringify(value) : String(value);

/** One message for everything wrong with a field: what it expects, and what it got. */
const refused = (expected: string) => (issue: { input?: unknown }) =>
  `${expected}, got ${shown(issue.input)}`;

/**
 * A number from `min` to `most`: one below (or no number) is refused as `expected` says, one above
 * (Infinity included) as `tooMany` says.
 */
const between = (min: number, expected: string, most: number, tooMany: string) => {
  const low = refused(expected);
  const high = refused(tooMany);
  const error = (issue: { input?: unknown }) =>
    typeof issue.input === "number" && issue.input > most ? high(issue) : low(issue);
  return z.number({ error }).min(min, { error: low }).max(most, { error: high });
};

/** A whole number from `min` to `most`; a fraction is refused as one below is. */
export const wholeBetween = (min: number, expected: string, most: number, tooMany: string) =>
  between(min, expected, most, tooMany).refine(Number.isInteger, { error: refused(expected) });

/** A number between 0 and 1. */
const share = () => {
  const error = refused("expected a share between 0 and 1");
  return z.number({ error }).min(0, { error }).max(1, { error });
};

const yesNo = () => z.boolean({ error: refused("expected true or false") });

const text = (expected: string) => {
  const error = refused(expected);
  return z.string({ error }).min(1, { error });
};

/** A seed: a whole number, or any non-empty string. */
const seed = () => {
  const error = refused("expected a non-negative integer or a string");
  return z.union([z.int({ error }).min(0, { error }), z.string({ error }).min(1, { error })], {
    error,
  });
};

/**
 * The options of a plan (`planSituations`, `rehearse plan`): how many situations, the seed, and the
 * cold-start flip. Rows default to one pass over the planned grid.
 */
export const PlanOptionsSchema = z.object({
  rows: wholeBetween(
    1,
    "expected at least 1 row",
    LIMITS.rows,
    `expected at most ${LIMITS.rows} rows`,
  ).optional(),
  seed: seed().optional(),
  faultRate: share().optional(),
  preferSuccess: yesNo().optional(),
  effort: between(
    0,
    "expected a number ≥ 0",
    LIMITS.effort,
    `expected an effort of at most ${LIMITS.effort}`,
  ).optional(),
});
export type PlanOptions = z.infer<typeof PlanOptionsSchema>;

/**
 * The plain options of a run (`simulate`, `rehearse simulate`): everything but the roles, which
 * are backend specs or objects, and the callbacks.
 */
export const SimulateOptionsSchema = PlanOptionsSchema.omit({ effort: true }).extend({
  concurrency: wholeBetween(
    1,
    "expected at least 1 (a whole number)",
    LIMITS.concurrency,
    `expected at most ${LIMITS.concurrency} episodes at once`,
  ).optional(),
  maxTurns: wholeBetween(
    1,
    "expected at least 1 turn (a whole number)",
    LIMITS.maxTurns,
    `expected at most ${LIMITS.maxTurns} turns`,
  ).optional(),
  rollouts: wholeBetween(
    1,
    "expected at least 1 rollout per situation (a whole number)",
    LIMITS.rollouts,
    `expected at most ${LIMITS.rollouts} rollouts per situation`,
  ).optional(),
  slipRate: share().optional(),
  out: text("expected a file path").optional(),
  resume: yesNo().optional(),
  logprobs: yesNo().optional(),
  /** With a grader: rows played and graded before the search mutates what failed. */
  batch: wholeBetween(
    1,
    "expected at least 1 row per batch",
    LIMITS.rows,
    `expected at most ${LIMITS.rows} rows per batch`,
  ).optional(),
  workers: wholeBetween(
    0,
    "expected 0 (this thread) or more worker threads",
    LIMITS.workers,
    `expected at most ${LIMITS.workers} worker threads`,
  ).optional(),
  shard: z
    .object({
      index: wholeBetween(
        0,
        "expected a shard index ≥ 0",
        LIMITS.rows,
        `expected a shard index below ${LIMITS.rows}`,
      ),
      count: wholeBetween(
        1,
        "expected at least 1 shard",
        LIMITS.rows,
        `expected at most ${LIMITS.rows} shards`,
      ),
    })
    .refine((s) => s.index < s.count, {
      error: "expected the shard's index below its count (shards are numbered from 0)",
      path: ["index"],
    })
    .optional(),
});
export type SimulatePlainOptions = z.infer<typeof SimulateOptionsSchema>;

/**
 * The plain options of grading (`gradeRows`, `data.grade`): the rubric, the name and version
 * stamped on every label, how many rows are judged at once, and the pass threshold. The grader (a
 * function), the judge (a backend spec) and `fetch` are checked where they are used.
 */
export const GradeOptionsSchema = z.object({
  rubric: text("expected the rubric's text").optional(),
  judge: text("expected a name").optional(),
  version: text("expected a version").optional(),
  concurrency: wholeBetween(
    1,
    "expected at least 1 (a whole number)",
    LIMITS.concurrency,
    `expected at most ${LIMITS.concurrency} rows judged at once`,
  ).optional(),
  passThreshold: share().optional(),
});
export type GradePlainOptions = z.infer<typeof GradeOptionsSchema>;

/**
 * The plain options of `rehearse grade`: the grader module, the rubric, the name and version
 * stamped on every label, the labels file and where the graded rows go. The judge is a backend
 * spec, checked where every backend is.
 */
export const GradeCommandOptionsSchema = z.object({
  grader: text("expected the path of a grader module").optional(),
  rubric: text("expected the rubric, or @file").optional(),
  judgeName: text("expected a name").optional(),
  judgeVersion: text("expected a version").optional(),
  labels: text("expected the path of a JSONL file of labels").optional(),
  out: text("expected a file path").optional(),
});
export type GradeCommandOptions = z.infer<typeof GradeCommandOptionsSchema>;
