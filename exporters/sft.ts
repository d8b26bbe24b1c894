import {
  type SftRow,
  sftRow,
  type TrainingFilter,
  type TrainingSetOptions,
  trainingFilter,
  trainingOptions,
} from "../env/index.ts";
import type { ExportFormat, ExportSidecar } from "../spec/index.ts";
import { checkExportOutput, formatOf, writeRecords } from "./output.ts";
import type { ParquetColumn } from "./parquet.ts";
import { writeSidecar } from "./sidecar.ts";
import { type ExportSource, rowsOf, SourceTally } from "./source.ts";

/** The Parquet columns of an SFT file: nested values as JSON text, the mask as a list of booleans. */
export const SFT_COLUMNS: ParquetColumn<SftRow>[] = [
  { name: "id", kind: "string", value: (r) => r.id },
  { name: "task_id", kind: "string", value: (r) => r.task_id },
  { name: "messages", kind: "json", value: (r) => r.messages },
  { name: "tools", kind: "json", value: (r) => r.tools },
  { name: "loss_mask", kind: "bool_list", value: (r) => r.loss_mask },
  { name: "reward", kind: "double", nullable: true, value: (r) => r.reward },
];

/** Why each filter of the training set removes a row, as the sidecar says it. */
const FILTER_REASONS: Record<TrainingFilter, string> = {
  grade_error: "the judge could not grade it (grade_error)",
  not_passing: "reward below the pass threshold",
  no_policy_turn: "no agent turn of the policy to learn (only history turns, or none)",
};

/**
 * Writes the supervised training set (TRL conversational `messages` + `tools`, with `loss_mask`)
 * to `out`, streaming the rows, with a sidecar `<out>.export.json` counting what each filter removed.
 */
export async function exportSft(
  data: ExportSource,
  out: string,
  options: TrainingSetOptions & { format?: ExportFormat } = {},
): Promise<ExportSidecar> {
  const { maskMode, passing } = trainingOptions({
    maskMode: options.maskMode,
    passing: options.passing,
  });
  const format = formatOf(out, options.format);
  await checkExportOutput(out, data, { what: "export options", field: "out" });
  const tally = new SourceTally(data);
  const removed = new Map<TrainingFilter, number>();
  async function* kept(): AsyncGenerator<SftRow> {
    for await (const row of rowsOf(data)) {
      tally.see(row);
      const filter = trainingFilter(row, { passing, mode: maskMode });
      if (filter === null) yield sftRow(row, maskMode);
      else removed.set(filter, (removed.get(filter) ?? 0) + 1);
    }
  }
  const rows = await writeRecords(out, format, SFT_COLUMNS, kept());
  const applied: TrainingFilter[] = passing
    ? ["grade_error", "not_passing", "no_policy_turn"]
    : ["no_policy_turn"];
  const filters = applied.map((name) => ({
    name,
    removed: removed.get(name) ?? 0,
    reason: FILTER_REASONS[name],
  }));
  return writeSidecar(out, {
    kind: "sft",
    format,
    source: await tally.facts(),
    options: { maskMode, passing },
    filters,
    rows,
    calibration: tally.calibration(),
    warnings: rows === 0 ? ["no row passed the filters: the file is empty"] : [],
  });
}
