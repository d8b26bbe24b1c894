import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rehearse } from "../support/cli.ts";

let folder: string;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), "rehearse-cli-hub-"));
  const data = join(folder, "data.jsonl");
  expect(
    (
      await rehearse(
        "simulate",
        "--spec",
        "examples/retail-orders.json",
        "--rows",
        "12",
        "--out",
        data,
      )
    ).code,
  ).toBe(0);
  expect((await rehearse("grade", data, "--grader", "examples/grader.ts")).code).toBe(0);
});

afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

describe("rehearse push and pull", () => {
  it("pushes a graded file, then pulls and measures that push", async () => {
    const repo = join(folder, "repo");
    const pushed = await rehearse(
      "push",
      join(folder, "data.graded.jsonl"),
      "--repo",
      repo,
      "--split",
      "train",
    );
    expect(pushed.stderr).toBe("");
    expect(pushed.code).toBe(0);
    expect(pushed.stdout).toMatch(
      /^pushed {4}.*data\.graded\.jsonl as train of .*repo\nrevision {2}[0-9a-f]{40}\nrows {6}12, pass rate [\d.]+%, \d+ situations\n$/,
    );

    const out = join(folder, "pulled.jsonl");
    const pulled = await rehearse("pull", repo, "--split", "train", "--out", out);
    expect(pulled.code).toBe(0);
    expect(pulled.stdout).toMatch(
      /rows {6}12 \(12 graded\), pass rate [\d.]+%\ncoverage {2}[\d.]+% of planned pairs\nagreement no labels to measure against\n/,
    );
    const original = (await readFile(join(folder, "data.graded.jsonl"), "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    const back = (await readFile(out, "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(back).toEqual(original);
    // A file already there is replaced only when asked.
    const again = await rehearse("pull", repo, "--split", "train", "--out", out);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(
      /--out: .*pulled\.jsonl already exists: use --overwrite to replace it/,
    );
    const replaced = await rehearse("pull", repo, "--split", "train", "--out", out, "--overwrite");
    expect(replaced.code).toBe(0);

    const json = await rehearse("pull", repo, "--split", "train", "--json");
    expect(JSON.parse(json.stdout)).toMatchObject({ split: "train", rows: 12, graded: 12 });
  });

  it("refuses bad flags, a missing split and an unknown revision by name, exit 2, no stack", async () => {
    const repo = join(folder, "repo2");
    await rehearse("push", join(folder, "data.graded.jsonl"), "--repo", repo, "--split", "eval");
    const split = await rehearse(
      "push",
      join(folder, "data.graded.jsonl"),
      "--repo",
      repo,
      "--split",
      "dev",
    );
    expect(split.code).toBe(2);
    expect(split.stderr).toMatch(/--split: expected one of the splits train, holdout, eval/);
    const missing = await rehearse("pull", repo, "--split", "train");
    expect(missing.code).toBe(2);
    expect(missing.stderr).not.toMatch(/\n\s+at /);
    expect(missing.stderr).toMatch(/has no split "train" at [0-9a-f]{12} \(it holds eval\)/);
    const revision = await rehearse("pull", repo, "--split", "eval", "--revision", "deadbeef");
    expect(revision.code).toBe(2);
    expect(revision.stderr).toMatch(/"deadbeef" names no commit/);
  });
});
