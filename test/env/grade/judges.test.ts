import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { familyWarning, parseBackend } from "../../../env/backends/backend.ts";
import { decisionJudge, offlineDecision } from "../../../env/grade/decision.ts";
import { audit, gradeRows } from "../../../env/grade/grade.ts";
import { llmGrade, pairwiseJudge, rubricJudge } from "../../../env/grade/judges.ts";
import { assignRoles } from "../../../env/roles/assign.ts";
import { simulate } from "../../../env/simulate.ts";
import { InputError } from "../../../env/util/errors.ts";
import type { Row } from "../../../spec/index.ts";
import { referenceSpec } from "../../fixtures/reference-spec.ts";
import { completion, OpenAICompatibleServer } from "../../support/openai-compatible-server.ts";

let server: OpenAICompatibleServer;
let base: Row[];
let row: Row;
/** Every fetch a judge makes, wherever it is sent. */
let fetched: string[];
const counting: typeof fetch = (input, init) => {
  fetched.push(String(input instanceof Request ? input.url : input));
  return fetch(input, init);
};
const savedBaseURL = process.env.OPENAI_BASE_URL;

/** A one-token verdict with p(pass) = p, as a logprobs server answers. */
const verdict = (p: number) =>
  completion({
    content: p >= 0.5 ? "PASS" : "FAIL",
    logprobs: [{ token: "PASS", logprob: Math.log(p), top: { FAIL: Math.log(1 - p) } }],
  });
/** A one-letter failure choice: C is success_after_failure. */
const letter = (l: string) =>
  completion({ content: l, logprobs: [{ token: l, logprob: Math.log(0.9), top: {} }] });

beforeAll(async () => {
  server = await OpenAICompatibleServer.start();
  base = await (await simulate(referenceSpec, { rows: 12, slipRate: 0.5, seed: 4 })).rows();
  row = base[0] as Row;
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  server.reset();
  fetched = [];
  // A client made without a URL would send here (the openai package reads it), so a stray call is counted.
  process.env.OPENAI_BASE_URL = server.url;
});
afterEach(() => {
  if (savedBaseURL === undefined) delete process.env.OPENAI_BASE_URL;
  else process.env.OPENAI_BASE_URL = savedBaseURL;
});

/** Asserts that nothing was sent: not to the test server, not through the fetch, not anywhere. */
function noCalls(): void {
  expect(server.requests).toHaveLength(0);
  expect(fetched).toEqual([]);
}

describe("typesafe:offline in every judge never touches the network", () => {
  const offline = () => ({ spec: "typesafe:offline", fetch: counting });

  it("llmGrade decides with the offline decision model", async () => {
    expect(await llmGrade(row, offline())).toEqual(offlineDecision(row));
    noCalls();
  });

  it("decisionJudge decides with it too, with its confidence", async () => {
    const decision = await decisionJudge(row, offline());
    expect(decision).toMatchObject(offlineDecision(row));
    expect(decision.confidence).toBe(Math.max(decision.reward, 1 - decision.reward));
    noCalls();
  });

  it("gradeRows and audit grade every row with it", async () => {
    const rows = structuredClone(base);
    const report = await gradeRows(rows, { spec: "typesafe:offline", fetch: counting });
    expect(report.graded).toBe(rows.length);
    for (const r of rows) expect(r.reward).toBe(offlineDecision(r).reward);
    const audited = await audit(rows, { spec: "typesafe:offline", sample: 4, fetch: counting });
    expect(audited.n).toBe(4);
    noCalls();
  });

  it("rubricJudge refuses it: it reads no rubric, so it cannot score criteria", async () => {
    await expect(rubricJudge(row, { ...offline(), rubric: ["Is polite"] })).rejects.toThrow(
      InputError,
    );
    await expect(rubricJudge(row, { ...offline(), rubric: ["Is polite"] })).rejects.toThrow(
      /spec: typesafe:offline decides from the conduct checks' evidence and reads no rubric/,
    );
    noCalls();
  });

  it("pairwiseJudge refuses it: a decision model names no winner", async () => {
    await expect(pairwiseJudge(row, base[1] as Row, offline())).rejects.toThrow(
      /spec: typesafe:offline is a decision model: .* does not compare two rows/,
    );
    noCalls();
  });

  it("a rubric given with it is refused, not silently ignored", async () => {
    await expect(llmGrade(row, { ...offline(), rubric: "be kind" })).rejects.toThrow(
      /rubric: typesafe:offline decides from the conduct checks' evidence and reads no rubric/,
    );
    await expect(decisionJudge(row, { ...offline(), rubric: "be kind" })).rejects.toThrow(
      /rubric: /,
    );
    const rows = structuredClone(base);
    await expect(
      gradeRows(rows, { spec: "typesafe:offline", rubric: "be kind", fetch: counting }),
    ).rejects.toThrow(/grade options is invalid[\s\S]*rubric: typesafe:offline/);
    expect(rows.some((r) => r.reward !== undefined || r.grade_error !== undefined)).toBe(false);
    noCalls();
  });
});

describe("a served decision model in the judges", () => {
  const served = () => ({ spec: `typesafe:jev@${server.url}`, fetch: counting });

  it("llmGrade asks it for a one-token verdict and returns p(pass) as the reward", async () => {
    server.script(verdict(0.9));
    expect(await llmGrade(row, served())).toEqual({ reward: 0.9, reason: "p(pass) = 0.900" });
    expect(server.requests.map((r) => [r.model, r.max_tokens, r.top_logprobs])).toEqual([
      ["jev", 1, 10],
    ]);
  });

  it("rubricJudge decides each criterion on its own; the failing one names the class", async () => {
    server.script(verdict(0.8), verdict(0.2), letter("C"));
    const graded = await rubricJudge(row, { ...served(), rubric: ["Is polite", "Is honest"] });
    expect(graded.reward).toBeCloseTo(0.5, 12);
    expect(graded.failure_class).toBe("success_after_failure");
    expect(graded.scores.map((s) => [s.criterion, s.score])).toEqual([
      ["Is polite", expect.closeTo(0.8, 12)],
      ["Is honest", expect.closeTo(0.2, 12)],
    ]);
    expect(server.requests[0]?.messages[1]?.content).toMatch(/^RUBRIC\nIs polite\n\n/);
    expect(server.requests[1]?.messages[1]?.content).toMatch(/^RUBRIC\nIs honest\n\n/);
    expect(server.requests).toHaveLength(3);
  });

  it("pairwiseJudge refuses it before any call", async () => {
    await expect(pairwiseJudge(row, base[1] as Row, served())).rejects.toThrow(
      /spec: typesafe:jev@.* is a decision model/,
    );
    noCalls();
  });

  it("gradeRows stamps it as the decision judge, with its confidence", async () => {
    server.otherwise(verdict(0.9));
    const rows = structuredClone(base).slice(0, 2);
    await gradeRows(rows, { spec: served().spec, fetch: counting });
    expect(rows[0]?.judge_meta).toMatchObject({
      judge: "decision",
      model: `typesafe:jev@${server.url}`,
      rubric_hash: expect.stringMatching(/^[0-9a-f]{16}$/),
      confidence: expect.closeTo(0.9, 12),
      unsure: false,
    });
  });
});

describe("what cannot judge is refused before any call", () => {
  it("typesafe:<model> with no URL, in every judge", async () => {
    const choice = { spec: "typesafe:jev", fetch: counting };
    for (const attempt of [
      () => llmGrade(row, choice),
      () => decisionJudge(row, choice),
      () => rubricJudge(row, { ...choice, rubric: ["Is polite"] }),
      () => pairwiseJudge(row, base[1] as Row, choice),
      () => gradeRows(structuredClone(base), choice),
    ])
      await expect(attempt()).rejects.toThrow(/judge: "typesafe:jev" names no server/);
    noCalls();
  });

  it("the offline roles, in every judge", async () => {
    const choice = { spec: "offline", fetch: counting };
    for (const attempt of [
      () => llmGrade(row, choice),
      () => decisionJudge(row, choice),
      () => rubricJudge(row, { ...choice, rubric: ["Is polite"] }),
      () => pairwiseJudge(row, base[1] as Row, choice),
      () => gradeRows(structuredClone(base), choice),
    ])
      await expect(attempt()).rejects.toThrow(/spec: the offline roles do not judge/);
    noCalls();
  });

  it("a chat model given to the decision judge, and an empty rubric", async () => {
    await expect(decisionJudge(row, { spec: `phi@${server.url}` })).rejects.toThrow(
      /spec: expected a decision model/,
    );
    await expect(rubricJudge(row, { spec: `phi@${server.url}`, rubric: [] })).rejects.toThrow(
      /rubric: expected at least one criterion/,
    );
    noCalls();
  });
});

describe("the judge-family warning is one function", () => {
  it("says the same thing when roles are assigned and when rows are graded", async () => {
    server.otherwise(() => completion({ content: '{"reward": 1, "reason": "ok"}' }));
    const agent = `gpt-4.1@${server.url}`;
    const judge = `gpt-4o-mini@${server.url}`;
    const expected = familyWarning(parseBackend(judge, "judge"), agent);
    expect(expected).toMatch(
      /the judge gpt-4o-mini@.* is of the agent's family \(gpt, agent gpt-4\.1@/,
    );
    expect(assignRoles({ agent, judge }).warnings).toEqual([expected]);
    const rows = structuredClone(base)
      .slice(0, 2)
      .map((r) => ({ ...r, models: { ...r.models, agent } }));
    expect((await gradeRows(rows, { spec: judge })).warnings).toEqual([expected]);
    expect(familyWarning(parseBackend(`phi-4@${server.url}`, "judge"), agent)).toBeNull();
    expect(familyWarning(parseBackend("typesafe:offline", "judge"), "openai:gpt-4.1")).toBeNull();
  });
});
