import { checkOutputPath, datasetPaths, InputError } from "../env/index.ts";
import { type ExportFormat, ExportFormatSchema } from "../spec/index.ts";
import { writeJsonl } from "./jsonl.ts";
import { type ParquetColumn, writeParquet } from "./parquet.ts";
import { sidecarPath } from "./sidecar.ts";
import { type ExportSource, sourcePath } from "./source.ts";

/** The format an export writes: the one asked for, else `.parquet` files as Parquet and the rest as JSONL. */
export function formatOf(out: string, format: unknown): ExportFormat {
  if (format === undefined) return /\.parquet$/i.test(out) ? "parquet" : "jsonl";
  const parsed = ExportFormatSchema.safeParse(format);
  if (!parsed.success)
    throw new InputError("export options", [
      { path: "format", message: parsed.error.issues[0]?.message ?? "expected jsonl or parquet" },
    ]);
  return parsed.data;
}

/**
 * Checks where an export will write, before any work: the file and its sidecar, none of which may
 * be the source dataset or its sidecar (or any other input named in `reads`).
 */
export async function checkExportOutput(
  out: string,
  source: ExportSource | null,
  check: { what: string; field: string; reads?: readonly string[] },
): Promise<void> {
  const path = source ? sourcePath(source) : null;
  const inputs = path ? [path, datasetPaths(path).meta] : [];
  await checkOutputPath(out, {
    what: check.what,
    field: check.field,
    writes: [out, sidecarPath(out)],
    reads: [...inputs, ...(check.reads ?? [])],
  });
}

/** Writes records in the chosen format: JSON lines as they are, or Parquet by the given columns. */
export async function writeRecords<R>(
  out: string,
  format: ExportFormat,
  columns: readonly ParquetColumn<R>[],
  records: AsyncIterable<R> | Iterable<R>,
): Promise<number> {
  return format === "parquet" ? writeParquet(out, columns, records) : writeJsonl(out, records);
}
