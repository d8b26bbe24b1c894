import { describe, expect, it } from "vitest";
import { attachLabels, calibrationStamp, judgeAgreement } from "../../../env/grade/agreement.ts";
import { gradeReport, passHatK } from "../../../env/grade/report.ts";
import type { Row } from "../../../spec/index.ts";

/** Rows with a judge reward and (optionally) a human label, by the four cells of the confusion matrix. */
function rows(cells: { pp: number; pf: number; fp: number; ff: number }): Row[] {
  const out: Row[] = [];
  const add = (n: number, judge: number, gold: number) => {
    for (let i = 0; i < n; i++)
      out.push({
        id: `r${out.length}`,
        task_id: `t${out.length}`,
        reward: judge,
        labels: [{ kind: "human", reward: gold, by: "ana" }],
        conduct: [],
        sim_faults: [],
      } as unknown as Row);
  };
  add(cells.pp, 1, 1);
  add(cells.pf, 1, 0);
  add(cells.fp, 0, 1);
  add(cells.ff, 0, 0);
  return out;
}

describe("judgeAgreement", () => {
  it("matches hand-computed figures", () => {
    // p_o = 35/50 = 0.7; judge passes 25/50, gold passes 30/50; p_e = 0.5·0.6 + 0.5·0.4 = 0.5; κ = 0.2/0.5 = 0.4.
    const a = judgeAgreement(rows({ pp: 20, pf: 5, fp: 10, ff: 15 }));
    expect(a).toMatchObject({
      n: 50,
      agreement: 0.7,
      confusion: { pass_pass: 20, pass_fail: 5, fail_pass: 10, fail_fail: 15 },
      unmeasured: 0,
    });
    expect(a.kappa).toBeCloseTo(0.4, 12);
    expect(a.pass_when_gold_fail).toBeCloseTo(5 / 20, 12);
    expect(a.fail_when_gold_pass).toBeCloseTo(10 / 30, 12);
  });

  it("a second hand-computed case with chance-level agreement: κ = 0", () => {
    // Judge passes half, gold passes half, independently: p_o = 0.5 = p_e.
    const a = judgeAgreement(rows({ pp: 10, pf: 10, fp: 10, ff: 10 }));
    expect(a.agreement).toBe(0.5);
    expect(a.kappa).toBe(0);
  });

  it("reports kappa as undefined, never 0 or 1, when judge and gold use one class only", () => {
    const a = judgeAgreement(rows({ pp: 12, pf: 0, fp: 0, ff: 0 }));
    expect(a).toMatchObject({
      n: 12,
      agreement: 1,
      kappa: null,
      kappa_note: expect.stringMatching(/undefined/),
      pass_when_gold_fail: null,
    });
  });

  it("counts a bare gold_reward as unmeasured, never as agreement", () => {
    const bare = [
      {
        id: "x",
        task_id: "t",
        reward: 1,
        gold_reward: 1,
        conduct: [],
        sim_faults: [],
      } as unknown as Row,
    ];
    const a = judgeAgreement(bare);
    expect(a).toMatchObject({ n: 0, agreement: null, kappa: null, unmeasured: 1 });
    expect(calibrationStamp(bare)).toEqual({
      status: "unmeasured",
      judge: null,
      reason: "1 rows carry a gold_reward with no record of who made it",
    });
  });

  it("stamps the measured calibration with the judge of record", () => {
    const labelled = rows({ pp: 3, pf: 1, fp: 0, ff: 2 });
    for (const row of labelled)
      row.judge_meta = {
        judge: "my-grader",
        version: "2",
        model: null,
        rubric_hash: "abc",
        settings: {},
      };
    expect(calibrationStamp(labelled)).toMatchObject({
      status: "measured",
      judge: "my-grader@2#abc",
      n: 6,
      agreement: 5 / 6,
    });
  });
});

describe("attachLabels", () => {
  it("attaches labels by row id with their kind, and refuses every bad one together", () => {
    const data = rows({ pp: 1, pf: 0, fp: 0, ff: 1 }).map((r) => ({ ...r, labels: [] }));
    expect(
      attachLabels(data, [{ id: "r0", reward: 1, by: "ana", note: "fine" }], { kind: "human" }),
    ).toBe(1);
    expect(data[0]?.labels).toEqual([{ kind: "human", reward: 1, by: "ana", note: "fine" }]);
    expect(() =>
      attachLabels(
        data,
        [
          { id: "nope", reward: 1 },
          { id: "r1", reward: "yes" },
          { id: "r1", reward: 0, failure_class: "rude" },
        ],
        { kind: "human" },
      ),
    ).toThrow(
      /labels\[0\]\.id: expected the id of a row[\s\S]*labels\[1\]\.reward[\s\S]*labels\[2\]\.failure_class/,
    );
    expect(data[1]?.labels).toEqual([]);
  });
});

describe("passHatK", () => {
  it("matches hand-computed values: C(successes, k) / C(trials, k), averaged over situations", () => {
    const trial = (task: string, reward: number) => ({ task_id: task, reward }) as unknown as Row;
    // A: 3 of 4 pass; B: 2 of 4; C: 4 of 4.
    const data = [
      ...[1, 1, 1, 0].map((r) => trial("A", r)),
      ...[1, 0, 1, 0].map((r) => trial("B", r)),
      ...[1, 1, 1, 1].map((r) => trial("C", r)),
    ];
    const { pass: k, situations } = passHatK(data);
    expect(situations).toEqual({ "1": 3, "2": 3, "3": 3, "4": 3 });
    expect(k["1"]).toBeCloseTo((3 / 4 + 2 / 4 + 1) / 3, 12);
    expect(k["2"]).toBeCloseTo((3 / 6 + 1 / 6 + 1) / 3, 12);
    expect(k["3"]).toBeCloseTo((1 / 4 + 0 + 1) / 3, 12);
    expect(k["4"]).toBeCloseTo((0 + 0 + 1) / 3, 12);
  });

  it("averages each k over the situations with k trials, and says how many that is", () => {
    const trial = (task: string, reward: number) => ({ task_id: task, reward }) as unknown as Row;
    // A: 3 of 3 pass; B: 0 of 2 (one trial left out, say for a simulator fault).
    const k = passHatK([...[1, 1, 1].map((r) => trial("A", r)), trial("B", 0), trial("B", 0)]);
    expect(k).toEqual({
      pass: { "1": 0.5, "2": 0.5, "3": 1 },
      situations: { "1": 2, "2": 2, "3": 1 },
    });
    const report = gradeReport(
      [...[1, 1, 1].map((r) => trial("A", r)), trial("B", 0), trial("B", 0)].map((r) => ({
        ...r,
        id: `${r.task_id}`,
        sim_faults: [],
        conduct: [],
      })) as Row[],
    );
    expect(report.pass_hat_k_situations).toEqual({ "1": 2, "2": 2, "3": 1 });
    expect(report.warnings).toEqual([
      expect.stringMatching(/^pass\^k from k = 3 averages over 1 of 2 situations/),
    ]);
  });
});
