import type { TrainingMessage } from "../env/index.ts";
import type { ExportFormat, ExportSidecar, Row } from "../spec/index.ts";
import { completionOf, gradedByTask, promptOf } from "./groups.ts";
import { checkExportOutput, formatOf, writeRecords } from "./output.ts";
import type { ParquetColumn } from "./parquet.ts";
import { writeSidecar } from "./sidecar.ts";
import { type ExportSource, readAll, SourceTally } from "./source.ts";
import { tokensOf } from "./tokens.ts";

/**
 * One preference pair in TRL's conversational form with an explicit prompt: `prompt` is the shared
 * start of the conversation, `chosen` and `rejected` how each rollout went on from it.
 */
export interface PreferencePair {
  task_id: string;
  prompt: TrainingMessage[];
  chosen: TrainingMessage[];
  rejected: TrainingMessage[];
  tools: Row["tools"];
  chosen_id: string;
  rejected_id: string;
  score_chosen: number;
  score_rejected: number;
  /** score_chosen − score_rejected (TRL's reward trainer reads a `margin` column). */
  margin: number;
  chosen_model: string;
  rejected_model: string;
  /** Whether one model produced both sides: a pair across models teaches the gap between models. */
  same_policy: boolean;
  /** Tokens of chosen − tokens of rejected (o200k_base). */
  length_delta: number;
}

/** Pairs, and what the pairing saw. */
export interface PreferencePairs {
  pairs: PreferencePair[];
  /** A warning when the chosen side is the longer one in most pairs (a trainer learns length first). */
  warnings: string[];
  /** Situations with fewer than two rewards among their rollouts: nothing to pair. */
  single_reward_tasks: number;
  /** Pairs left out because the two rollouts did not open the same way (a writer that varied the opening). */
  different_prompts: number;
  /** Rows the judge could not grade, left out. */
  grade_errors: number;
  /** Share of pairs whose chosen side is the longer one (null with no pairs). */
  chosen_longer: number | null;
  source_rows: number;
}

/**
 * Pairs of rollouts of the same situation (`task_id`) with different rewards: every higher-scored
 * rollout against every lower-scored one, each with its raw scores, margin, models and length gap.
 * Rows must be graded (a never-graded row is refused).
 */
export async function buildPreferencePairs(data: ExportSource): Promise<PreferencePairs> {
  return pairsOf(await readAll(data, new SourceTally(data)));
}

/** The pairs of rows held in memory (see {@link buildPreferencePairs}). */
export function pairsOf(rows: readonly Row[]): PreferencePairs {
  const { groups, gradeErrors } = gradedByTask(rows, "preference pairs");
  const pairs: PreferencePair[] = [];
  let single = 0;
  let differentPrompts = 0;
  for (const [taskId, group] of groups) {
    // Highest reward first; ties keep file order, so the pairs come out the same every run.
    const ranked = group
      .map((row, order) => ({ row, order }))
      .sort((a, b) => (b.row.reward as number) - (a.row.reward as number) || a.order - b.order)
      .map(({ row }) => row);
    if (new Set(ranked.map((r) => r.reward)).size < 2) {
      single++;
      continue;
    }
    const tokens = ranked.map((r) => tokensOf(completionOf(r)));
    const prompts = ranked.map((r) => JSON.stringify(promptOf(r)));
    for (let i = 0; i < ranked.length; i++)
      for (let j = i + 1; j < ranked.length; j++) {
        const chosen = ranked[i] as Row;
        const rejected = ranked[j] as Row;
        if (chosen.reward === rejected.reward) continue;
        if (prompts[i] !== prompts[j]) {
          differentPrompts++;
          continue;
        }
        pairs.push(pairOf(taskId, chosen, rejected, (tokens[i] as number) - (tokens[j] as number)));
      }
  }
  const longer = pairs.filter((p) => p.length_delta > 0).length;
  const chosenLonger = pairs.length === 0 ? null : longer / pairs.length;
  const warnings =
    chosenLonger !== null && chosenLonger > 0.5
      ? [
          `the chosen side is the longer one in ${longer} of ${pairs.length} pairs (${(chosenLonger * 100).toFixed(1)}%): a preference trainer learns length before it learns behaviour; balance lengths or control for length_delta`,
        ]
      : [];
  return {
    pairs,
    warnings,
    single_reward_tasks: single,
    different_prompts: differentPrompts,
    grade_errors: gradeErrors,
    chosen_longer: chosenLonger,
    source_rows: rows.length,
  };
}

function pairOf(taskId: string, chosen: Row, rejected: Row, lengthDelta: number): PreferencePair {
  const scoreChosen = chosen.reward as number;
  const scoreRejected = rejected.reward as number;
  return {
    task_id: taskId,
    prompt: promptOf(chosen),
    chosen: completionOf(chosen),
    rejected: completionOf(rejected),
    tools: chosen.tools,
    chosen_id: chosen.id,
    rejected_id: rejected.id,
    score_chosen: scoreChosen,
    score_rejected: scoreRejected,
    margin: scoreChosen - scoreRejected,
    chosen_model: chosen.models.agent,
    rejected_model: rejected.models.agent,
    same_policy: chosen.models.agent === rejected.models.agent,
    length_delta: lengthDelta,
  };
}

/** The Parquet columns of a preference file. */
export const PREFERENCE_COLUMNS: ParquetColumn<PreferencePair>[] = [
  { name: "task_id", kind: "string", value: (p) => p.task_id },
  { name: "prompt", kind: "json", value: (p) => p.prompt },
  { name: "chosen", kind: "json", value: (p) => p.chosen },
  { name: "rejected", kind: "json", value: (p) => p.rejected },
  { name: "tools", kind: "json", value: (p) => p.tools },
  { name: "chosen_id", kind: "string", value: (p) => p.chosen_id },
  { name: "rejected_id", kind: "string", value: (p) => p.rejected_id },
  { name: "score_chosen", kind: "double", value: (p) => p.score_chosen },
  { name: "score_rejected", kind: "double", value: (p) => p.score_rejected },
  { name: "margin", kind: "double", value: (p) => p.margin },
  { name: "chosen_model", kind: "string", value: (p) => p.chosen_model },
  { name: "rejected_model", kind: "string", value: (p) => p.rejected_model },
  { name: "same_policy", kind: "bool", value: (p) => p.same_policy },
  { name: "length_delta", kind: "int", value: (p) => p.length_delta },
];

/** Writes the preference pairs of a graded dataset to `out` (JSONL or Parquet) with its sidecar. */
export async function exportPreference(
  data: ExportSource,
  out: string,
  options: { format?: ExportFormat } = {},
): Promise<ExportSidecar & { pairs: PreferencePairs }> {
  const format = formatOf(out, options.format);
  await checkExportOutput(out, data, { what: "export options", field: "out" });
  const tally = new SourceTally(data);
  const result = pairsOf(await readAll(data, tally));
  const rows = await writeRecords(out, format, PREFERENCE_COLUMNS, result.pairs);
  const sidecar = await writeSidecar(out, {
    kind: "preference",
    format,
    source: await tally.facts(),
    options: {},
    filters: [
      {
        name: "grade_error",
        removed: result.grade_errors,
        reason: "the judge could not grade it (grade_error)",
      },
      {
        name: "single_reward_task",
        removed: result.single_reward_tasks,
        reason:
          "situations whose rollouts all scored the same: nothing to pair (counted in situations)",
      },
      {
        name: "different_prompt",
        removed: result.different_prompts,
        reason:
          "pairs whose two rollouts opened differently, so no prompt is shared (counted in pairs)",
      },
    ],
    rows,
    calibration: tally.calibration(),
    warnings: result.warnings,
  });
  return { ...sidecar, pairs: result };
}
