import { beforeAll, describe, expect, it } from "vitest";
import { calibrationStamp } from "../../../env/grade/agreement.ts";
import { gradeRows } from "../../../env/grade/grade.ts";
import { judgeIdentity, rubricHash } from "../../../env/grade/identity.ts";
import { gradeReport } from "../../../env/grade/report.ts";
import { simulate } from "../../../env/simulate.ts";
import type { Row } from "../../../spec/index.ts";
import { referenceSpec } from "../../fixtures/reference-spec.ts";

let base: Row[];
beforeAll(async () => {
  base = await (await simulate(referenceSpec, { rows: 8, slipRate: 0.5, seed: 2 })).rows();
});

/** Grades a copy of the rows with one grader under one rubric, stamped judge j, version 1. */
async function gradedUnder(rubric: string): Promise<Row[]> {
  const rows = structuredClone(base);
  await gradeRows(rows, {
    grader: (row) => ({ reward: row.conduct.length === 0 ? 1 : 0, reason: "conduct" }),
    judge: "j",
    version: "1",
    rubric,
  });
  return rows;
}

describe("a judge's identity carries its rubric", () => {
  it("is name@version#rubric_hash, and name@version for a judge that reads no rubric", () => {
    const meta = { judge: "j", version: "1", model: null, rubric_hash: "abc", settings: {} };
    expect(judgeIdentity(meta)).toBe("j@1#abc");
    expect(judgeIdentity({ ...meta, rubric_hash: null })).toBe("j@1");
    expect(rubricHash("be kind")).not.toBe(rubricHash("be brief"));
  });

  it("keeps rows graded under two rubrics apart in the report and warns about them", async () => {
    const kind = await gradedUnder("be kind");
    const brief = await gradedUnder("be brief");
    const hashes = [kind[0]?.judge_meta?.rubric_hash, brief[0]?.judge_meta?.rubric_hash];
    expect(hashes[0]).not.toBe(hashes[1]);
    const report = gradeReport([...kind, ...brief]);
    expect(report.judges).toEqual([`j@1#${hashes[0]}`, `j@1#${hashes[1]}`].sort());
    expect(report.warnings).toEqual([
      `j@1 graded these rows under 2 rubrics (rubric_hash ${[...hashes].sort().join(", ")}): its labels are not one judge's; regrade under one rubric, or give each rubric its own version`,
    ]);
  });

  it("does not warn when one judge used one rubric, nor when two judges each used their own", async () => {
    const kind = await gradedUnder("be kind");
    expect(gradeReport(kind).warnings).toEqual([]);
    const other = (await gradedUnder("be brief")).map((r) => ({
      ...r,
      judge_meta: { ...(r.judge_meta as NonNullable<Row["judge_meta"]>), version: "2" },
    }));
    expect(gradeReport([...kind, ...other]).warnings).toEqual([]);
  });

  it("names the judge in the calibration stamp with its rubric hash", async () => {
    const rows = await gradedUnder("be kind");
    const stamp = calibrationStamp(rows);
    expect(stamp).toMatchObject({
      status: "unmeasured",
      judge: `j@1#${rows[0]?.judge_meta?.rubric_hash}`,
    });
    for (const row of rows) row.labels = [{ kind: "human", reward: 1 }];
    expect(calibrationStamp(rows)).toMatchObject({
      status: "measured",
      judge: `j@1#${rows[0]?.judge_meta?.rubric_hash}`,
    });
  });

  it("does not stamp rows of two rubrics with one judge's figures, even when they are labelled", async () => {
    const kind = await gradedUnder("be kind");
    const brief = await gradedUnder("be brief");
    const rows = [...kind, ...brief.slice(0, 3)];
    for (const row of rows) row.labels = [{ kind: "human", reward: 1 }];
    const stamp = calibrationStamp(rows);
    expect(stamp).toMatchObject({ status: "unmeasured", judge: null });
    expect(stamp.status === "unmeasured" && stamp.reason).toBe(
      `the rows were graded by 2 judges (j@1#${kind[0]?.judge_meta?.rubric_hash}: 8 rows, j@1#${brief[0]?.judge_meta?.rubric_hash}: 3 rows); agreement is a judge's own, so grade them with one judge or stamp each judge's rows apart`,
    );
  });

  it("stamps the offline decision model with no rubric hash, as it reads none", async () => {
    const rows = structuredClone(base);
    const report = await gradeRows(rows, { spec: "typesafe:offline" });
    expect(rows[0]?.judge_meta?.rubric_hash).toBeNull();
    expect(report.judges).toEqual(["decision@1"]);
  });
});

describe("one grade shape for a custom grader's result", () => {
  it("takes a Grade with checks, and names every field that is not one", async () => {
    const rows = structuredClone(base).slice(0, 4);
    const ids = rows.map((r) => r.id);
    await gradeRows(rows, {
      grader: (row) => {
        if (row.id === ids[0])
          return {
            reward: 1,
            reason: "ok",
            checks: [{ name: "outcome", passed: true, detail: "reached" }],
          };
        if (row.id === ids[1]) return { reward: 1, reason: 3 } as never;
        if (row.id === ids[2])
          return { reward: 0, reason: "bad", failure_class: "sloppy" } as never;
        return null as never;
      },
      judge: "j",
      version: "1",
    });
    expect(rows[0]).toMatchObject({ reward: 1, reason: "ok" });
    expect(rows[1]?.grade_error).toMatch(
      new RegExp(`^grader on ${ids[1]}: reason: .*expected string.*, got 3$`),
    );
    expect(rows[2]?.grade_error).toMatch(/failure_class: .*, got "sloppy"$/);
    expect(rows[3]?.grade_error).toMatch(/\(the result\): .*expected object.*, got null$/);
    for (const row of rows.slice(1)) expect(row.reward).toBeUndefined();
  });
});
