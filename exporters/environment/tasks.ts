import { firstPolicyIndex, PASS_THRESHOLD, splitOf } from "../../env/index.ts";
import type { ChatMessage, Row } from "../../spec/index.ts";

/** One situation as the environment serves it: where the episode opens and what the agent may call. */
export interface EnvironmentTask {
  task_id: string;
  seed: number;
  /** What the agent sees before its first turn: the system prompt, earlier contact (assistant turns too), the person's opening. */
  prompt: ChatMessage[];
  tools: Row["tools"];
}

/** Why a situation was left out of the package. */
export type LeftOut = "below_band" | "above_band" | "ungraded" | "eval_split";

/** The situations of a dataset, split and filtered: what the package holds and what it left out, by reason. */
export interface SelectedTasks {
  train: EnvironmentTask[];
  holdout: EnvironmentTask[];
  left_out: Record<LeftOut, number>;
  situations: number;
}

interface Seen {
  task: EnvironmentTask;
  graded: number;
  passed: number;
}

/**
 * Groups rows by situation and keeps those whose graded pass rate lies in `band` (every one when
 * `band` is null): a situation always solved or never solved teaches a policy-gradient trainer
 * nothing. Situations of the `eval` split stay out of a training environment.
 */
export function selectTasks(
  rows: Iterable<Row>,
  band: readonly [number, number] | null,
): SelectedTasks {
  const seen = new Map<string, Seen>();
  for (const row of rows) {
    let entry = seen.get(row.task_id);
    if (!entry) {
      entry = { task: taskOf(row), graded: 0, passed: 0 };
      seen.set(row.task_id, entry);
    }
    if (row.reward === undefined || row.sim_faults.length > 0) continue;
    entry.graded++;
    if (row.reward >= PASS_THRESHOLD) entry.passed++;
  }
  const selected: SelectedTasks = {
    train: [],
    holdout: [],
    left_out: { below_band: 0, above_band: 0, ungraded: 0, eval_split: 0 },
    situations: seen.size,
  };
  const ids = [...seen.keys()].sort();
  for (const id of ids) {
    const { task, graded, passed } = seen.get(id) as Seen;
    const split = splitOf({ id });
    if (split === "eval") {
      selected.left_out.eval_split++;
      continue;
    }
    if (band) {
      if (graded === 0) {
        selected.left_out.ungraded++;
        continue;
      }
      const rate = passed / graded;
      if (rate < band[0]) {
        selected.left_out.below_band++;
        continue;
      }
      if (rate > band[1]) {
        selected.left_out.above_band++;
        continue;
      }
    }
    selected[split].push(task);
  }
  return selected;
}

function taskOf(row: Row): EnvironmentTask {
  const start = firstPolicyIndex(row);
  const first = row.messages.findIndex(
    (message, at) => at >= start && message.role === "assistant",
  );
  return {
    task_id: row.task_id,
    seed: row.situation.seed,
    prompt: first < 0 ? row.messages : row.messages.slice(0, first),
    tools: row.tools,
  };
}
