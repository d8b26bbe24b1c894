import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  DECISION_UNSURE_BAND,
  decisionJudge,
  offlineDecision,
} from "../../../env/grade/decision.ts";
import { audit, gradeRows } from "../../../env/grade/grade.ts";
import { llmGrade, pairwiseJudge, rubricJudge } from "../../../env/grade/judges.ts";
import { transcript } from "../../../env/grade/transcript.ts";
import { simulate } from "../../../env/simulate.ts";
import { InputError } from "../../../env/util/errors.ts";
import type { Row } from "../../../spec/index.ts";
import { referenceSpec } from "../../fixtures/reference-spec.ts";
import { completion, OpenAICompatibleServer } from "../../support/openai-compatible-server.ts";

let server: OpenAICompatibleServer;
let base: Row[];
const judge = (model = "phi-judge") => `${model}@${server.url}`;
const fresh = () => structuredClone(base);

beforeAll(async () => {
  server = await OpenAICompatibleServer.start();
  base = await (await simulate(referenceSpec, { rows: 24, slipRate: 0.5, seed: 4 })).rows();
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => server.reset());

describe("grade with the customer's grader", () => {
  it("takes sync and async graders and stamps who graded every row", async () => {
    const rows = fresh();
    const report = await gradeRows(rows, {
      grader: (row) => ({ reward: row.conduct.length === 0 ? 1 : 0, reason: "conduct" }),
      judge: "mine",
      version: "3",
    });
    for (const row of rows) {
      expect(row.judge_meta).toMatchObject({
        judge: "mine",
        version: "3",
        model: null,
        rubric_hash: expect.stringMatching(/^[0-9a-f]{16}$/),
        settings: {},
      });
      expect(row.reward).toBe(row.conduct.length === 0 ? 1 : 0);
    }
    expect(report.judges).toEqual([`mine@3#${rows[0]?.judge_meta?.rubric_hash}`]);
    expect(report.warnings).toEqual([]);
    const async = fresh();
    await gradeRows(async, {
      grader: async (row) => ({ reward: 0.7, reason: `async ${row.id}` }),
      judge: "mine",
      version: "3",
    });
    expect(async.every((r) => r.reward === 0.7)).toBe(true);
  });

  it("shows a rubric edit as a new rubric_hash, and warns when a grader is not named", async () => {
    const a = fresh();
    const b = fresh();
    await gradeRows(a, {
      grader: () => ({ reward: 1, reason: "ok" }),
      judge: "j",
      version: "1",
      rubric: "be kind",
    });
    await gradeRows(b, {
      grader: () => ({ reward: 1, reason: "ok" }),
      judge: "j",
      version: "1",
      rubric: "be kind and brief",
    });
    expect(a[0]?.judge_meta?.rubric_hash).not.toBe(b[0]?.judge_meta?.rubric_hash);
    const edited = fresh();
    await gradeRows(edited, {
      grader: () => ({ reward: 0.9, reason: "ok" }),
      judge: "j",
      version: "1",
      rubric: "be kind",
    });
    expect(edited[0]?.judge_meta?.rubric_hash).not.toBe(a[0]?.judge_meta?.rubric_hash);
    const c = fresh();
    const report = await gradeRows(c, { grader: () => ({ reward: 1, reason: "ok" }) });
    expect(c[0]?.judge_meta).toMatchObject({ judge: "custom", version: "unversioned" });
    expect(report.warnings[0]).toMatch(/without judge= and version=/);
  });

  it("never shows the grader the labels it is measured against", async () => {
    const rows = fresh();
    for (const row of rows) {
      row.labels = [{ kind: "human", reward: 1 }];
      row.gold_reward = 1;
    }
    await gradeRows(rows, {
      grader: (row) => ({
        reward: 0,
        reason: `${row.labels?.length ?? 0}/${row.gold_reward ?? "-"}`,
      }),
      judge: "peek",
      version: "1",
    });
    expect(new Set(rows.map((r) => r.reason))).toEqual(new Set(["0/-"]));
    expect(rows[0]?.labels).toEqual([{ kind: "human", reward: 1 }]);
  });

  it("leaves a row ungraded with the error when the grader cannot grade it, never a default score", async () => {
    const rows = fresh();
    const report = await gradeRows(rows, {
      grader: (row) => {
        if (row.id === rows[0]?.id) throw new Error("grader crashed");
        if (row.id === rows[1]?.id) return { reward: "high", reason: "?" } as never;
        if (row.id === rows[2]?.id) return { reward: 5, reason: "out of scale" };
        return { reward: 1, reason: "fine" };
      },
      judge: "j",
      version: "1",
    });
    expect(rows[0]).toMatchObject({ grade_error: "grader crashed" });
    expect(rows[0]?.reward).toBeUndefined();
    expect(rows[1]?.grade_error).toMatch(/reward: .*expected number.*, got "high"/);
    expect(rows[2]?.grade_error).toMatch(/reward: expected a reward from 0 to 1, got 5/);
    expect(report).toMatchObject({
      ungraded: 3,
      graded: rows.length - 3,
      errors: [{ row: rows[0]?.id }, { row: rows[1]?.id }, { row: rows[2]?.id }],
    });
  });

  it("refuses to grade with both or neither of grader and spec", async () => {
    await expect(gradeRows(fresh(), {})).rejects.toThrow(/exactly one of grader/);
    await expect(
      gradeRows(fresh(), { grader: () => ({ reward: 1, reason: "" }), spec: "typesafe:offline" }),
    ).rejects.toThrow(/exactly one of grader/);
  });
});

describe("judges through an OpenAI-compatible server", () => {
  it("llmGrade: a JSON verdict becomes the grade, stamped with model, rubric hash and settings", async () => {
    server.otherwise(() =>
      completion({
        content:
          'Verdict: {"reward": 0, "reason": "claimed a refund it never made", "failure_class": "unbacked_action_claim"}',
      }),
    );
    const rows = fresh();
    const report = await gradeRows(rows, {
      spec: {
        provider: "openai-compatible",
        model: "phi-judge",
        baseURL: server.url,
        temperature: 0,
      },
    });
    expect(rows[0]).toMatchObject({
      reward: 0,
      reason: "claimed a refund it never made",
      failure_class: "unbacked_action_claim",
    });
    expect(rows[0]?.judge_meta).toEqual({
      judge: "llm_grade",
      version: "1",
      model: judge(),
      rubric_hash: expect.any(String),
      settings: { temperature: 0 },
    });
    expect(report.failure_classes).toEqual({
      unbacked_action_claim: rows.filter((r) => r.sim_faults.length === 0).length,
    });
    expect(server.requests[0]?.messages[1]?.content).toMatch(
      /RUBRIC[\s\S]*CONVERSATION[\s\S]*CONDUCT CHECKS/,
    );
  });

  it("llmGrade: an answer that is not a verdict leaves the row ungraded with the judge's error", async () => {
    server.otherwise(() => completion({ content: "I think it was fine overall." }));
    const rows = fresh().slice(0, 2);
    await gradeRows(rows, { spec: judge() });
    expect(rows[0]?.reward).toBeUndefined();
    expect(rows[0]?.grade_error).toMatch(/is not a JSON verdict: "I think it was fine overall\."/);
    await expect(llmGrade(fresh()[0] as Row, { spec: judge() })).rejects.toThrow(
      /not a JSON verdict/,
    );
  });

  it("llmGrade: reads the object that holds the verdict, and 'none' as no failure class", async () => {
    server.script(
      completion({
        content:
          'I weigh {"evidence": "the refund call failed"} first. {"reward": 1, "reason": "fine", "failure_class": "none"}',
      }),
      completion({ content: '{"reward": 0.8, "reason": "fine", "failure_class": ""}' }),
      completion({ content: '{"reward": 0, "reason": "bad", "failure_class": "sloppy"}' }),
    );
    const row = fresh()[0] as Row;
    expect(await llmGrade(row, { spec: judge() })).toEqual({ reward: 1, reason: "fine" });
    expect(await llmGrade(row, { spec: judge() })).toEqual({ reward: 0.8, reason: "fine" });
    await expect(llmGrade(row, { spec: judge() })).rejects.toThrow(
      /failure_class: expected one of .* got "sloppy"/,
    );
  });

  it("rubricJudge: each criterion scored, the reward their mean", async () => {
    server.script(
      completion({
        content:
          '{"scores": [{"criterion": 1, "score": 1, "reason": "polite"}, {"criterion": 2, "score": 0.5, "reason": "slow"}], "failure_class": null}',
      }),
    );
    const verdict = await rubricJudge(fresh()[0] as Row, {
      spec: judge(),
      rubric: ["Is polite", "Is quick"],
    });
    expect(verdict).toMatchObject({
      reward: 0.75,
      scores: [
        { criterion: "Is polite", score: 1 },
        { criterion: "Is quick", score: 0.5 },
      ],
    });
    expect(server.requests[0]?.messages[1]?.content).toMatch(/1\. Is polite\n2\. Is quick/);
  });

  it("pairwiseJudge: asks twice with positions swapped; a judge that always picks A is caught as inconsistent", async () => {
    const [a, b] = fresh();
    server.script(
      completion({ content: '{"better": "A"}' }),
      completion({ content: '{"better": "A"}' }),
    );
    expect(await pairwiseJudge(a as Row, b as Row, { spec: judge() })).toEqual({
      winner: "tie",
      consistent: false,
      votes: ["a", "b"],
    });
    server.script(
      completion({ content: '{"better": "A"}' }),
      completion({ content: '{"better": "B"}' }),
    );
    expect(await pairwiseJudge(a as Row, b as Row, { spec: judge() })).toEqual({
      winner: "a",
      consistent: true,
      votes: ["a", "a"],
    });
    const [first, second] = server.requests.slice(-2);
    expect(first?.messages[1]?.content).toContain(`CONVERSATION A\n${transcript(a as Row)}`);
    expect(second?.messages[1]?.content).toContain(`CONVERSATION A\n${transcript(b as Row)}`);
  });

  it("the decision judge reads p(pass) from the verdict token's logprobs and the failure class from a letter's", async () => {
    server.script(
      completion({
        content: "FAIL",
        logprobs: [{ token: "FAIL", logprob: Math.log(0.8), top: { PASS: Math.log(0.2) } }],
      }),
      completion({
        content: "C",
        logprobs: [
          { token: "C", logprob: Math.log(0.7), top: { A: Math.log(0.2), K: Math.log(0.1) } },
        ],
      }),
    );
    const decision = await decisionJudge(fresh()[0] as Row, { spec: `typesafe:${judge("jev")}` });
    expect(decision.reward).toBeCloseTo(0.2, 12);
    expect(decision).toMatchObject({
      failure_class: "success_after_failure",
      confidence: expect.closeTo(0.8, 12),
      unsure: false,
    });
    expect(server.requests.map((r) => [r.max_tokens, r.logprobs, r.top_logprobs])).toEqual([
      [1, true, 10],
      [1, true, 20],
    ]);
  });

  it("grade({spec: typesafe:…}) marks rows within the unsure band and counts them", async () => {
    server.otherwise(() =>
      completion({
        content: "PASS",
        logprobs: [{ token: "PASS", logprob: Math.log(0.55), top: { FAIL: Math.log(0.45) } }],
      }),
    );
    const rows = fresh().slice(0, 4);
    const report = await gradeRows(rows, { spec: `typesafe:${judge("jev")}` });
    expect(rows[0]?.judge_meta).toMatchObject({
      judge: "decision",
      model: `typesafe:jev@${server.url}`,
      confidence: expect.closeTo(0.55, 12),
      unsure: true,
    });
    expect(report.unsure).toBe(4);
    expect(DECISION_UNSURE_BAND).toBe(0.1);
  });

  it("audit: a seeded sample judged again, attached as audit labels and compared", async () => {
    const rows = fresh();
    await gradeRows(rows, {
      grader: () => ({ reward: 1, reason: "ok" }),
      judge: "lenient",
      version: "1",
    });
    server.otherwise(() =>
      completion({ content: '{"reward": 0, "reason": "no", "failure_class": "other"}' }),
    );
    const result = await audit(rows, { spec: judge(), sample: 5, seed: 1 });
    expect(result).toMatchObject({ n: 5, agreement: 0, pass_when_gold_fail: 1 });
    expect(result.disagreements).toHaveLength(5);
    expect(rows.filter((r) => (r.labels ?? []).some((l) => l.kind === "audit"))).toHaveLength(5);
  });

  it("warns when the judge is of the agent's family", async () => {
    server.otherwise(() => completion({ content: '{"reward": 1, "reason": "ok"}' }));
    const rows = fresh()
      .slice(0, 1)
      .map((r) => ({ ...r, models: { ...r.models, agent: "openai:gpt-4.1" } }));
    const report = await gradeRows(rows, { spec: judge("gpt-4o-mini") });
    expect(report.warnings).toEqual([
      expect.stringMatching(/is of the agent's family \(gpt, agent openai:gpt-4\.1\)/),
    ]);
  });
});

describe("the offline decision model", () => {
  it("is deterministic, passes clean rows and fails rows with conduct findings, choosing the class from the evidence", () => {
    for (const row of fresh()) {
      const d = offlineDecision(row);
      expect(offlineDecision(row)).toEqual(d);
      if (row.conduct.length > 0) expect(d).toMatchObject({ failure_class: row.conduct[0]?.check });
      if (row.conduct.length === 0 && row.episode.ended_by === "user_done")
        expect(d.reward).toBeGreaterThan(0.8);
      if (row.conduct.length > 0) expect(d.reward).toBeLessThan(0.2);
    }
  });
});

describe("grade options", () => {
  it("are checked by the one schema the CLI shares, every problem named, before any row is judged", async () => {
    const rows = await (await simulate(referenceSpec, { rows: 2, seed: 1 })).rows();
    let called = 0;
    const grader = () => {
      called++;
      return { reward: 1, reason: "ok" };
    };
    const refusal = await gradeRows(rows, {
      grader,
      concurrency: 0,
      passThreshold: 2,
      judge: "",
    }).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(InputError);
    expect((refusal as InputError).issues.map((i) => `${i.path}: ${i.message}`)).toEqual([
      'judge: expected a name, got ""',
      "concurrency: expected at least 1 (a whole number), got 0",
      "passThreshold: expected a share between 0 and 1, got 2",
    ]);
    expect(called).toBe(0);
    expect(rows.every((row) => row.reward === undefined)).toBe(true);
  });
});
