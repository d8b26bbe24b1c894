import type { GradeReport, Row } from "../../spec/index.ts";
import { calibrationStamp, judgeAgreement, PASS_THRESHOLD } from "./agreement.ts";
import { judgeIdentity } from "./identity.ts";

/** What the grade report reads of a row: its grade, labels and checks, not its conversation. */
export type GradedRow = Pick<
  Row,
  | "id"
  | "task_id"
  | "reward"
  | "reason"
  | "failure_class"
  | "grade_error"
  | "judge_meta"
  | "labels"
  | "gold_reward"
  | "conduct"
  | "sim_faults"
>;

/** C(n, k), exactly for the small counts pass^k needs. */
function choose(n: number, k: number): number {
  if (k < 0 || k > n) return 0;
  let out = 1;
  for (let i = 1; i <= k; i++) out = (out * (n - k + i)) / i;
  return out;
}

/**
 * tau-bench's pass^k over repeated rollouts: for each situation C(successes, k) / C(trials, k),
 * averaged over the situations with at least k graded trials; k = 1 is pass@1. `situations` says
 * how many situations each k averages over: where it shrinks (a trial left out for a simulator
 * fault, a row left ungraded), the ks are not over the same situations.
 */
export function passHatK(
  rows: readonly GradedRow[],
  threshold = PASS_THRESHOLD,
): { pass: Record<string, number>; situations: Record<string, number> } {
  const tasks = new Map<string, { n: number; c: number }>();
  for (const row of rows) {
    if (row.reward === undefined) continue;
    const t = tasks.get(row.task_id) ?? { n: 0, c: 0 };
    t.n++;
    if (row.reward >= threshold) t.c++;
    tasks.set(row.task_id, t);
  }
  const pass: Record<string, number> = {};
  const situations: Record<string, number> = {};
  const trials = [...tasks.values()];
  const most = trials.reduce((m, t) => Math.max(m, t.n), 0);
  for (let k = 1; k <= most; k++) {
    const counted = trials.filter((t) => t.n >= k);
    pass[String(k)] =
      counted.reduce((sum, t) => sum + choose(t.c, k) / choose(t.n, k), 0) / counted.length;
    situations[String(k)] = counted.length;
  }
  return { pass, situations };
}

/**
 * The grade report. Rows where the simulated person was at fault are counted apart and left out of
 * the agent's figures (pass rate, pass^k, failure classes, conduct).
 */
export function gradeReport(
  rows: readonly GradedRow[],
  options: { passThreshold?: number; warnings?: string[] } = {},
): GradeReport {
  const threshold = options.passThreshold ?? PASS_THRESHOLD;
  const agentRows = rows.filter((r) => r.sim_faults.length === 0);
  const graded = agentRows.filter((r) => r.reward !== undefined);
  const failureClasses: Record<string, number> = {};
  for (const row of graded) {
    if ((row.reward as number) >= threshold) continue;
    const cls = row.failure_class ?? "unclassified";
    failureClasses[cls] = (failureClasses[cls] ?? 0) + 1;
  }
  const conduct: Record<string, number> = {};
  for (const row of agentRows)
    for (const f of row.conduct) conduct[f.check] = (conduct[f.check] ?? 0) + 1;
  const judges = [
    ...new Set(rows.flatMap((r) => (r.judge_meta ? [judgeIdentity(r.judge_meta)] : []))),
  ].sort();
  const hasGold = rows.some(
    (r) => (r.labels ?? []).some((l) => l.kind === "human") || r.gold_reward !== undefined,
  );
  const agreement = hasGold ? judgeAgreement(rows, { passThreshold: threshold }) : null;
  const passK = passHatK(agentRows, threshold);
  const all = passK.situations["1"] ?? 0;
  const thin = Object.entries(passK.situations).find(([, n]) => n < all);
  const warnings = [
    ...(options.warnings ?? []),
    ...rubricWarnings(rows),
    ...(thin
      ? [
          `pass^k from k = ${thin[0]} averages over ${thin[1]} of ${all} situations (the others have fewer graded trials): compare ks at equal support (pass_hat_k_situations)`,
        ]
      : []),
  ];
  return {
    rows: rows.length,
    graded: rows.filter((r) => r.reward !== undefined).length,
    ungraded: rows.filter((r) => r.reward === undefined).length,
    sim_faults: rows.length - agentRows.length,
    pass_rate:
      graded.length === 0
        ? null
        : graded.filter((r) => (r.reward as number) >= threshold).length / graded.length,
    pass_hat_k: passK.pass,
    pass_hat_k_situations: passK.situations,
    failure_classes: failureClasses,
    conduct,
    unsure: rows.filter((r) => r.judge_meta?.unsure === true).length,
    judges,
    agreement,
    calibration: calibrationStamp(
      rows,
      agreement ?? judgeAgreement(rows, { passThreshold: threshold }),
    ),
    errors: rows.flatMap((r) => (r.grade_error ? [{ row: r.id, error: r.grade_error }] : [])),
    warnings,
  };
}

/** One warning per judge (name and version) whose rows were graded under more than one rubric. */
function rubricWarnings(rows: readonly GradedRow[]): string[] {
  const hashes = new Map<string, Set<string>>();
  for (const { judge_meta: meta } of rows) {
    if (!meta) continue;
    const judge = `${meta.judge}@${meta.version}`;
    hashes.set(judge, (hashes.get(judge) ?? new Set()).add(meta.rubric_hash ?? "none"));
  }
  return [...hashes]
    .filter(([, seen]) => seen.size > 1)
    .map(
      ([judge, seen]) =>
        `${judge} graded these rows under ${seen.size} rubrics (rubric_hash ${[...seen].sort().join(", ")}): its labels are not one judge's; regrade under one rubric, or give each rubric its own version`,
    );
}
