import { type ColumnSource, fileWriter, ParquetWriter, type SchemaElement } from "hyparquet-writer";
import { writeThroughTemp } from "./temp-file.ts";

/**
 * A column of an export's Parquet file. Scalars keep their type; `bool_list` is a list of booleans
 * (the loss mask), `double_list` a list of numbers; `json` holds a nested value (messages, tools) as
 * its JSON text, because one Parquet schema per column cannot hold tool arguments and parameter
 * schemas that differ from tool to tool without filling every call with the others' keys as nulls.
 */
export interface ParquetColumn<R> {
  name: string;
  kind: "string" | "double" | "int" | "bool" | "bool_list" | "double_list" | "json";
  /** Whether the value may be null (scalars only). */
  nullable?: boolean;
  value: (record: R) => unknown;
}

/** Rows held in memory before a row group is written: bounds memory on large exports. */
export const ROW_GROUP_ROWS = 1000;

function schemaOf(column: ParquetColumn<unknown>): SchemaElement[] {
  const repetition = column.nullable ? "OPTIONAL" : "REQUIRED";
  const list = (type: "BOOLEAN" | "DOUBLE"): SchemaElement[] => [
    { name: column.name, repetition_type: "REQUIRED", converted_type: "LIST", num_children: 1 },
    { name: "list", repetition_type: "REPEATED", num_children: 1 },
    { name: "element", type, repetition_type: "REQUIRED" },
  ];
  switch (column.kind) {
    case "string":
    case "json":
      return [
        {
          name: column.name,
          type: "BYTE_ARRAY",
          converted_type: "UTF8",
          repetition_type: repetition,
        },
      ];
    case "double":
      return [{ name: column.name, type: "DOUBLE", repetition_type: repetition }];
    case "int":
      return [{ name: column.name, type: "INT64", repetition_type: repetition }];
    case "bool":
      return [{ name: column.name, type: "BOOLEAN", repetition_type: repetition }];
    case "bool_list":
      return list("BOOLEAN");
    case "double_list":
      return list("DOUBLE");
  }
}

function cell(column: ParquetColumn<unknown>, record: unknown): unknown {
  const value = column.value(record);
  if (column.kind === "json") return JSON.stringify(value);
  if (column.kind === "int") return value === null ? null : BigInt(value as number);
  return value;
}

/**
 * Writes records as a Parquet file, one row group per {@link ROW_GROUP_ROWS} records so a large
 * export never holds more than one group, atomically (temp file, then rename). Returns the count.
 */
export async function writeParquet<R>(
  path: string,
  columns: readonly ParquetColumn<R>[],
  records: AsyncIterable<R> | Iterable<R>,
): Promise<number> {
  const all = columns as readonly ParquetColumn<unknown>[];
  const schema: SchemaElement[] = [
    { name: "root", num_children: all.length },
    ...all.flatMap(schemaOf),
  ];
  return writeThroughTemp(path, async (temp) => {
    const writer = new ParquetWriter({ writer: fileWriter(temp), schema, createdBy: "rehearse" });
    let batch: unknown[] = [];
    let count = 0;
    const flush = async () => {
      if (batch.length === 0) return;
      const columnData: ColumnSource[] = all.map((column) => ({
        name: column.name,
        data: batch.map((record) => cell(column, record)),
      }));
      await writer.write({ columnData, rowGroupSize: batch.length });
      batch = [];
    };
    for await (const record of records) {
      batch.push(record);
      count++;
      if (batch.length >= ROW_GROUP_ROWS) await flush();
    }
    await flush();
    await writer.finish();
    return count;
  });
}
