import { InputError, issuesOf, PASS_THRESHOLD, type TrainingMessage } from "../env/index.ts";
import {
  type Calibration,
  type ExportFormat,
  type ExportSidecar,
  type RlOptions,
  RlOptionsSchema,
  type Row,
} from "../spec/index.ts";
import { completionOf, gradedByTask, promptOf } from "./groups.ts";
import { checkExportOutput, formatOf, writeRecords } from "./output.ts";
import type { ParquetColumn } from "./parquet.ts";
import { writeSidecar } from "./sidecar.ts";
import { type ExportSource, readAll, SourceTally } from "./source.ts";

/**
 * One RL group: k rollouts of one situation, with TRL's GRPO `prompt` column (the conversation up
 * to the policy's first turn), each rollout's continuation and reward, and the group's figures.
 */
export interface RlGroup {
  group_id: string;
  task_id: string;
  prompt: TrainingMessage[];
  tools: Row["tools"];
  k: number;
  /** Rollouts that failed (reward below PASS_THRESHOLD) and that passed. */
  n0: number;
  n1: number;
  /** Mean reward of the group. */
  mean: number;
  /** Sample standard deviation (n − 1), as GRPO normalises advantages with. */
  std: number;
  ids: string[];
  rewards: number[];
  completions: TrainingMessage[][];
  /** The publish gate's stamp on the grades these rewards come from. */
  calibration: Calibration;
}

/** Groups, and what was left out. */
export interface RlGroups {
  groups: RlGroup[];
  /** Situations with fewer than k graded rollouts. */
  short_tasks: number;
  /** Groups left out because every rollout scored the same (no learning signal), unless kept. */
  zero_variance: number;
  grade_errors: number;
  calibration: Calibration;
}

/** Checks the RL options, naming the option that is wrong. */
function rlOptions(options: unknown): Required<RlOptions> {
  const parsed = RlOptionsSchema.safeParse(options ?? {});
  if (!parsed.success) throw new InputError("RL options", issuesOf(parsed.error, options));
  return { k: parsed.data.k, keepZeroVariance: parsed.data.keepZeroVariance ?? false };
}

/**
 * Groups of k graded rollouts of one situation (the first k in file order), each with `group_id`,
 * `k`, `n0`, `n1`, reward `mean` and `std`, and the calibration stamp. Groups whose rewards are all
 * equal carry no signal for a group-relative update and are left out unless `keepZeroVariance`.
 */
export async function selectForRl(data: ExportSource, options: RlOptions): Promise<RlGroups> {
  const checked = rlOptions(options);
  const tally = new SourceTally(data);
  const rows = await readAll(data, tally);
  return groupsOf(rows, checked, tally.calibration());
}

function groupsOf(
  rows: readonly Row[],
  options: Required<RlOptions>,
  calibration: Calibration,
): RlGroups {
  const { groups, gradeErrors } = gradedByTask(rows, "RL groups");
  const out: RlGroup[] = [];
  let short = 0;
  let zero = 0;
  for (const [taskId, group] of groups) {
    if (group.length < options.k) {
      short++;
      continue;
    }
    const members = group.slice(0, options.k);
    const rewards = members.map((r) => r.reward as number);
    const mean = rewards.reduce((a, b) => a + b, 0) / rewards.length;
    const variance = rewards.reduce((a, r) => a + (r - mean) ** 2, 0) / (rewards.length - 1);
    if (variance === 0 && !options.keepZeroVariance) {
      zero++;
      continue;
    }
    const n1 = rewards.filter((r) => r >= PASS_THRESHOLD).length;
    const first = members[0] as Row;
    out.push({
      group_id: `${taskId}#k${options.k}`,
      task_id: taskId,
      prompt: promptOf(first),
      tools: first.tools,
      k: options.k,
      n0: rewards.length - n1,
      n1,
      mean,
      std: Math.sqrt(variance),
      ids: members.map((r) => r.id),
      rewards,
      completions: members.map(completionOf),
      calibration,
    });
  }
  return {
    groups: out,
    short_tasks: short,
    zero_variance: zero,
    grade_errors: gradeErrors,
    calibration,
  };
}

/** The Parquet columns of an RL groups file. */
export const RL_COLUMNS: ParquetColumn<RlGroup>[] = [
  { name: "group_id", kind: "string", value: (g) => g.group_id },
  { name: "task_id", kind: "string", value: (g) => g.task_id },
  { name: "prompt", kind: "json", value: (g) => g.prompt },
  { name: "tools", kind: "json", value: (g) => g.tools },
  { name: "k", kind: "int", value: (g) => g.k },
  { name: "n0", kind: "int", value: (g) => g.n0 },
  { name: "n1", kind: "int", value: (g) => g.n1 },
  { name: "mean", kind: "double", value: (g) => g.mean },
  { name: "std", kind: "double", value: (g) => g.std },
  { name: "ids", kind: "json", value: (g) => g.ids },
  { name: "rewards", kind: "double_list", value: (g) => g.rewards },
  { name: "completions", kind: "json", value: (g) => g.completions },
  { name: "calibration", kind: "json", value: (g) => g.calibration },
];

/** Writes the RL groups of a graded dataset to `out` (JSONL or Parquet) with its sidecar. */
export async function exportDataset(
  data: ExportSource,
  out: string,
  options: RlOptions & { format?: ExportFormat },
): Promise<ExportSidecar & { groups: RlGroups }> {
  const checked = rlOptions({ k: options.k, keepZeroVariance: options.keepZeroVariance });
  const format = formatOf(out, options.format);
  await checkExportOutput(out, data, { what: "export options", field: "out" });
  const tally = new SourceTally(data);
  const result = groupsOf(await readAll(data, tally), checked, tally.calibration());
  const rows = await writeRecords(out, format, RL_COLUMNS, result.groups);
  const sidecar = await writeSidecar(out, {
    kind: "rl",
    format,
    source: await tally.facts(),
    options: checked,
    filters: [
      {
        name: "grade_error",
        removed: result.grade_errors,
        reason: "the judge could not grade it (grade_error)",
      },
      {
        name: "short_task",
        removed: result.short_tasks,
        reason: `situations with fewer than k = ${checked.k} graded rollouts (counted in situations)`,
      },
      {
        name: "zero_variance",
        removed: result.zero_variance,
        reason: checked.keepZeroVariance
          ? "none: keepZeroVariance keeps groups whose rollouts all scored the same"
          : "groups whose rollouts all scored the same: no signal for a group-relative update (counted in groups)",
      },
    ],
    rows,
    calibration: result.calibration,
    warnings: rows === 0 ? ["no group passed the filters: the file is empty"] : [],
  });
  return { ...sidecar, groups: result };
}
