import { mkdtemp, readFile, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { conversationText } from "../../exporters/index.ts";
import { ExportSidecarSchema, RowSchema } from "../../spec/index.ts";
import { gradedRows } from "../exporters/rows.ts";
import { rehearse } from "../support/cli.ts";

describe("rehearse decontaminate", () => {
  it("keeps the rows that leak nothing, and lists each removed row with its rule and eval item", async () => {
    const dir = await mkdtemp(join(tmpdir(), "rehearse-cli-decon-"));
    const rows = await gradedRows("examples/it-helpdesk.json");
    const data = join(dir, "data.jsonl");
    await writeFile(data, `${rows.map((r) => JSON.stringify(r)).join("\n")}\n`);
    const [byTask, byText] = [rows[0], rows[30]] as const;
    const text = conversationText(byText?.messages ?? []);
    const evalSet = join(dir, "eval.jsonl");
    await writeFile(
      evalSet,
      [
        JSON.stringify({ id: "eval-1", task_id: byTask?.task_id, text: "anything" }),
        JSON.stringify({ id: "eval-2", text: text.toUpperCase() }),
        "",
      ].join("\n"),
    );
    const out = join(dir, "clean.jsonl");
    const run = await rehearse("decontaminate", "--in", data, "--eval", evalSet, "--out", out);
    expect(run).toMatchObject({ code: 0, stderr: "" });
    const sidecar = ExportSidecarSchema.parse(
      JSON.parse(await readFile(`${out}.export.json`, "utf8")),
    );
    const sameTask = rows.filter((r) => r.task_id === byTask?.task_id).length;
    expect(sidecar.removed?.filter((r) => r.rule === "task_id")).toHaveLength(sameTask);
    expect(sidecar.removed?.find((r) => r.id === byText?.id)).toMatchObject({
      rule: "exact_text",
      eval_id: "eval-2",
    });
    expect(sidecar.eval).toMatchObject({ path: evalSet, items: 2 });
    const kept = (await readFile(out, "utf8"))
      .trim()
      .split("\n")
      .map((l) => RowSchema.parse(JSON.parse(l)));
    expect(kept.length + (sidecar.removed?.length ?? 0)).toBe(rows.length);
    expect(sidecar.rows).toBe(kept.length);
    expect(run.stdout).toMatch(/^kept {6}\d+ of 72 rows/m);
    expect(run.stdout).toMatch(
      /task_id \d+ · exact_text 1 · ngram \d+ · embedding 0 \(against 2 eval items\)/,
    );
  });

  it("refuses a bad eval line and a bad embedder with exit 2", async () => {
    const dir = await mkdtemp(join(tmpdir(), "rehearse-cli-decon-"));
    const rows = await gradedRows("examples/it-helpdesk.json");
    const data = join(dir, "data.jsonl");
    await writeFile(data, `${rows.map((r) => JSON.stringify(r)).join("\n")}\n`);
    const evalSet = join(dir, "eval.jsonl");
    await writeFile(evalSet, '{"text": "ok"}\nnot json\n');
    const bad = await rehearse(
      "decontaminate",
      "--in",
      data,
      "--eval",
      evalSet,
      "--out",
      join(dir, "c.jsonl"),
    );
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/eval\.jsonl:2 is invalid.*expected a JSON eval item/s);
    await writeFile(evalSet, '{"text": "ok"}\n');
    const offline = await rehearse(
      "decontaminate",
      "--in",
      data,
      "--eval",
      evalSet,
      "--out",
      join(dir, "c.jsonl"),
      "--embedder",
      "offline",
    );
    expect(offline.code).toBe(2);
    expect(offline.stderr).toMatch(/offline is no embeddings endpoint/);
    // The rows kept are JSONL: a Parquet name is refused, not filled with JSONL.
    const parquet = join(dir, "clean.parquet");
    const named = await rehearse(
      "decontaminate",
      "--in",
      data,
      "--eval",
      evalSet,
      "--out",
      parquet,
    );
    expect(named.code).toBe(2);
    expect(named.stderr).toMatch(
      /✖ --out: .*clean\.parquet: the rows kept are written as JSONL .*not Parquet/,
    );
    await expect(stat(parquet)).rejects.toThrow(/ENOENT/);
  });
});
