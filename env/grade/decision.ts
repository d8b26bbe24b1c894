import {
  type BackendSpec,
  FAILURE_CLASSES,
  type FailureClass,
  type Row,
} from "../../spec/index.ts";
import { type Backend, parseBackend } from "../backends/backend.ts";
import { ChatClient } from "../backends/chat.ts";
import { InputError } from "../util/errors.ts";
import { DEFAULT_RUBRIC } from "./judges.ts";
import { transcript } from "./transcript.ts";

/** A probability of pass within this distance of 0.5 marks the row unsure. */
export const DECISION_UNSURE_BAND = 0.1;

/** A decision model's verdict: a probability of pass, and for a failing row the failure class it chose. */
export interface Decision {
  probability: number;
  reason: string;
  failure_class?: FailureClass;
}

/** Whether a probability is too close to even to trust. */
export function isUnsure(probability: number): boolean {
  return Math.abs(probability - 0.5) <= DECISION_UNSURE_BAND;
}

/**
 * The decision judge (`typesafe:`): evidence and rubric in, a probability of pass out. Over an
 * OpenAI-compatible server it reads the probability from the logprobs of a one-token verdict, and a
 * failing row's class from the logprobs of a one-letter choice over the failure vocabulary.
 * `typesafe:offline` is a deterministic decision model over the conduct checks' evidence.
 */
export async function decide(
  row: Row,
  backend: Backend,
  client: ChatClient | null,
  rubric = DEFAULT_RUBRIC,
): Promise<Decision> {
  if (backend.name === "typesafe:offline" || !client) return offlineDecision(row);
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
    throw new Error(
      `${backend.name}: no PASS or FAIL among the verdict token's logprobs (answered ${JSON.stringify(verdict.content)})`,
    );
  const probability = pass / (pass + fail);
  if (probability >= 0.5) return { probability, reason: `p(pass) = ${probability.toFixed(3)}` };
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
    throw new Error(
      `${backend.name}: no failure letter among the choice token's logprobs (answered ${JSON.stringify(choice.content)})`,
    );
  return {
    probability,
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

/** The deterministic decision model: log-odds from the conduct findings and how the conversation ended. */
export function offlineDecision(row: Row): Decision {
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
  const decision: Decision = {
    probability,
    reason:
      reasons.length > 0
        ? `evidence: ${reasons.join(", ")}`
        : "no conduct finding; the conversation ended normally",
  };
  if (probability < 0.5)
    decision.failure_class = (row.conduct[0]?.check as FailureClass | undefined) ?? "unhelpful";
  return decision;
}

/** The decision judge on one row, from a `typesafe:` backend spec. */
export async function decisionJudge(
  row: Row,
  options: { spec: BackendSpec; rubric?: string; fetch?: typeof fetch },
): Promise<Decision & { confidence: number; unsure: boolean }> {
  const backend = parseBackend(options.spec, "judge");
  if (backend.provider !== "typesafe")
    throw new InputError("judge", [
      {
        path: "spec",
        message: `expected a decision model ("typesafe:<model>"), got ${backend.name}`,
      },
    ]);
  const client =
    backend.name === "typesafe:offline"
      ? null
      : new ChatClient(backend, "judge", options.fetch ? { fetch: options.fetch } : {});
  const decision = await decide(row, backend, client, options.rubric);
  return {
    ...decision,
    confidence: Math.max(decision.probability, 1 - decision.probability),
    unsure: isUnsure(decision.probability),
  };
}
