import { execFileSync } from "node:child_process";
import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Dataset, InputError, simulate } from "../../../env/index.ts";
import grade from "../../../examples/grader.ts";
import { describeHubRepo, loadFromHub, pushToHub } from "../../../exporters/hub/index.ts";
import type { HubManifest } from "../../../spec/index.ts";

const git = (repo: string, ...args: string[]) =>
  execFileSync("git", ["-C", repo, ...args], { encoding: "utf8" }).trim();

let folder: string;
let graded: Dataset;
let more: Dataset;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), "rehearse-hub-"));
  graded = await simulate("examples/retail-orders.json", {
    rows: 30,
    seed: 3,
    out: join(folder, "a.jsonl"),
  });
  await graded.grade({ grader: grade });
  more = await simulate("test/fixtures/specs/airline.json", { rows: 40, seed: 4 });
  await more.grade({ grader: grade });
});

afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

describe("pushToHub and loadFromHub on a local git repository", () => {
  it("pushes a split as Parquet with its card and manifest, and loads it back exactly", async () => {
    const repo = join(folder, "first");
    const pushed = await pushToHub(graded, { repo, split: "train" });
    expect(git(repo, "rev-parse", "main")).toBe(pushed.revision);
    expect(git(repo, "ls-tree", "-r", "--name-only", "main").split("\n").sort()).toEqual([
      "README.md",
      "data/train-00000-of-00001.parquet",
      "meta/train.json",
      "rehearse.json",
    ]);
    const card = git(repo, "show", "main:README.md");
    expect(card).toMatch(
      /^---\nconfigs:\n- config_name: default\n {2}data_files:\n {2}- split: train\n {4}path: data\/train-\*\.parquet\n/,
    );
    const report = await graded.report();
    expect(pushed.summary).toEqual({
      rows: 30,
      graded: report.graded,
      pass_rate: report.pass_rate,
      support: new Set((await graded.rows()).map((row) => row.task_id)).size,
    });
    expect(git(repo, "log", "-1", "--format=%s", "main")).toBe(
      `train: 30 rows, pass rate ${((report.pass_rate ?? 0) * 100).toFixed(1)}%, support ${pushed.summary.support}`,
    );

    const back = await loadFromHub(repo, "train");
    expect(await back.rows()).toEqual(await graded.rows());
    expect(back.meta).toEqual(graded.meta);
    expect(back.coverage).toEqual(graded.coverage);
    expect(await back.report()).toEqual(report);
  });

  it("replaces a split's old parts, keeps other splits, and records the history", async () => {
    const repo = join(folder, "history");
    const first = await pushToHub(graded, { repo, split: "train", rowsPerPart: 7 });
    expect(first.files.filter((path) => path.startsWith("data/"))).toHaveLength(5);
    await pushToHub(more, { repo, split: "eval" });
    const second = await pushToHub(more, { repo, split: "train" });
    expect(second.replaced).not.toBeNull();

    const files = git(repo, "ls-tree", "-r", "--name-only", "main").split("\n").sort();
    expect(files).toEqual([
      "README.md",
      "data/eval-00000-of-00001.parquet",
      "data/train-00000-of-00001.parquet",
      "meta/eval.json",
      "meta/train.json",
      "rehearse.json",
    ]);
    const manifest = JSON.parse(git(repo, "show", "main:rehearse.json")) as HubManifest;
    expect(manifest.history.map((push) => push.split)).toEqual(["train", "eval", "train"]);
    expect(manifest.history[0]?.replaced).toBeNull();
    expect(manifest.history[2]?.replaced?.summary.rows).toBe(30);
    expect(manifest.history[2]?.replaced?.revision).toBe(git(repo, "rev-parse", "main~1"));
    expect(manifest.splits.train?.push).toBe(2);
    expect(manifest.splits.train?.source.spec_hash).toBe(more.meta?.spec_hash);
    const message = git(repo, "log", "-1", "--format=%s", "main");
    expect(message).toMatch(
      /^train: 40 rows \(was 30\), pass rate [\d.]+% \(was [\d.]+%\), support \d+ \(was \d+\)$/,
    );

    // Each push stays loadable by its revision, exactly as it was.
    expect(await (await loadFromHub(repo, "train", { revision: first.revision })).rows()).toEqual(
      await graded.rows(),
    );
    expect(await (await loadFromHub(repo, "train")).rows()).toEqual(await more.rows());
    expect(await (await loadFromHub(repo, "eval", { revision: "main" })).rows()).toEqual(
      await more.rows(),
    );
    const described = await describeHubRepo(repo, { revision: first.revision });
    expect(Object.keys(described.manifest.splits)).toEqual(["train"]);
  });

  it("refuses an unknown split, a missing revision, and a repository that is not ours", async () => {
    const repo = join(folder, "refusals");
    await pushToHub(graded, { repo, split: "holdout" });
    await expect(pushToHub(graded, { repo, split: "test" as "train" })).rejects.toThrow(
      /split: expected one of the splits train, holdout, eval/,
    );
    await expect(loadFromHub(repo, "train")).rejects.toThrow(
      /has no split "train" at [0-9a-f]{12} \(it holds holdout\)/,
    );
    await expect(loadFromHub(repo, "holdout", { revision: "v9" })).rejects.toThrow(
      /revision: "v9" names no commit in this repository/,
    );
    await expect(loadFromHub(join(folder, "nowhere"), "train")).rejects.toThrow(
      /has no commits on main/,
    );

    const foreign = join(folder, "foreign");
    execFileSync("git", ["init", "-q", "-b", "main", foreign]);
    await writeFile(join(foreign, "notes.txt"), "mine\n");
    git(foreign, "add", "notes.txt");
    git(foreign, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "mine");
    const refusal = pushToHub(graded, { repo: foreign, split: "train" });
    await expect(refusal).rejects.toBeInstanceOf(InputError);
    await expect(refusal).rejects.toThrow(
      /has no rehearse.json at [0-9a-f]{12}: it is not a rehearse dataset repository/,
    );
    expect(git(foreign, "log", "--format=%s")).toBe("mine");
    await expect(loadFromHub(foreign, "train")).rejects.toThrow(
      /not a rehearse dataset repository/,
    );

    const occupied = join(folder, "occupied");
    await writeFile(join(folder, "occupied"), "a file");
    await expect(pushToHub(graded, { repo: occupied, split: "train" })).rejects.toThrow(
      /expected a git repository, or a new or empty folder/,
    );
  });

  it("leaves the previous revision whole when a push fails at the last step", async () => {
    const repo = join(folder, "failing");
    const first = await pushToHub(graded, { repo, split: "train" });
    const manifestBefore = git(repo, "show", "main:rehearse.json");
    // git's reference-transaction hook refuses the branch update: everything else was already written.
    const hook = join(repo, "hooks", "reference-transaction");
    await writeFile(hook, '#!/bin/sh\n[ "$1" = prepared ] && exit 1\nexit 0\n');
    await chmod(hook, 0o755);
    await expect(pushToHub(more, { repo, split: "train" })).rejects.toThrow(
      /git update-ref failed in/,
    );
    expect(git(repo, "rev-parse", "main")).toBe(first.revision);
    expect(git(repo, "show", "main:rehearse.json")).toBe(manifestBefore);
    expect(await (await loadFromHub(repo, "train")).rows()).toEqual(await graded.rows());
    await rm(hook);
    const retried = await pushToHub(more, { repo, split: "train" });
    expect(retried.replaced).toBe(first.revision);
  });

  it("refuses a push racing another onto the same branch", async () => {
    const repo = join(folder, "race");
    await pushToHub(graded, { repo, split: "train" });
    const results = await Promise.allSettled([
      pushToHub(more, { repo, split: "eval" }),
      pushToHub(more, { repo, split: "holdout" }),
    ]);
    const landed = results.filter((result) => result.status === "fulfilled");
    expect(landed.length).toBeGreaterThanOrEqual(1);
    const manifest = JSON.parse(git(repo, "show", "main:rehearse.json")) as HubManifest;
    // Whatever landed is whole: the history has exactly one entry per landed push.
    expect(manifest.history).toHaveLength(1 + landed.length);
    for (const result of results)
      if (result.status === "rejected")
        expect(String(result.reason)).toMatch(/git update-ref failed/);
  });

  it("follows a clean work tree and refuses a dirty one", async () => {
    const repo = join(folder, "worktree");
    execFileSync("git", ["init", "-q", "-b", "main", repo]);
    await pushToHub(graded, { repo, split: "train" });
    expect(JSON.parse(await readFile(join(repo, "rehearse.json"), "utf8")).history).toHaveLength(1);
    await writeFile(join(repo, "README.md"), "edited\n");
    await expect(pushToHub(more, { repo, split: "eval" })).rejects.toThrow(
      /has uncommitted changes/,
    );
  });

  it("finds a damaged split instead of loading other rows", async () => {
    const repo = join(folder, "damaged");
    await pushToHub(graded, { repo, split: "train" });
    const manifest = JSON.parse(git(repo, "show", "main:rehearse.json")) as HubManifest;
    const entry = manifest.splits.train;
    if (!entry) throw new Error("no train split");
    entry.source.rows_sha256 = "0".repeat(64);
    const clone = join(folder, "damaged-clone");
    execFileSync("git", ["clone", "-q", repo, clone]);
    await writeFile(join(clone, "rehearse.json"), `${JSON.stringify(manifest, null, 2)}\n`);
    git(clone, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "tamper");
    await expect(loadFromHub(clone, "train")).rejects.toThrow(
      /is damaged: its rows differ from those pushed/,
    );
  });
});
