import {
  type Agreement,
  type Calibration,
  type Label,
  LabelSchema,
  type Row,
} from "../../spec/index.ts";
import { InputError, type InputIssue, issuesOf } from "../util/errors.ts";
import { judgeIdentity } from "./identity.ts";

/** A reward at or above this passes. */
export const PASS_THRESHOLD = 0.5;

/** A label as given for a row: the row's id and the label's fields. */
export type LabelInput = Omit<Label, "kind"> & { id: string };

/**
 * Attaches labels to rows by row id, each stamped with its kind (`human` for hand labels). Every
 * problem is refused together: a label for an unknown row, a label with a bad field.
 */
export function attachLabels(
  rows: Row[],
  labels: readonly unknown[],
  options: { kind: Label["kind"] },
): number {
  const byId = new Map(rows.map((r) => [r.id, r]));
  const issues: InputIssue[] = [];
  const ready: { row: Row; label: Label }[] = [];
  labels.forEach((input, n) => {
    const raw = (input ?? {}) as Record<string, unknown>;
    const parsed = LabelSchema.safeParse({ ...raw, kind: options.kind });
    if (!parsed.success) {
      for (const issue of issuesOf(parsed.error, raw))
        issues.push({ path: `labels[${n}].${issue.path}`, message: issue.message });
      return;
    }
    const row = typeof raw.id === "string" ? byId.get(raw.id) : undefined;
    if (!row) {
      issues.push({
        path: `labels[${n}].id`,
        message: `expected the id of a row in this dataset, got ${JSON.stringify(raw.id)}`,
      });
      return;
    }
    ready.push({ row, label: parsed.data });
  });
  if (issues.length > 0) throw new InputError("labels", issues);
  for (const { row, label } of ready) row.labels = [...(row.labels ?? []), label];
  return ready.length;
}

const passes = (reward: number, threshold: number) => reward >= threshold;

/**
 * How well the grader of record agrees with gold labels that say who made them (`kind`, human by
 * default): agreement, Cohen's kappa, and the two error rates that matter for training on its
 * labels. A bare `gold_reward` with no provenance is counted as unmeasured, never as agreement.
 */
export function judgeAgreement(
  rows: readonly Pick<Row, "reward" | "labels" | "gold_reward">[],
  options: { gold?: Label["kind"]; passThreshold?: number } = {},
): Agreement {
  const gold = options.gold ?? "human";
  const threshold = options.passThreshold ?? PASS_THRESHOLD;
  const confusion = { pass_pass: 0, pass_fail: 0, fail_pass: 0, fail_fail: 0 };
  let unmeasured = 0;
  for (const row of rows) {
    const label = [...(row.labels ?? [])].reverse().find((l) => l.kind === gold);
    if (!label) {
      if (row.gold_reward !== undefined) unmeasured++;
      continue;
    }
    if (row.reward === undefined) continue;
    const key =
      `${passes(row.reward, threshold) ? "pass" : "fail"}_${passes(label.reward, threshold) ? "pass" : "fail"}` as keyof typeof confusion;
    confusion[key]++;
  }
  const n = confusion.pass_pass + confusion.pass_fail + confusion.fail_pass + confusion.fail_fail;
  const ratio = (a: number, b: number) => (b === 0 ? null : a / b);
  const { kappa, note } = cohensKappa(confusion, n);
  return {
    n,
    agreement: ratio(confusion.pass_pass + confusion.fail_fail, n),
    kappa,
    ...(note ? { kappa_note: note } : {}),
    pass_when_gold_fail: ratio(confusion.pass_fail, confusion.pass_fail + confusion.fail_fail),
    fail_when_gold_pass: ratio(confusion.fail_pass, confusion.fail_pass + confusion.pass_pass),
    confusion,
    unmeasured,
  };
}

/** κ = (p_o − p_e) / (1 − p_e), p_e = Σ p_judge(k)·p_gold(k); undefined (null) with one class only. */
function cohensKappa(
  c: { pass_pass: number; pass_fail: number; fail_pass: number; fail_fail: number },
  n: number,
): { kappa: number | null; note?: string } {
  if (n === 0) return { kappa: null, note: "no rows with both a grade and a gold label" };
  const observed = (c.pass_pass + c.fail_fail) / n;
  const judgePass = (c.pass_pass + c.pass_fail) / n;
  const goldPass = (c.pass_pass + c.fail_pass) / n;
  const expected = judgePass * goldPass + (1 - judgePass) * (1 - goldPass);
  if (expected === 1)
    return { kappa: null, note: "undefined: judge and gold each used one class only" };
  return { kappa: (observed - expected) / (1 - expected) };
}

/**
 * The publish gate's stamp: the judge's measured calibration, or a plain statement that it was
 * never measured. Rows graded by more than one judge ({@link judgeIdentity}, rubric included) are
 * not stamped with one judge's figures: the stamp says which judges they mix.
 */
export function calibrationStamp(
  rows: readonly Pick<Row, "reward" | "labels" | "gold_reward" | "judge_meta">[],
  agreement: Agreement = judgeAgreement(rows),
): Calibration {
  const judges = new Map<string, number>();
  for (const row of rows) {
    if (!row.judge_meta) continue;
    const name = judgeIdentity(row.judge_meta);
    judges.set(name, (judges.get(name) ?? 0) + 1);
  }
  const ranked = [...judges.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  if (ranked.length > 1)
    return {
      status: "unmeasured",
      judge: null,
      reason: `the rows were graded by ${ranked.length} judges (${ranked.map(([name, count]) => `${name}: ${count} rows`).join(", ")}); agreement is a judge's own, so grade them with one judge or stamp each judge's rows apart`,
    };
  const judge = ranked[0]?.[0] ?? null;
  if (agreement.n === 0) {
    const reason =
      agreement.unmeasured > 0
        ? `${agreement.unmeasured} rows carry a gold_reward with no record of who made it`
        : "no human labels attached";
    return { status: "unmeasured", judge, reason };
  }
  const { n, agreement: agree, kappa, pass_when_gold_fail, fail_when_gold_pass } = agreement;
  return {
    status: "measured",
    judge: judge ?? "unknown",
    n,
    agreement: agree,
    kappa,
    pass_when_gold_fail,
    fail_when_gold_pass,
  };
}
