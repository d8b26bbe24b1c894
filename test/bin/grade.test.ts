import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadDataset } from "../../env/dataset.ts";
import { Rng } from "../../env/rng.ts";
import { simulate } from "../../env/simulate.ts";
import { GradeReportSchema, RowSchema } from "../../spec/index.ts";
import { ROOT, rehearse } from "../support/cli.ts";

describe("end to end, offline: simulate → conduct checks → the README's grader → 50 human labels → agreement", () => {
  it("measures the grader against people, and every graded row says who graded it", async () => {
    const dir = await mkdtemp(join(tmpdir(), "rehearse-grade-"));
    const data = join(dir, "data.jsonl");
    await simulate(join(ROOT, "examples/personal-finance.json"), { rows: 200, out: data });
    const rows = await (await loadDataset(data)).rows();
    expect(rows.some((r) => r.conduct.length > 0)).toBe(true);
    // A reviewer labels 50 rows: anything the agent slipped on, or the person gave up on, fails.
    const sample = new Rng(7).shuffle(rows).slice(0, 50);
    const labels = sample.map((r) => ({
      id: r.id,
      reward: r.episode.slips.length === 0 && r.episode.ended_by !== "user_gave_up" ? 1 : 0,
      by: "reviewer-1",
    }));
    await writeFile(
      join(dir, "labels.jsonl"),
      `${labels.map((l) => JSON.stringify(l)).join("\n")}\n`,
    );

    const run = await rehearse(
      "grade",
      data,
      "--grader",
      "examples/grader.ts",
      "--judge-name",
      "readme-grader",
      "--judge-version",
      "1",
      "--labels",
      join(dir, "labels.jsonl"),
      "--json",
    );
    expect(run.code).toBe(0);
    const report = GradeReportSchema.parse(JSON.parse(run.stdout));
    expect(report).toMatchObject({
      rows: 200,
      graded: 200,
      ungraded: 0,
      calibration: { status: "measured", n: 50 },
    });
    expect(report.agreement?.n).toBe(50);
    // The grader sees the conduct checks but not a skipped confirmation or an early hand-off, so it passes some rows people fail.
    expect(report.agreement?.agreement).toBeGreaterThan(0.6);
    expect(report.agreement?.pass_when_gold_fail).toBeGreaterThan(0);
    expect(report.agreement?.kappa).not.toBeNull();

    const graded = (await readFile(join(dir, "data.graded.jsonl"), "utf8"))
      .trim()
      .split("\n")
      .map((l) => RowSchema.parse(JSON.parse(l)));
    expect(graded).toHaveLength(200);
    const rubricHash = graded[0]?.judge_meta?.rubric_hash;
    for (const row of graded)
      expect(row.judge_meta).toMatchObject({
        judge: "readme-grader",
        version: "1",
        rubric_hash: expect.any(String),
      });
    expect(new Set(graded.map((r) => r.judge_meta?.rubric_hash))).toEqual(new Set([rubricHash]));
    // The report names the judge by name, version and the hash of what it graded by.
    const judge = `readme-grader@1#${rubricHash}`;
    expect(report.judges).toEqual([judge]);
    expect(report.calibration).toMatchObject({ judge });
    expect(
      graded.filter((r) => r.labels?.some((l) => l.kind === "human" && l.by === "reviewer-1")),
    ).toHaveLength(50);
    // The example grader fails what the world says was not done first, then what the conduct checks found.
    const unreached = graded.filter((r) => r.episode.outcome?.reached === false);
    expect(unreached.length).toBeGreaterThan(0);
    for (const row of unreached) {
      expect(row.reward).toBe(0);
      expect(row.reason).toMatch(/did not get what they came for/);
    }
    const misconduct = graded.filter((r) => r.conduct.length > 0 && r.episode.outcome?.reached);
    for (const row of misconduct) expect(row.failure_class).toBe(row.conduct[0]?.check);
    expect(graded.filter((r) => r.conduct.length > 0).every((r) => r.reward === 0)).toBe(true);
  });

  it("prints the report for a person, with the decision judge's unsure count", async () => {
    const dir = await mkdtemp(join(tmpdir(), "rehearse-grade-"));
    const data = join(dir, "d.jsonl");
    await simulate(join(ROOT, "examples/retail-orders.json"), { rows: 40, out: data });
    const run = await rehearse(
      "grade",
      data,
      "--judge",
      "typesafe:offline",
      "--out",
      join(dir, "g.jsonl"),
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^graded {4}40 of 40 rows by decision@1/);
    expect(run.stdout).toMatch(/unsure {4}\d+/);
    expect(run.stdout).toMatch(/calibration unmeasured: no human labels attached/);
    const both = await rehearse(
      "grade",
      data,
      "--judge",
      "typesafe:offline",
      "--grader",
      "examples/grader.ts",
    );
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/expected exactly one of --grader <module> or --judge <backend>/);
    await writeFile(join(dir, "bad-labels.jsonl"), '{"id": "nope", "reward": 2}\n');
    for (const [flags, said] of [
      [
        ["--rubric", "@missing-rubric.md"],
        /--rubric is invalid[\s\S]*cannot read missing-rubric\.md/,
      ],
      [
        ["--labels", join(dir, "missing.jsonl")],
        /--labels is invalid[\s\S]*cannot read .*missing\.jsonl/,
      ],
      [
        ["--labels", join(dir, "bad-labels.jsonl")],
        /labels\[0\]\.reward: expected a reward from 0 to 1/,
      ],
    ] as const) {
      const run = await rehearse("grade", data, "--grader", "examples/grader.ts", ...flags);
      expect(run.code, flags.join(" ")).toBe(2);
      expect(run.stderr).toMatch(said);
    }
    const noModule = await rehearse("grade", data, "--grader", "missing-grader.ts");
    expect(noModule.code).toBe(2);
    expect(noModule.stderr).toMatch(
      /--grader is invalid[\s\S]*cannot load the module missing-grader\.ts/,
    );
    // Nothing was graded or written by the refused runs.
    await expect(readFile(data.replace(/\.jsonl$/, ".graded.jsonl"), "utf8")).rejects.toThrow(
      /ENOENT/,
    );
  });
});
