import pLimit from "p-limit";
import {
  type BackendSpec,
  type FailureClass,
  FailureClassSchema,
  type GradeReport,
  type JudgeMeta,
  type Row,
} from "../../spec/index.ts";
import { type Backend, familyOf, parseBackend } from "../backends/backend.ts";
import { ChatClient } from "../backends/chat.ts";
import { Rng, type Seed } from "../rng.ts";
import { InputError, messageOf } from "../util/errors.ts";
import { judgeAgreement, PASS_THRESHOLD } from "./agreement.ts";
import { decide, isUnsure } from "./decision.ts";
import { DEFAULT_RUBRIC, JUDGE_VERSION, llmGrade, rubricHash, type Verdict } from "./judges.ts";
import { gradeReport } from "./report.ts";

/** What a grader returns for a row. */
export interface GraderResult {
  reward: number;
  reason: string;
  failure_class?: FailureClass;
}

/** The customer's grader: decides what good means for their agent (sync or async). */
export type Grader = (row: Row) => GraderResult | Promise<GraderResult>;

/** How to grade: a grader function, or a judge backend; and how to stamp it. */
export interface GradeOptions {
  grader?: Grader;
  /** A judge backend: a chat model (the advisory `llmGrade`) or a `typesafe:` decision model. */
  spec?: BackendSpec;
  rubric?: string;
  /** Name and version stamped on every label (`judge_meta`); a custom grader should give both. */
  judge?: string;
  version?: string;
  concurrency?: number;
  passThreshold?: number;
  fetch?: typeof fetch;
}

/**
 * Grades rows in place: each graded row gets `reward`, `reason`, `failure_class` (when failing) and
 * `judge_meta` saying who graded it. A grader or judge that cannot judge a row leaves it ungraded
 * with `grade_error`, never a default score. Returns the grade report.
 */
export async function gradeRows(rows: Row[], options: GradeOptions): Promise<GradeReport> {
  if ((options.grader === undefined) === (options.spec === undefined)) {
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
  const limit = pLimit(options.concurrency ?? 4);
  await Promise.all(
    rows.map((row) =>
      limit(async () => {
        delete row.reward;
        delete row.reason;
        delete row.failure_class;
        delete row.judge_meta;
        delete row.grade_error;
        try {
          const { verdict, meta } = await judge(row);
          row.reward = verdict.reward;
          row.reason = verdict.reason;
          if (verdict.failure_class && verdict.reward < (options.passThreshold ?? PASS_THRESHOLD))
            row.failure_class = verdict.failure_class;
          row.judge_meta = meta;
        } catch (error) {
          row.grade_error = messageOf(error);
        }
      }),
    ),
  );
  return gradeReport(rows, { passThreshold: options.passThreshold, warnings });
}

type Judge = (row: Row) => Promise<{ verdict: Verdict; meta: JudgeMeta }>;

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
    return { verdict: checked(await grader(unlabelled), row.id), meta: { ...meta } };
  };
}

/** A grader's result, refused with the field named when it is not a verdict. */
function checked(result: unknown, id: string): Verdict {
  const r = (result ?? {}) as Record<string, unknown>;
  if (typeof r.reward !== "number" || !(r.reward >= 0 && r.reward <= 1))
    throw new Error(
      `grader on ${id}: reward: expected a number from 0 to 1, got ${JSON.stringify(r.reward)}`,
    );
  if (typeof r.reason !== "string")
    throw new Error(`grader on ${id}: reason: expected a string, got ${JSON.stringify(r.reason)}`);
  const verdict: Verdict = { reward: r.reward, reason: r.reason };
  if (r.failure_class !== undefined) {
    const cls = FailureClassSchema.safeParse(r.failure_class);
    if (!cls.success)
      throw new Error(
        `grader on ${id}: failure_class: expected one of the failure vocabulary, got ${JSON.stringify(r.failure_class)}`,
      );
    verdict.failure_class = cls.data;
  }
  return verdict;
}

function backendJudge(options: GradeOptions, rows: Row[], warnings: string[]): Judge {
  const backend = parseBackend(options.spec, "judge");
  if (backend.provider === "offline") {
    throw new InputError("grade options", [
      {
        path: "spec",
        message:
          'the offline roles do not judge; use "typesafe:offline" for the offline decision model, or a chat model',
      },
    ]);
  }
  familyWarning(backend, rows, warnings);
  const rubric = options.rubric ?? DEFAULT_RUBRIC;
  const client =
    backend.name === "typesafe:offline"
      ? null
      : new ChatClient(backend, "judge", options.fetch ? { fetch: options.fetch } : {});
  const base = {
    version: options.version ?? JUDGE_VERSION,
    model: backend.name,
    rubric_hash: rubricHash(rubric),
    settings: { ...backend.sampling },
  };
  if (backend.provider === "typesafe") {
    return async (row) => {
      const decision = await decide(row, backend, client, rubric);
      const verdict: Verdict = {
        reward: decision.probability,
        reason: decision.reason,
      };
      if (decision.failure_class) verdict.failure_class = decision.failure_class;
      const confidence = Math.max(decision.probability, 1 - decision.probability);
      return {
        verdict,
        meta: {
          judge: options.judge ?? "decision",
          ...base,
          confidence,
          unsure: isUnsure(decision.probability),
        },
      };
    };
  }
  return async (row) => ({
    verdict: await llmGrade(row, { client: client as ChatClient, rubric }),
    meta: { judge: options.judge ?? "llm_grade", ...base },
  });
}

/** A judge of the agent's family prefers its own family's writing: say so. */
function familyWarning(judge: Backend, rows: Row[], warnings: string[]): void {
  if (judge.name === "typesafe:offline") return;
  const agents = new Set(rows.map((r) => r.models.agent).filter((a) => a !== "offline"));
  for (const agent of agents) {
    const model = agent.replace(/^openai:/, "").replace(/@.*$/, "");
    if (familyOf(model) === familyOf(judge.model)) {
      warnings.push(
        `the judge ${judge.name} is of the agent's family (${familyOf(model)}, agent ${agent}): a judge prefers its own family's writing; judge with another family`,
      );
    }
  }
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
