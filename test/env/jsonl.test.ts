import { rmSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkDatasetOutput, writeDataset } from "../../env/jsonl.ts";
import { SimulationInterrupted, simulate } from "../../env/simulate.ts";
import type { Row } from "../../spec/index.ts";
import { referenceSpec } from "../fixtures/reference-spec.ts";

const tmp = () => mkdtemp(join(tmpdir(), "rehearse-jsonl-"));

/** Runs `rows` situations into `out` and stops once `stopAt` rows are kept, leaving `<out>.partial`. */
async function interrupted(out: string, rows: number, stopAt: number): Promise<string> {
  const controller = new AbortController();
  await expect(
    simulate(referenceSpec, {
      rows,
      out,
      signal: controller.signal,
      onProgress: (done) => done === stopAt && controller.abort(),
    }),
  ).rejects.toThrow(SimulationInterrupted);
  return readFile(`${out}.partial`, "utf8");
}

const lineCount = (text: string) => text.split("\n").filter(Boolean).length;

describe("a run's output: finished rows are never dropped unasked", () => {
  it("refuses to start over an unfinished run's partial file, saying how many rows it holds and the way to keep or discard them", async () => {
    const dir = await tmp();
    const out = join(dir, "d.jsonl");
    const partial = await interrupted(out, 20, 6);
    const meta = await readFile(`${out}.partial.meta.json`, "utf8");
    await expect(simulate(referenceSpec, { rows: 20, out })).rejects.toThrow(
      `✖ out: ${out}.partial holds ${lineCount(partial)} rows of an unfinished run: use resume: true to continue from them, or overwrite: true to discard them`,
    );
    expect(await readFile(`${out}.partial`, "utf8")).toBe(partial);
    expect(await readFile(`${out}.partial.meta.json`, "utf8")).toBe(meta);
    await expect(
      simulate(referenceSpec, { rows: 20, out, resume: true, overwrite: true }),
    ).rejects.toThrow(
      "✖ overwrite: resume keeps the rows of an unfinished run and overwrite discards them; expected one of them",
    );
    const fresh = await simulate(referenceSpec, { rows: 8, out, overwrite: true });
    expect(fresh.size).toBe(8);
    expect((await readdir(dir)).sort()).toEqual(["d.jsonl", "d.jsonl.meta.json"]);
  });

  it("refuses to replace a complete file unless told to, and keeps it until the new one is whole", async () => {
    const dir = await tmp();
    const out = join(dir, "d.jsonl");
    await simulate(referenceSpec, { rows: 5, out });
    const before = await readFile(out, "utf8");
    await expect(simulate(referenceSpec, { rows: 5, seed: 2, out })).rejects.toThrow(
      `✖ out: ${out} already exists (5 rows): use overwrite: true to replace it once the new run is complete, or write to another file`,
    );
    await expect(simulate(referenceSpec, { rows: 5, out, resume: true })).rejects.toThrow(
      /already exists \(5 rows\) and there is no .*d\.jsonl\.partial to resume: use overwrite: true instead of resume/,
    );
    expect(await readFile(out, "utf8")).toBe(before);
    await simulate(referenceSpec, { rows: 5, seed: 2, out, overwrite: true });
    expect(await readFile(out, "utf8")).not.toBe(before);
  });

  it("refuses an output that is the spec it reads, before any work, leaving the spec whole", async () => {
    const dir = await tmp();
    const spec = join(dir, "s.json");
    const text = `${JSON.stringify(referenceSpec)}\n`;
    await writeFile(spec, text);
    await expect(simulate(spec, { rows: 2, out: spec })).rejects.toThrow(
      `✖ out: ${spec} is read by this command; write to another file`,
    );
    expect(await readFile(spec, "utf8")).toBe(text);
    expect(await readdir(dir)).toEqual(["s.json"]);
  });

  it("resumes a partial file whose sidecar was lost: the rows are kept, checked against the plan, and the dataset says so", async () => {
    const dir = await tmp();
    const full = join(dir, "full.jsonl");
    await simulate(referenceSpec, { rows: 24, out: full });
    const out = join(dir, "cut.jsonl");
    const partial = await interrupted(out, 24, 7);
    await rm(`${out}.partial.meta.json`);
    // Rows made by another plan are refused, and kept.
    await expect(simulate(referenceSpec, { rows: 24, seed: 9, out, resume: true })).rejects.toThrow(
      /cannot resume .*cut\.jsonl\.partial is invalid[\s\S]*✖ row 1: holds row_\w+, but this run plans row_\w+ there/,
    );
    // Rows another agent played are refused too: the rows name who played them.
    const [first, ...rest] = partial.split("\n");
    const other = {
      ...JSON.parse(first as string),
      models: { ...JSON.parse(first as string).models, agent: "someone-else" },
    };
    await writeFile(`${out}.partial`, [JSON.stringify(other), ...rest].join("\n"));
    await expect(simulate(referenceSpec, { rows: 24, out, resume: true })).rejects.toThrow(
      /✖ row 1: was played by agent someone-else, but this run's agent is offline/,
    );
    await writeFile(`${out}.partial`, partial);
    // Stopped again after the resume, and resumed again: the warning is carried on.
    const controller = new AbortController();
    await expect(
      simulate(referenceSpec, {
        rows: 24,
        out,
        resume: true,
        signal: controller.signal,
        onProgress: (done) => done === lineCount(partial) + 3 && controller.abort(),
      }),
    ).rejects.toThrow(SimulationInterrupted);
    expect((await readFile(`${out}.partial`, "utf8")).startsWith(partial)).toBe(true);
    const resumed = await simulate(referenceSpec, { rows: 24, out, resume: true });
    expect(await readFile(out, "utf8")).toBe(await readFile(full, "utf8"));
    expect(resumed.warnings).toContainEqual(
      expect.stringMatching(
        new RegExp(
          `^sidecar rebuilt: .*cut\\.jsonl\\.partial had lost its sidecar; its ${lineCount(partial)} rows match this run's plan and models`,
        ),
      ),
    );
  });

  it("refuses to resume from a sidecar it cannot read, keeping the rows, and says how to rebuild it", async () => {
    const dir = await tmp();
    const out = join(dir, "d.jsonl");
    const partial = await interrupted(out, 12, 4);
    await writeFile(`${out}.partial.meta.json`, "{ torn");
    await expect(simulate(referenceSpec, { rows: 12, out, resume: true })).rejects.toThrow(
      /expected JSON[\s\S]*the rows are kept; remove .*d\.jsonl\.partial\.meta\.json to resume with a sidecar rebuilt from them/,
    );
    expect(await readFile(`${out}.partial`, "utf8")).toBe(partial);
  });

  it("checks the output before any work: a folder, `.` or a path under a file is refused, and nothing is written", async () => {
    const dir = await tmp();
    const check = (out: string) =>
      checkDatasetOutput(out, {
        what: "simulate flags",
        style: "flags",
        reads: [],
        resume: false,
        overwrite: false,
      });
    await expect(check(dir)).rejects.toThrow(`✖ --out: ${dir} is a folder; expected a file`);
    await expect(check(`${dir}/.`)).rejects.toThrow(/names a folder/);
    await writeFile(join(dir, "file"), "x");
    await expect(check(join(dir, "file", "d.jsonl"))).rejects.toThrow(
      /file is a file, not a folder/,
    );
    // The partial file's name is the longest the run writes: 230 bytes fit a file name, not with it.
    await expect(check(join(dir, `${"n".repeat(230)}`))).rejects.toThrow(/needs 265 bytes/);
    expect(await readdir(dir)).toEqual(["file"]);
  });

  it("fails a write while running in one line naming the file, and leaves no temp file behind", async () => {
    const dir = await tmp();
    const out = join(dir, "gone", "d.jsonl");
    const error = await simulate(referenceSpec, {
      rows: 6,
      out,
      concurrency: 1,
      // The folder vanishes under the run: the rows are appended to a file no longer there.
      onProgress: (done) => {
        if (done === 2) rmSync(join(dir, "gone"), { recursive: true });
      },
    }).catch((e: Error) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(
      /^cannot write .*gone\/d\.jsonl(\.partial|\.meta\.json)?: no such file or folder \(ENOENT\)$/,
    );
    expect(await readdir(dir)).toEqual([]);
  });
});

describe("writeDataset", () => {
  it("replaces a file only when the new one is whole: a row that cannot be written leaves the old file and sidecar", async () => {
    const dir = await tmp();
    const path = join(dir, "d.jsonl");
    const data = await simulate(referenceSpec, { rows: 3, out: path });
    const rows = await data.rows();
    const before = [await readFile(path, "utf8"), await readFile(`${path}.meta.json`, "utf8")];
    const bad = { ...rows[0], reward: 10n } as unknown as Row;
    const error = await writeDataset(path, [rows[0] as Row, bad], data.meta).catch((e: Error) => e);
    expect((error as Error).message).toMatch(/^cannot write .*d\.jsonl: .*BigInt/);
    expect([await readFile(path, "utf8"), await readFile(`${path}.meta.json`, "utf8")]).toEqual(
      before,
    );
    expect((await readdir(dir)).sort()).toEqual(["d.jsonl", "d.jsonl.meta.json"]);
  });

  it("leaves no temporary file behind when a row fails before its file has opened", async () => {
    // The file opened by the stream itself came into being after a row had failed and the
    // temporary file had been removed: about 1 write in 14 left it behind.
    const dir = await tmp();
    const bad = { id: "row_bad", reward: 10n } as unknown as Row;
    for (let i = 0; i < 100; i++) {
      const path = join(dir, `d${i}.jsonl`);
      await expect(writeDataset(path, [bad], null)).rejects.toThrow(/BigInt/);
    }
    await new Promise((done) => setTimeout(done, 20));
    expect(await readdir(dir)).toEqual([]);
  });
});
