import { parquetReadObjects } from "hyparquet";
import { parquetWriteBuffer } from "hyparquet-writer";
import { type Row, RowSchema } from "../../spec/index.ts";

/** Row fields kept as plain Parquet columns, so the Hub's viewer and SQL can filter on them. */
const TEXT_COLUMNS = new Set([
  "id",
  "task_id",
  "reason",
  "failure_class",
  "grade_error",
  "policy_version",
]);
const NUMBER_COLUMNS = new Set(["reward", "gold_reward"]);
/** Every row field in the schema's order; nested ones are JSON columns (Parquet's JSON logical type). */
const COLUMNS = Object.keys(RowSchema.shape) as (keyof Row)[];
const FORMAT_KEY = "rehearse.row_format";
const FORMAT = "rehearse-row/1";

/** Rows as one Parquet file: a column per row field, nested fields as JSON, absent fields as null. */
export function rowsToParquet(rows: readonly Row[]): Uint8Array {
  const buffer = parquetWriteBuffer({
    columnData: COLUMNS.map((name) => ({
      name,
      data: rows.map((row) => row[name] ?? null),
      type: TEXT_COLUMNS.has(name) ? "STRING" : NUMBER_COLUMNS.has(name) ? "DOUBLE" : "JSON",
    })),
    kvMetadata: [{ key: FORMAT_KEY, value: FORMAT }],
    createdBy: "rehearse",
  });
  return new Uint8Array(buffer);
}

/** The rows of a file `rowsToParquet` wrote, each checked against the row schema and returned as stored. */
export async function rowsFromParquet(bytes: Uint8Array, file: string): Promise<Row[]> {
  const buffer = bytes.buffer.slice(
    bytes.byteOffset,
    bytes.byteOffset + bytes.byteLength,
  ) as ArrayBuffer;
  const records = await parquetReadObjects({ file: buffer });
  return records.map((record, index) => {
    const row: Record<string, unknown> = {};
    for (const name of COLUMNS) {
      const value = record[name];
      // Optional fields come back absent, as they were written; a JSON column keeps a written null.
      if (value !== null && value !== undefined) row[name] = value;
    }
    const parsed = RowSchema.safeParse(row);
    if (!parsed.success)
      throw new Error(
        `${file}: row ${index + 1} is not a rehearse row: ${parsed.error.issues[0]?.message}`,
      );
    // The row as stored, not as zod rebuilt it: the load's hash check compares every key.
    return row as Row;
  });
}
