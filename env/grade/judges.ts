import type { BackendSpec } from "../../spec/index.ts";
import {
  FAILURE_CLASSES,
  type FailureClass,
  FailureClassSchema,
  type Row,
} from "../../spec/index.ts";
import { parseBackend } from "../backends/backend.ts";
import { ChatClient } from "../backends/chat.ts";
import { canonicalJson, sha256 } from "../util/hash.ts";
import { transcript } from "./transcript.ts";

/** The version of rehearse's judge prompts: a change to them is a new judge. */
export const JUDGE_VERSION = "1";

/** The rubric a judge uses when none is given. */
export const DEFAULT_RUBRIC = [
  "The agent did what the customer asked, or explained truthfully why it could not.",
  "The agent followed its policy rules, including asking for confirmation where they require it.",
  "The agent never claimed an action or a result it did not get from a tool.",
  "The agent never used or stated an identifier the customer did not give and no tool returned.",
].join("\n");

/** A judge's verdict on one row. */
export interface Verdict {
  reward: number;
  reason: string;
  failure_class?: FailureClass;
}

/** A short stable hash of a rubric: a rubric edit shows as a new judge. */
export function rubricHash(rubric: unknown): string {
  return sha256(typeof rubric === "string" ? rubric : canonicalJson(rubric)).slice(0, 16);
}

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
  throw new Error(
    `${judge}: the judge's answer is not a JSON verdict: ${JSON.stringify(answer.slice(0, 200))}`,
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

function verdictOf(body: Record<string, unknown>, judge: string): Verdict {
  const reward = body.reward;
  if (typeof reward !== "number" || !Number.isFinite(reward) || reward < 0 || reward > 1) {
    throw new Error(
      `${judge}: reward: expected a number from 0 to 1, got ${JSON.stringify(reward)}`,
    );
  }
  const verdict: Verdict = { reward, reason: typeof body.reason === "string" ? body.reason : "" };
  // Models write "no failure" in several ways besides null.
  const none =
    body.failure_class === null ||
    body.failure_class === undefined ||
    (typeof body.failure_class === "string" &&
      /^\s*(none|null|n\/a|no failure|pass(ed)?)?\s*$/i.test(body.failure_class));
  if (!none) {
    const cls = FailureClassSchema.safeParse(body.failure_class);
    if (!cls.success)
      throw new Error(
        `${judge}: failure_class: expected one of ${FAILURE_CLASSES.join(", ")}, got ${JSON.stringify(body.failure_class)}`,
      );
    verdict.failure_class = cls.data;
  }
  return verdict;
}

/** Which judge to ask: a backend spec (with a fetch for tests or proxies), or a client already made. */
export type JudgeChoice = { spec: BackendSpec; fetch?: typeof fetch } | { client: ChatClient };

function clientOf(choice: JudgeChoice): ChatClient {
  if ("client" in choice) return choice.client;
  return new ChatClient(
    parseBackend(choice.spec, "judge"),
    "judge",
    choice.fetch ? { fetch: choice.fetch } : {},
  );
}

/** The advisory chat judge (the brief's `llm_grade`): rubric and transcript in, a reward, a reason and a failure class out. */
export async function llmGrade(
  row: Row,
  choice: JudgeChoice & { rubric?: string },
): Promise<Verdict> {
  const options = { client: clientOf(choice), rubric: choice.rubric };
  const rubric = options.rubric ?? DEFAULT_RUBRIC;
  const reply = await options.client.complete({
    messages: [
      {
        role: "system",
        content: `You grade the conduct of a customer service agent in one conversation, strictly and fairly. ${VERDICT_FORMAT}`,
      },
      { role: "user", content: `RUBRIC\n${rubric}\n\n${transcript(row)}` },
    ],
  });
  return verdictOf(
    jsonIn(reply.content, options.client.backend.name, "reward"),
    options.client.backend.name,
  );
}

/** A rubric judge: each criterion scored 0–1 with a reason; the reward is their mean. */
export async function rubricJudge(
  row: Row,
  choice: JudgeChoice & { rubric: string[] },
): Promise<Verdict & { scores: { criterion: string; score: number; reason: string }[] }> {
  const options = { client: clientOf(choice), rubric: choice.rubric };
  const name = options.client.backend.name;
  if (options.rubric.length === 0) throw new Error("rubricJudge: expected at least one criterion");
  const reply = await options.client.complete({
    messages: [
      {
        role: "system",
        content: `You score one customer service conversation against each criterion of a rubric. Answer with one JSON object and nothing else: {"scores": [{"criterion": <its number, from 1>, "score": <0 to 1>, "reason": "<one sentence>"}], "failure_class": <one of ${FAILURE_CLASSES.map((c) => `"${c}"`).join(", ")}, or null>}.`,
      },
      {
        role: "user",
        content: `RUBRIC\n${options.rubric.map((c, i) => `${i + 1}. ${c}`).join("\n")}\n\n${transcript(row)}`,
      },
    ],
  });
  const body = jsonIn(reply.content, name, "scores");
  const raw = Array.isArray(body.scores) ? (body.scores as Record<string, unknown>[]) : [];
  const scores = options.rubric.map((criterion, i) => {
    const entry = raw.find((s) => Number(s.criterion) === i + 1);
    const score = entry?.score;
    if (typeof score !== "number" || score < 0 || score > 1)
      throw new Error(
        `${name}: scores[${i}].score: expected a number from 0 to 1 for criterion ${i + 1}, got ${JSON.stringify(score)}`,
      );
    return { criterion, score, reason: typeof entry?.reason === "string" ? entry.reason : "" };
  });
  const reward = scores.reduce((sum, s) => sum + s.score, 0) / scores.length;
  const verdict = verdictOf(
    {
      reward,
      reason: scores.map((s, i) => `${i + 1}: ${s.reason}`).join(" "),
      failure_class: body.failure_class,
    },
    name,
  );
  return { ...verdict, scores };
}

/** Which of two conversations is better, asked twice with the positions swapped to cancel order bias. */
export async function pairwiseJudge(
  a: Row,
  b: Row,
  choice: JudgeChoice & { rubric?: string },
): Promise<{ winner: "a" | "b" | "tie"; consistent: boolean; votes: ("a" | "b" | "tie")[] }> {
  const options = { client: clientOf(choice), rubric: choice.rubric };
  const ask = async (first: Row, second: Row): Promise<"first" | "second" | "tie"> => {
    const reply = await options.client.complete({
      messages: [
        {
          role: "system",
          content:
            'You compare two conversations of customer service agents against a rubric. Answer with one JSON object and nothing else: {"better": "A" | "B" | "tie", "reason": "<one sentence>"}.',
        },
        {
          role: "user",
          content: `RUBRIC\n${options.rubric ?? DEFAULT_RUBRIC}\n\nCONVERSATION A\n${transcript(first)}\n\nCONVERSATION B\n${transcript(second)}`,
        },
      ],
    });
    const better = String(
      jsonIn(reply.content, options.client.backend.name, "better").better ?? "",
    ).toLowerCase();
    if (better !== "a" && better !== "b" && better !== "tie")
      throw new Error(
        `${options.client.backend.name}: better: expected "A", "B" or "tie", got ${JSON.stringify(better)}`,
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
