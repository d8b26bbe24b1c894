import { FAILURE_CLASSES, FailureClassSchema, type Grade, type Row } from "../../spec/index.ts";
import type { Backend } from "../backends/backend.ts";
import type { ChatClient } from "../backends/chat.ts";
import { BackendError, InputError } from "../util/errors.ts";
import { decide } from "./decision.ts";
import { DEFAULT_RUBRIC } from "./identity.ts";
import { type JudgeChoice, openJudge } from "./judge-backend.ts";
import { transcript } from "./transcript.ts";

const VERDICT_FORMAT = `Answer with one JSON object and nothing else: {"reward": <number from 0 to 1>, "reason": "<one sentence>", "failure_class": <one of ${FAILURE_CLASSES.map((c) => `"${c}"`).join(", ")}, or null when it passes>}.`;

/**
 * The first JSON object in a model's answer that has `key` (a model may echo the format's example
 * or nest its working in braces first), else the first object at all, so the error names the field.
 */
function jsonIn(text: string | null, judge: string, key: string): Record<string, unknown> {
  const answer = text ?? "";
  let first: Record<string, unknown> | null = null;
  for (let at = answer.indexOf("{"); at >= 0; at = answer.indexOf("{", at + 1)) {
    const candidate = balanced(answer, at);
    if (candidate === null) continue;
    try {
      const value = JSON.parse(candidate) as unknown;
      if (value === null || typeof value !== "object" || Array.isArray(value)) continue;
      const body = value as Record<string, unknown>;
      if (Object.hasOwn(body, key)) return body;
      first ??= body;
    } catch {
      // not this brace: try the next one
    }
  }
  if (first) return first;
  throw new BackendError(
    judge,
    `the judge's answer is not a JSON verdict: ${JSON.stringify(answer.slice(0, 200))}`,
  );
}

/** The text from the brace at `start` to its matching close, skipping braces inside strings. */
function balanced(text: string, start: number): string | null {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "{") depth++;
    else if (c === "}" && --depth === 0) return text.slice(start, i + 1);
  }
  return null;
}

/** A judge's answer as a grade, refused with the field named when it is not one. */
function gradeOf(body: Record<string, unknown>, judge: string): Grade {
  const reward = body.reward;
  if (typeof reward !== "number" || !Number.isFinite(reward) || reward < 0 || reward > 1) {
    throw new BackendError(
      judge,
      `reward: expected a number from 0 to 1, got ${JSON.stringify(reward)}`,
    );
  }
  const grade: Grade = { reward, reason: typeof body.reason === "string" ? body.reason : "" };
  // Models write "no failure" in several ways besides null.
  const none =
    body.failure_class === null ||
    body.failure_class === undefined ||
    (typeof body.failure_class === "string" &&
      /^\s*(none|null|n\/a|no failure|pass(ed)?)?\s*$/i.test(body.failure_class));
  if (!none) {
    const cls = FailureClassSchema.safeParse(body.failure_class);
    if (!cls.success)
      throw new BackendError(
        judge,
        `failure_class: expected one of ${FAILURE_CLASSES.join(", ")}, got ${JSON.stringify(body.failure_class)}`,
      );
    grade.failure_class = cls.data;
  }
  return grade;
}

/** A decision model names no winner between two rows: it gives each its own probability of pass. */
const refuseDecision = (backend: Backend) =>
  backend.provider === "typesafe"
    ? `${backend.name} is a decision model: it gives one row a probability of pass and does not compare two rows; give pairwiseJudge a chat model, or call decisionJudge on each row`
    : null;

/**
 * The advisory judge (the brief's `llm_grade`): rubric and transcript in, a grade out. A chat model
 * answers a JSON verdict; a decision model (`typesafe:`) decides the row, its reward being p(pass).
 * `typesafe:offline` runs here and reads no rubric, so a rubric given with it is refused, before
 * any call.
 */
export async function llmGrade(
  row: Row,
  choice: JudgeChoice & { rubric?: string },
): Promise<Grade> {
  const judge = openJudge(choice, { what: "judge", rubric: choice.rubric });
  if (judge.kind === "decision") return decide(row, judge.client, choice.rubric);
  const name = judge.backend.name;
  const reply = await judge.client.complete({
    messages: [
      {
        role: "system",
        content: `You grade the conduct of a customer service agent in one conversation, strictly and fairly. ${VERDICT_FORMAT}`,
      },
      {
        role: "user",
        content: `RUBRIC\n${choice.rubric ?? DEFAULT_RUBRIC}\n\n${transcript(row)}`,
      },
    ],
  });
  return gradeOf(jsonIn(reply.content, name, "reward"), name);
}

/** One criterion's score, with the judge's reason. */
export interface CriterionScore {
  criterion: string;
  score: number;
  reason: string;
}

/**
 * A rubric judge: each criterion scored 0–1 with a reason; the reward is their mean. A chat model
 * scores every criterion in one answer. A decision model decides each criterion on its own, its
 * p(pass) the score, and a failing row's class is that of its lowest-scoring failing criterion.
 * `typesafe:offline` reads no rubric, so it cannot score criteria: it is refused before any call.
 */
export async function rubricJudge(
  row: Row,
  choice: JudgeChoice & { rubric: string[] },
): Promise<Grade & { scores: CriterionScore[] }> {
  if (choice.rubric.length === 0)
    throw new InputError("judge", [{ path: "rubric", message: "expected at least one criterion" }]);
  const judge = openJudge(choice, {
    what: "judge",
    refuse: (backend) =>
      backend.name === "typesafe:offline"
        ? "typesafe:offline decides from the conduct checks' evidence and reads no rubric, so it cannot score criteria; give rubricJudge a chat model or a served decision model (typesafe:<model>@<base-url>)"
        : null,
  });
  const name = judge.backend.name;
  if (judge.kind === "decision") {
    const decided: Grade[] = [];
    // One verdict per criterion, in order: a decision model passes or fails one rubric at a time.
    for (const criterion of choice.rubric) decided.push(await decide(row, judge.client, criterion));
    const failing = decided
      .filter((d) => d.failure_class !== undefined)
      .reduce<Grade | null>(
        (worst, d) => (worst === null || d.reward < worst.reward ? d : worst),
        null,
      );
    return scored(
      choice.rubric.map((criterion, i) => {
        const d = decided[i] as Grade;
        return { criterion, score: d.reward, reason: d.reason };
      }),
      failing?.failure_class ?? null,
      name,
    );
  }
  const reply = await judge.client.complete({
    messages: [
      {
        role: "system",
        content: `You score one customer service conversation against each criterion of a rubric. Answer with one JSON object and nothing else: {"scores": [{"criterion": <its number, from 1>, "score": <0 to 1>, "reason": "<one sentence>"}], "failure_class": <one of ${FAILURE_CLASSES.map((c) => `"${c}"`).join(", ")}, or null>}.`,
      },
      {
        role: "user",
        content: `RUBRIC\n${choice.rubric.map((c, i) => `${i + 1}. ${c}`).join("\n")}\n\n${transcript(row)}`,
      },
    ],
  });
  const body = jsonIn(reply.content, name, "scores");
  const raw = Array.isArray(body.scores) ? (body.scores as Record<string, unknown>[]) : [];
  const scores = choice.rubric.map((criterion, i) => {
    const entry = raw.find((s) => Number(s.criterion) === i + 1);
    const score = entry?.score;
    if (typeof score !== "number" || score < 0 || score > 1)
      throw new BackendError(
        name,
        `scores[${i}].score: expected a number from 0 to 1 for criterion ${i + 1}, got ${JSON.stringify(score)}`,
      );
    return { criterion, score, reason: typeof entry?.reason === "string" ? entry.reason : "" };
  });
  return scored(scores, body.failure_class, name);
}

/** The rubric judge's grade: the mean score, each criterion's reason, and the failure class. */
function scored(
  scores: CriterionScore[],
  failureClass: unknown,
  name: string,
): Grade & { scores: CriterionScore[] } {
  const grade = gradeOf(
    {
      reward: scores.reduce((sum, s) => sum + s.score, 0) / scores.length,
      reason: scores.map((s, i) => `${i + 1}: ${s.reason}`).join(" "),
      failure_class: failureClass,
    },
    name,
  );
  return { ...grade, scores };
}

/**
 * Which of two conversations is better, asked twice with the positions swapped to cancel order
 * bias. It takes a chat model only: a decision model (`typesafe:`, `typesafe:offline` too) gives
 * one row a probability of pass and names no winner, so it is refused before any call.
 */
export async function pairwiseJudge(
  a: Row,
  b: Row,
  choice: JudgeChoice & { rubric?: string },
): Promise<{ winner: "a" | "b" | "tie"; consistent: boolean; votes: ("a" | "b" | "tie")[] }> {
  const judge = openJudge(choice, { what: "judge", refuse: refuseDecision });
  // refuseDecision lets chat models through only, and a chat judge always has a client.
  const client = judge.client as ChatClient;
  const name = judge.backend.name;
  const ask = async (first: Row, second: Row): Promise<"first" | "second" | "tie"> => {
    const reply = await client.complete({
      messages: [
        {
          role: "system",
          content:
            'You compare two conversations of customer service agents against a rubric. Answer with one JSON object and nothing else: {"better": "A" | "B" | "tie", "reason": "<one sentence>"}.',
        },
        {
          role: "user",
          content: `RUBRIC\n${choice.rubric ?? DEFAULT_RUBRIC}\n\nCONVERSATION A\n${transcript(first)}\n\nCONVERSATION B\n${transcript(second)}`,
        },
      ],
    });
    const better = String(jsonIn(reply.content, name, "better").better ?? "").toLowerCase();
    if (better !== "a" && better !== "b" && better !== "tie")
      throw new BackendError(
        name,
        `better: expected "A", "B" or "tie", got ${JSON.stringify(better)}`,
      );
    return better === "a" ? "first" : better === "b" ? "second" : "tie";
  };
  const one = await ask(a, b);
  const two = await ask(b, a);
  const votes = [
    one === "first" ? "a" : one === "second" ? "b" : "tie",
    two === "first" ? "b" : two === "second" ? "a" : "tie",
  ] as ("a" | "b" | "tie")[];
  const consistent = votes[0] === votes[1];
  return { winner: consistent ? (votes[0] as "a" | "b" | "tie") : "tie", consistent, votes };
}
