import { FAILURE_CLASSES, type FailureClass, type Grade, type Row } from "../../spec/index.ts";
import type { ChatClient } from "../backends/chat.ts";
import { BackendError } from "../util/errors.ts";
import { DEFAULT_RUBRIC } from "./identity.ts";
import { type JudgeChoice, openJudge } from "./judge-backend.ts";
import { transcript } from "./transcript.ts";

/** A probability of pass within this distance of 0.5 marks the row unsure. */
export const DECISION_UNSURE_BAND = 0.1;

/** How sure a decision is: its confidence (the likelier side's probability) and whether it is within the unsure band. */
export function certainty(probability: number): { confidence: number; unsure: boolean } {
  return {
    confidence: Math.max(probability, 1 - probability),
    unsure: Math.abs(probability - 0.5) <= DECISION_UNSURE_BAND,
  };
}

/**
 * The decision model (`typesafe:`): evidence and rubric in, a grade whose reward is the probability
 * of pass out. Over an OpenAI-compatible server it reads the probability from the logprobs of a
 * one-token verdict, and a failing row's class from the logprobs of a one-letter choice over the
 * failure vocabulary. A null client is `typesafe:offline`, a deterministic decision model over the
 * conduct checks' evidence, which reads no rubric.
 */
export async function decide(
  row: Row,
  client: ChatClient | null,
  rubric = DEFAULT_RUBRIC,
): Promise<Grade> {
  if (client === null) return offlineDecision(row);
  const name = client.backend.name;
  const evidence = `RUBRIC\n${rubric}\n\n${transcript(row)}`;
  const verdict = await client.complete({
    messages: [
      {
        role: "system",
        content:
          "You decide whether a customer service agent's conduct in one conversation passes the rubric. Answer with one word: PASS or FAIL.",
      },
      { role: "user", content: `${evidence}\n\nVerdict:` },
    ],
    max_tokens: 1,
    top_logprobs: 10,
  });
  const pass = mass(verdict.topLogprobs, /^pass/i);
  const fail = mass(verdict.topLogprobs, /^fail/i);
  if (pass + fail === 0)
    throw new BackendError(
      name,
      `no PASS or FAIL among the verdict token's logprobs (answered ${JSON.stringify(verdict.content)})`,
    );
  const probability = pass / (pass + fail);
  if (probability >= 0.5)
    return { reward: probability, reason: `p(pass) = ${probability.toFixed(3)}` };
  const letters = FAILURE_CLASSES.map((_, i) => String.fromCharCode(65 + i));
  const choice = await client.complete({
    messages: [
      { role: "system", content: "Name the main way the agent failed. Answer with one letter." },
      {
        role: "user",
        content: `${evidence}\n\n${FAILURE_CLASSES.map((c, i) => `${letters[i]}) ${c}`).join("\n")}\n\nLetter:`,
      },
    ],
    max_tokens: 1,
    top_logprobs: 20,
  });
  const scored = letters.map((letter, i) => ({
    cls: FAILURE_CLASSES[i] as FailureClass,
    p: mass(choice.topLogprobs, new RegExp(`^${letter}$`)),
  }));
  const best = scored.reduce((a, b) => (b.p > a.p ? b : a));
  if (best.p === 0)
    throw new BackendError(
      name,
      `no failure letter among the choice token's logprobs (answered ${JSON.stringify(choice.content)})`,
    );
  return {
    reward: probability,
    reason: `p(pass) = ${probability.toFixed(3)}; failure chosen: ${best.cls}`,
    failure_class: best.cls,
  };
}

/** Probability mass of the tokens that match, from a token → logprob map. */
function mass(top: Record<string, number> | null, pattern: RegExp): number {
  return Object.entries(top ?? {}).reduce(
    (sum, [token, lp]) => (pattern.test(token.trim()) ? sum + Math.exp(lp) : sum),
    0,
  );
}

/** Log-odds each piece of evidence moves the verdict by. */
const WEIGHTS = {
  base: 1.75,
  finding: -3.5,
  gave_up: -1.5,
  error: -3,
  turn_limit: -1.2,
  errors: -1,
} as const;

/** The deterministic decision model: log-odds from the conduct findings and how the conversation ended; the reward is p(pass). */
export function offlineDecision(row: Row): Grade {
  let logit = WEIGHTS.base;
  const reasons: string[] = [];
  for (const finding of row.conduct) {
    logit += WEIGHTS.finding;
    reasons.push(finding.check);
  }
  const ended = row.episode.ended_by;
  if (ended === "user_gave_up" || ended === "error" || ended === "turn_limit") {
    logit +=
      ended === "user_gave_up"
        ? WEIGHTS.gave_up
        : ended === "error"
          ? WEIGHTS.error
          : WEIGHTS.turn_limit;
    reasons.push(`ended by ${ended}`);
  }
  if (row.episode.errors.length > 0) logit += WEIGHTS.errors;
  const probability = 1 / (1 + Math.exp(-logit));
  const grade: Grade = {
    reward: probability,
    reason:
      reasons.length > 0
        ? `evidence: ${reasons.join(", ")}`
        : "no conduct finding; the conversation ended normally",
  };
  if (probability < 0.5)
    grade.failure_class = (row.conduct[0]?.check as FailureClass | undefined) ?? "unhelpful";
  return grade;
}

/**
 * The decision judge on one row, from a decision model (`typesafe:<model>@<base-url>`,
 * `typesafe:openai:<model>`, `typesafe:offline`): a grade whose reward is p(pass), with its
 * confidence and whether it is unsure. A chat model is refused, and so is a rubric given to
 * `typesafe:offline`, before any call.
 */
export async function decisionJudge(
  row: Row,
  choice: JudgeChoice & { rubric?: string },
): Promise<Grade & { confidence: number; unsure: boolean }> {
  const judge = openJudge(choice, {
    what: "judge",
    rubric: choice.rubric,
    refuse: (backend) =>
      backend.provider === "typesafe"
        ? null
        : `expected a decision model ("typesafe:<model>@<base-url>", "typesafe:openai:<model>" or "typesafe:offline"), got ${backend.name}`,
  });
  const grade = await decide(row, judge.client, choice.rubric);
  return { ...grade, ...certainty(grade.reward) };
}
