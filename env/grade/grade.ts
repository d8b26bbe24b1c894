import pLimit from "p-limit";
import {
  type BackendSpec,
  DEFAULTS,
  type Grade,
  GradeOptionsSchema,
  type GradePlainOptions,
  type GradeReport,
  GradeSchema,
  type JudgeMeta,
  type Row,
} from "../../spec/index.ts";
import { familyWarning } from "../backends/backend.ts";
import { Rng, type Seed } from "../rng.ts";
import { formatPath, InputError, issuesOf, messageOf } from "../util/errors.ts";
import { judgeAgreement, PASS_THRESHOLD } from "./agreement.ts";
import { certainty } from "./decision.ts";
import { DEFAULT_RUBRIC, JUDGE_VERSION, rubricHash } from "./identity.ts";
import { openJudge } from "./judge-backend.ts";
import { llmGrade } from "./judges.ts";
import { gradeReport } from "./report.ts";

/** The customer's grader: decides what good means for their agent (sync or async). */
export type Grader = (row: Row) => Grade | Promise<Grade>;

/** How to grade: a grader function, or a judge backend; and how to stamp it (the plain options are spec/options.ts's). */
export interface GradeOptions extends GradePlainOptions {
  grader?: Grader;
  /** A judge backend: a chat model (the advisory `llmGrade`) or a `typesafe:` decision model. */
  spec?: BackendSpec;
  fetch?: typeof fetch;
  /** Called after each row is graded (or left ungraded), with how many are done of how many. */
  onProgress?: (done: number, total: number) => void;
}

/**
 * Grades rows in place: each graded row gets `reward`, `reason`, `failure_class` (when failing) and
 * `judge_meta` saying who graded it. A grader or judge that cannot judge a row leaves it ungraded
 * with `grade_error`, never a default score. Returns the grade report.
 */
export async function gradeRows(rows: Row[], options: GradeOptions): Promise<GradeReport> {
  const { grader, spec, fetch: _fetch, onProgress, ...plain } = options;
  const parsed = GradeOptionsSchema.safeParse(plain);
  if (!parsed.success) throw new InputError("grade options", issuesOf(parsed.error, plain));
  if ((grader === undefined) === (spec === undefined)) {
    throw new InputError("grade options", [
      {
        path: "",
        message: "expected exactly one of grader (a function) or spec (a judge backend)",
      },
    ]);
  }
  const warnings: string[] = [];
  const judge = options.grader
    ? customJudge(options, warnings)
    : backendJudge(options, rows, warnings);
  const limit = pLimit(parsed.data.concurrency ?? DEFAULTS.concurrency);
  let done = 0;
  await Promise.all(
    rows.map((row) =>
      limit(async () => {
        delete row.reward;
        delete row.reason;
        delete row.failure_class;
        delete row.judge_meta;
        delete row.grade_error;
        try {
          const { grade, meta } = await judge(row);
          row.reward = grade.reward;
          row.reason = grade.reason;
          if (grade.failure_class && grade.reward < (options.passThreshold ?? PASS_THRESHOLD))
            row.failure_class = grade.failure_class;
          row.judge_meta = meta;
        } catch (error) {
          row.grade_error = messageOf(error);
        }
        onProgress?.(++done, rows.length);
      }),
    ),
  );
  return gradeReport(rows, { passThreshold: options.passThreshold, warnings });
}

type Judge = (row: Row) => Promise<{ grade: Grade; meta: JudgeMeta }>;

function customJudge(options: GradeOptions, warnings: string[]): Judge {
  const grader = options.grader as Grader;
  if (!options.judge || !options.version) {
    warnings.push(
      "graded by a custom grader without judge= and version=: labels are stamped judge=custom, version=unversioned, so a change to the grader will not show",
    );
  }
  const meta: JudgeMeta = {
    judge: options.judge ?? "custom",
    version: options.version ?? "unversioned",
    model: null,
    // The grader's own source is part of its rubric, so an edit to either is a new hash.
    rubric_hash: rubricHash(`${grader.toString()}\n${options.rubric ?? ""}`),
    settings: {},
  };
  return async (row) => {
    // The grader is measured against the labels, so it must not see them.
    const { labels: _labels, gold_reward: _gold, ...unlabelled } = row;
    return { grade: checked(await grader(unlabelled), row.id), meta: { ...meta } };
  };
}

/** A grader's result as a grade ({@link GradeSchema}), refused with every bad field named. */
function checked(result: unknown, id: string): Grade {
  const parsed = GradeSchema.safeParse(result);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => {
    let got = result;
    for (const key of issue.path)
      got =
        got !== null && typeof got === "object"
          ? (got as Record<PropertyKey, unknown>)[key]
          : undefined;
    return `${formatPath(issue.path) || "(the result)"}: ${issue.message}, got ${JSON.stringify(got)}`;
  });
  throw new Error(`grader on ${id}: ${problems.join("; ")}`);
}

/**
 * A judge backend: a chat model grades with {@link llmGrade}, a decision model (`typesafe:`) with
 * its probability of pass, confidence and unsure flag. Everything it refuses is refused here,
 * before any row is sent. `typesafe:offline` reads no rubric, so its labels carry no rubric_hash.
 */
function backendJudge(options: GradeOptions, rows: Row[], warnings: string[]): Judge {
  const judge = openJudge(
    { spec: options.spec as BackendSpec, ...(options.fetch ? { fetch: options.fetch } : {}) },
    { what: "grade options", rubric: options.rubric },
  );
  const { backend } = judge;
  for (const agent of new Set(rows.map((r) => r.models.agent))) {
    const warning = familyWarning(backend, agent);
    if (warning) warnings.push(warning);
  }
  const base = {
    version: options.version ?? JUDGE_VERSION,
    model: backend.name,
    rubric_hash:
      backend.name === "typesafe:offline" ? null : rubricHash(options.rubric ?? DEFAULT_RUBRIC),
    settings: { ...backend.sampling },
  };
  const name = options.judge ?? (judge.kind === "decision" ? "decision" : "llm_grade");
  return async (row) => {
    const grade = await llmGrade(row, {
      ...judge,
      ...(options.rubric !== undefined ? { rubric: options.rubric } : {}),
    });
    return {
      grade,
      meta: {
        judge: name,
        ...base,
        ...(judge.kind === "decision" ? certainty(grade.reward) : {}),
      },
    };
  };
}

/**
 * The audit: a seeded sample of graded rows judged again by another judge, attached as `audit`
 * labels, and compared with the grader of record.
 */
export async function audit(
  rows: Row[],
  options: {
    spec: BackendSpec;
    sample: number;
    seed?: Seed;
    rubric?: string;
    fetch?: typeof fetch;
  },
) {
  const graded = rows.filter((r) => r.reward !== undefined);
  const picked = new Rng(options.seed ?? 0, "audit").shuffle(graded).slice(0, options.sample);
  const copies = picked.map((r) => structuredClone(r));
  const gradeOptions: GradeOptions = {
    spec: options.spec,
    ...(options.rubric ? { rubric: options.rubric } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  };
  await gradeRows(copies, gradeOptions);
  const disagreements: { row: string; reward: number; audit: number }[] = [];
  copies.forEach((copy, i) => {
    const row = picked[i] as Row;
    if (copy.reward === undefined) return;
    row.labels = [
      ...(row.labels ?? []),
      {
        kind: "audit",
        reward: copy.reward,
        ...(copy.failure_class ? { failure_class: copy.failure_class } : {}),
        by: copy.judge_meta?.model ?? "audit",
      },
    ];
    if (copy.reward >= PASS_THRESHOLD !== (row.reward as number) >= PASS_THRESHOLD)
      disagreements.push({ row: row.id, reward: row.reward as number, audit: copy.reward });
  });
  return {
    ...judgeAgreement(picked, { gold: "audit" }),
    disagreements,
    errors: copies.flatMap((c) => (c.grade_error ? [{ row: c.id, error: c.grade_error }] : [])),
  };
}
