import { mkdtemp, readdir, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ExportSidecarSchema } from "../../spec/index.ts";
import { gradedRows } from "../exporters/rows.ts";
import { rehearse } from "../support/cli.ts";

async function graded(): Promise<{ dir: string; data: string }> {
  const dir = await mkdtemp(join(tmpdir(), "rehearse-cli-export-"));
  const data = join(dir, "data.jsonl");
  const rows = await gradedRows("examples/personal-finance.json");
  await writeFile(data, `${rows.map((r) => JSON.stringify(r)).join("\n")}\n`);
  return { dir, data };
}

describe("rehearse export sft|preference|rl", () => {
  it("writes each export with its sidecar and a summary", async () => {
    const { dir, data } = await graded();
    const sft = await rehearse(
      "export",
      "sft",
      "--in",
      data,
      "--out",
      join(dir, "sft.parquet"),
      "--mask-mode",
      "final",
    );
    expect(sft).toMatchObject({ code: 0, stderr: "" });
    expect(sft.stdout).toMatch(
      /^wrote {5}\d+ sft rows to .*sft\.parquet \(parquet\) from 72 rows$/m,
    );
    expect(sft.stdout).toMatch(/^sidecar {3}.*sft\.parquet\.export\.json$/m);
    const sidecar = ExportSidecarSchema.parse(
      JSON.parse(await readFile(join(dir, "sft.parquet.export.json"), "utf8")),
    );
    expect(sidecar.options).toEqual({ maskMode: "final", passing: true });

    const all = await rehearse(
      "export",
      "sft",
      "--in",
      data,
      "--out",
      join(dir, "all.jsonl"),
      "--no-passing",
      "--json",
    );
    expect(all.code).toBe(0);
    expect(JSON.parse(all.stdout)).toMatchObject({ rows: 72, options: { passing: false } });

    const pairs = await rehearse(
      "export",
      "preference",
      "--in",
      data,
      "--out",
      join(dir, "pairs.jsonl"),
      "--json",
    );
    expect(pairs.code).toBe(0);
    const pairsSidecar = JSON.parse(pairs.stdout);
    expect(pairsSidecar).toMatchObject({ kind: "preference", format: "jsonl" });
    expect(pairsSidecar).not.toHaveProperty("pairs");

    const rl = await rehearse(
      "export",
      "rl",
      "--in",
      data,
      "--out",
      join(dir, "rl.jsonl"),
      "--k",
      "3",
      "--format",
      "parquet",
    );
    expect(rl.code).toBe(0);
    expect(rl.stdout).toMatch(/rl rows to .*rl\.jsonl \(parquet\)/);
    expect((await readFile(join(dir, "rl.jsonl"))).subarray(0, 4).toString()).toBe("PAR1");
  });

  it.each([
    [["export", "dpo"], /<kind>: expected one of sft, preference, rl(, env)?, got "dpo"/],
    [
      ["export", "sft", "--mask-mode", "last"],
      /--mask-mode: expected "all" or "final", got "last"/,
    ],
    [["export", "sft", "--format", "csv"], /--format: expected "jsonl" or "parquet", got "csv"/],
    [["export", "rl"], /--k: expected the group size for export rl/],
    [["export", "rl", "--k", "1"], /--k: expected a group size of at least 2/],
    [["export", "preference", "--k", "3"], /--k: applies to export rl, not preference/],
    [
      ["export", "sft", "--keep-zero-variance"],
      /--keep-zero-variance: applies to export rl, not sft/,
    ],
  ])("refuses %j with exit 2 and one clear message, no stack", async (args, message) => {
    const { dir, data } = await graded();
    const before = await readdir(dir);
    const [command, kind, ...rest] = args as string[];
    const run = await rehearse(
      command as string,
      kind as string,
      "--in",
      data,
      "--out",
      join(dir, "x.jsonl"),
      ...rest,
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(await readdir(dir)).toEqual(before);
  });

  it("refuses ungraded data for sft and preference, and an existing output without --overwrite", async () => {
    const { dir, data } = await graded();
    const rows = (await readFile(data, "utf8"))
      .trim()
      .split("\n")
      .map((l) => {
        const { reward: _r, ...row } = JSON.parse(l);
        return JSON.stringify(row);
      });
    const bare = join(dir, "ungraded.jsonl");
    await writeFile(bare, `${rows.join("\n")}\n`);
    for (const kind of ["sft", "preference"]) {
      const run = await rehearse("export", kind, "--in", bare, "--out", join(dir, `${kind}.jsonl`));
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/expected graded rows: this row has no reward/);
    }
    const out = join(dir, "sft.jsonl");
    expect((await rehearse("export", "sft", "--in", data, "--out", out)).code).toBe(0);
    const again = await rehearse("export", "sft", "--in", data, "--out", out);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/already exists: use --overwrite/);
    expect((await rehearse("export", "sft", "--in", data, "--out", out, "--overwrite")).code).toBe(
      0,
    );
    const onInput = await rehearse("export", "sft", "--in", data, "--out", data, "--overwrite");
    expect(onInput.code).toBe(2);
    expect(onInput.stderr).toMatch(/✖ --out: .* is read by this command/);
    // Without --overwrite too, the input is named as such, not as a file that already exists.
    const onInputUnasked = await rehearse("export", "sft", "--in", data, "--out", data);
    expect(onInputUnasked.stderr).toMatch(/✖ --out: .* is read by this command/);
  });
});
