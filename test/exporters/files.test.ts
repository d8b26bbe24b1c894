import { createHash } from "node:crypto";
import { mkdtemp, readdir, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { describe, expect, it } from "vitest";
import { type Dataset, InputError, loadDataset } from "../../env/index.ts";
import {
  exportDataset,
  exportPreference,
  exportSft,
  type ParquetColumn,
  ROW_GROUP_ROWS,
  sidecarPath,
  writeJsonl,
  writeParquet,
} from "../../exporters/index.ts";
import { ExportSidecarSchema, type Row } from "../../spec/index.ts";
import { gradedRows } from "./rows.ts";

/** Reads a Parquet file with DuckDB (an independent reader): column types, and rows as JSON values. */
async function duck(
  path: string,
): Promise<{ types: Record<string, string>; rows: Record<string, unknown>[] }> {
  const db = await DuckDBInstance.create(":memory:");
  const connection = await db.connect();
  try {
    const file = path.replace(/'/g, "''");
    const described = await connection.runAndReadAll(
      `DESCRIBE SELECT * FROM read_parquet('${file}')`,
    );
    const types = Object.fromEntries(
      described.getRowObjects().map((r) => [String(r.column_name), String(r.column_type)]),
    );
    const read = await connection.runAndReadAll(`SELECT * FROM read_parquet('${file}')`);
    return { types, rows: read.getRowObjectsJson() as Record<string, unknown>[] };
  } finally {
    connection.closeSync();
  }
}

const lines = async (path: string) =>
  (await readFile(path, "utf8"))
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Record<string, unknown>);

/** A Parquet row as the JSONL row: JSON-text columns parsed, 64-bit integers as numbers. */
function asJsonl(row: Record<string, unknown>, json: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(row).map(([k, v]) => [
      k,
      json.includes(k)
        ? JSON.parse(v as string)
        : typeof v === "string" && /^-?\d+$/.test(v) && !k.endsWith("id")
          ? Number(v)
          : v,
    ]),
  );
}

async function dataOnDisk(): Promise<{ dir: string; path: string; data: Dataset }> {
  const dir = await mkdtemp(join(tmpdir(), "rehearse-export-"));
  const path = join(dir, "data.jsonl");
  const rows = await gradedRows("examples/retail-orders.json");
  await writeFile(path, `${rows.map((r) => JSON.stringify(r)).join("\n")}\n`);
  return { dir, path, data: await loadDataset(path) };
}

describe("Parquet read back by DuckDB: the same rows and types as the JSONL", () => {
  it("SFT: nested columns as JSON text, the loss mask a BOOLEAN[] list, the reward a DOUBLE", async () => {
    const { dir, data } = await dataOnDisk();
    await exportSft(data, join(dir, "sft.jsonl"));
    await exportSft(data, join(dir, "sft.parquet"));
    const jsonl = await lines(join(dir, "sft.jsonl"));
    const parquet = await duck(join(dir, "sft.parquet"));
    expect(parquet.types).toEqual({
      id: "VARCHAR",
      task_id: "VARCHAR",
      messages: "VARCHAR",
      tools: "VARCHAR",
      loss_mask: "BOOLEAN[]",
      reward: "DOUBLE",
    });
    expect(parquet.rows.length).toBeGreaterThan(0);
    expect(parquet.rows.map((r) => asJsonl(r, ["messages", "tools"]))).toEqual(jsonl);
    // The extension in capitals is Parquet too.
    await exportSft(data, join(dir, "SFT.PARQUET"));
    expect((await readFile(join(dir, "SFT.PARQUET"))).subarray(0, 4).toString()).toBe("PAR1");
  });

  it("preference pairs: scores and margin DOUBLE, length_delta BIGINT, same_policy BOOLEAN", async () => {
    const { dir, data } = await dataOnDisk();
    await exportPreference(data, join(dir, "pairs.jsonl"));
    await exportPreference(data, join(dir, "pairs.parquet"));
    const jsonl = await lines(join(dir, "pairs.jsonl"));
    const parquet = await duck(join(dir, "pairs.parquet"));
    expect(parquet.types).toMatchObject({
      prompt: "VARCHAR",
      chosen: "VARCHAR",
      rejected: "VARCHAR",
      score_chosen: "DOUBLE",
      score_rejected: "DOUBLE",
      margin: "DOUBLE",
      same_policy: "BOOLEAN",
      length_delta: "BIGINT",
    });
    expect(Object.keys(parquet.types)).toEqual(Object.keys(jsonl[0] as object));
    expect(parquet.rows.map((r) => asJsonl(r, ["prompt", "chosen", "rejected", "tools"]))).toEqual(
      jsonl,
    );
  });

  it("RL groups: k, n0, n1 BIGINT, mean and std DOUBLE, rewards DOUBLE[], the stamp as JSON text", async () => {
    const { dir, data } = await dataOnDisk();
    await exportDataset(data, join(dir, "rl.jsonl"), { k: 3, keepZeroVariance: true });
    await exportDataset(data, join(dir, "rl.parquet"), { k: 3, keepZeroVariance: true });
    const jsonl = await lines(join(dir, "rl.jsonl"));
    const parquet = await duck(join(dir, "rl.parquet"));
    expect(parquet.types).toMatchObject({
      k: "BIGINT",
      n0: "BIGINT",
      n1: "BIGINT",
      mean: "DOUBLE",
      std: "DOUBLE",
      rewards: "DOUBLE[]",
      calibration: "VARCHAR",
    });
    expect(jsonl).toHaveLength(24);
    expect(
      parquet.rows.map((r) => asJsonl(r, ["prompt", "tools", "ids", "completions", "calibration"])),
    ).toEqual(jsonl);
  });

  it("writes more rows than one row group holds, and none at all", async () => {
    const dir = await mkdtemp(join(tmpdir(), "rehearse-parquet-"));
    const records = Array.from({ length: ROW_GROUP_ROWS * 2 + 17 }, (_, i) => ({
      i,
      ok: i % 2 === 0,
    }));
    const columns: ParquetColumn<{ i: number; ok: boolean }>[] = [
      { name: "i", kind: "int", value: (r) => r.i },
      { name: "ok", kind: "bool", value: (r) => r.ok },
    ];
    expect(await writeParquet(join(dir, "many.parquet"), columns, records)).toBe(records.length);
    const many = await duck(join(dir, "many.parquet"));
    expect(many.rows.map((r) => ({ i: Number(r.i), ok: r.ok }))).toEqual(records);
    expect(await writeParquet(join(dir, "none.parquet"), columns, [])).toBe(0);
    expect((await duck(join(dir, "none.parquet"))).rows).toEqual([]);
  });
});

describe("the sidecar and the atomic write", () => {
  it("says what was exported from what: the source file and its hash, the options, each filter's count", async () => {
    const { dir, path, data } = await dataOnDisk();
    const out = join(dir, "sft.jsonl");
    const returned = await exportSft(data, out, { maskMode: "final" });
    const sidecar = ExportSidecarSchema.parse(JSON.parse(await readFile(sidecarPath(out), "utf8")));
    expect(sidecar).toEqual(returned);
    const rows = await data.rows();
    const failing = rows.filter((r) => (r.reward as number) < 0.5).length;
    expect(sidecar).toMatchObject({
      kind: "sft",
      format: "jsonl",
      source: {
        path,
        sha256: createHash("sha256")
          .update(await readFile(path))
          .digest("hex"),
        rows: rows.length,
      },
      options: { maskMode: "final", passing: true },
      rows: rows.length - failing,
      calibration: { status: "unmeasured", judge: expect.stringMatching(/^readme-grader@1#/) },
    });
    expect(sidecar.filters).toEqual([
      { name: "grade_error", removed: 0, reason: expect.any(String) },
      { name: "not_passing", removed: failing, reason: "reward below the pass threshold" },
      { name: "no_policy_turn", removed: 0, reason: expect.any(String) },
    ]);
    // The sidecar is named apart from a dataset's own: the export's folder still loads as data.
    expect(sidecarPath(out)).toBe(`${out}.export.json`);
  });

  it("is byte-identical run after run", async () => {
    const { dir, data } = await dataOnDisk();
    await exportPreference(data, join(dir, "a.parquet"));
    await exportPreference(data, join(dir, "b.parquet"));
    expect(await readFile(join(dir, "a.parquet"))).toEqual(await readFile(join(dir, "b.parquet")));
  });

  it("leaves nothing behind when refused half way, and refuses writing over its input", async () => {
    const { dir, path, data } = await dataOnDisk();
    const rows = await data.rows();
    const ungradedLast = [...rows.slice(0, 10), { ...rows[10], reward: undefined } as Row];
    delete (ungradedLast[10] as Row).reward;
    const before = await readdir(dir);
    await expect(exportSft(ungradedLast, join(dir, "half.parquet"))).rejects.toBeInstanceOf(
      InputError,
    );
    expect(await readdir(dir)).toEqual(before);
    const refusal = await exportSft(data, path).catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(InputError);
    expect((refusal as InputError).message).toMatch(/is read by this command/);
    expect(await readdir(dir)).toEqual(before);
  });

  it("makes a missing folder for its output, and a file that cannot be opened fails the export instead of hanging it", async () => {
    const { dir, data } = await dataOnDisk();
    for (const name of ["sft.jsonl", "sft.parquet"]) {
      const out = join(dir, "new", "deeper", name);
      const sidecar = await exportSft(data, out, { passing: false });
      expect(sidecar.rows).toBeGreaterThan(0);
      expect((await readFile(out)).length).toBeGreaterThan(0);
    }
    // A file where the folder should be: opening the temp file fails (ENOTDIR) after the stream is made.
    await writeFile(join(dir, "plain"), "");
    // Records that come slowly, as rows read from a file do: the stream has failed and closed before the last.
    async function* slowly() {
      for (let i = 0; i < 3; i++) {
        await new Promise((resolve) => setTimeout(resolve, 30));
        yield { i };
      }
    }
    await expect(writeJsonl(join(dir, "plain", "x.jsonl"), slowly())).rejects.toThrow(/ENOTDIR/);
  });
});
