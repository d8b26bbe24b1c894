import {
  firstPolicyIndex,
  InputError,
  type TrainingMessage,
  trainingMessage,
} from "../env/index.ts";
import type { Row } from "../spec/index.ts";

/**
 * Graded rows by situation (`task_id`), situations in the order they first appear and rows in file
 * order within each; rows the judge could not grade are counted apart. A never-graded row is
 * refused: pairs and groups are built from rewards.
 */
export function gradedByTask(
  rows: readonly Row[],
  what: string,
): { groups: Map<string, Row[]>; gradeErrors: number } {
  const groups = new Map<string, Row[]>();
  let gradeErrors = 0;
  for (const row of rows) {
    if (row.reward === undefined) {
      if (row.grade_error !== undefined) {
        gradeErrors++;
        continue;
      }
      throw new InputError(what, [
        {
          path: `rows[id=${row.id}].reward`,
          message:
            "expected graded rows: this row has no reward. Grade the data first (data.grade, rehearse grade)",
        },
      ]);
    }
    const group = groups.get(row.task_id);
    if (group) group.push(row);
    else groups.set(row.task_id, [row]);
  }
  return { groups, gradeErrors };
}

/** The conversation up to the policy's first turn (system, history, the person's opening): a shared prompt. */
export function promptOf(row: Row): TrainingMessage[] {
  const start = firstPolicyIndex(row);
  const first = row.messages.findIndex((m, i) => i >= start && m.role === "assistant");
  return row.messages.slice(0, first === -1 ? row.messages.length : first).map(trainingMessage);
}

/** The conversation from the policy's first turn on: what a rollout of the prompt produced. */
export function completionOf(row: Row): TrainingMessage[] {
  return row.messages.slice(promptOf(row).length).map(trainingMessage);
}
