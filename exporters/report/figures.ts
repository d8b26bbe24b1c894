import { type Agent, type GradedRow, PASS_THRESHOLD } from "../../env/index.ts";
import { AXIS_NAMES, type AxisName, type Row } from "../../spec/index.ts";

/** Where a row stands: passed or failed its grade, not graded, or left out for the simulated person's fault. */
export type RowStatus = "pass" | "fail" | "ungraded" | "sim_fault";

/** What the report's figures read of a row: its grade and checks, and where it stands on the grid. */
export type RowFacts = GradedRow & { situation: { axes: Row["situation"]["axes"] } };

/** A row without its conversation: the figures of a large dataset are counted from these alone. */
export function factsOf(row: Row): RowFacts {
  return {
    id: row.id,
    task_id: row.task_id,
    reward: row.reward,
    reason: row.reason,
    failure_class: row.failure_class,
    grade_error: row.grade_error,
    judge_meta: row.judge_meta,
    labels: row.labels,
    gold_reward: row.gold_reward,
    conduct: row.conduct,
    sim_faults: row.sim_faults,
    situation: { axes: row.situation.axes },
  };
}

/** A row's status, as the grade report counts it (simulator faults first, then the pass threshold). */
export function statusOf(row: Pick<Row, "sim_faults" | "reward">): RowStatus {
  if (row.sim_faults.length > 0) return "sim_fault";
  if (row.reward === undefined) return "ungraded";
  return row.reward >= PASS_THRESHOLD ? "pass" : "fail";
}

/** The rows of one axis value and how many of the graded ones passed. */
export interface ValuePassRate {
  value: string;
  rows: number;
  graded: number;
  passed: number;
  rate: number | null;
}

/**
 * Pass rate by axis value: for each axis, each value (in the spec's order, then any the rows hold
 * that the spec lacks), over the graded rows with no simulator fault, as the grade report counts.
 */
export function passByAxisValue(
  agent: Agent | null,
  rows: readonly RowFacts[],
): Record<AxisName, ValuePassRate[]> {
  const out = {} as Record<AxisName, ValuePassRate[]>;
  for (const axis of AXIS_NAMES) {
    const byValue = new Map<string, ValuePassRate>();
    const entry = (value: string) => {
      let found = byValue.get(value);
      if (!found) {
        found = { value, rows: 0, graded: 0, passed: 0, rate: null };
        byValue.set(value, found);
      }
      return found;
    };
    for (const value of agent?.axes[axis] ?? []) entry(value.name);
    for (const row of rows) {
      const counted = entry(row.situation.axes[axis]);
      counted.rows++;
      const status = statusOf(row);
      if (status === "pass" || status === "fail") counted.graded++;
      if (status === "pass") counted.passed++;
    }
    out[axis] = [...byValue.values()].map((v) => ({
      ...v,
      rate: v.graded === 0 ? null : v.passed / v.graded,
    }));
  }
  return out;
}

/** What the page's conversation list holds of a row: its situation, checks, grade and messages. */
export interface ListedRow {
  id: string;
  task_id: string;
  axes: Row["situation"]["axes"];
  status: RowStatus;
  reward: number | null;
  failure_class: string | null;
  reason: string | null;
  judge: string | null;
  unsure: boolean;
  outcome: unknown;
  conduct: { check: string; detail: string }[];
  sim_faults: { check: string; detail: string }[];
  messages: Row["messages"];
}

/** A row as the conversation list shows it. */
export function listedRow(row: Row): ListedRow {
  const finding = (f: { check: string; detail: string }) => ({ check: f.check, detail: f.detail });
  return {
    id: row.id,
    task_id: row.task_id,
    axes: row.situation.axes,
    status: statusOf(row),
    reward: row.reward ?? null,
    failure_class: row.failure_class ?? null,
    reason: row.reason ?? row.grade_error ?? null,
    judge: row.judge_meta ? `${row.judge_meta.judge}@${row.judge_meta.version}` : null,
    unsure: row.judge_meta?.unsure === true,
    outcome: row.episode.outcome ?? null,
    conduct: row.conduct.map(finding),
    sim_faults: row.sim_faults.map(finding),
    messages: row.messages,
  };
}
