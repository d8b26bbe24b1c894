import { type ChatMessage, type Row, TrainingSetOptionsSchema } from "../spec/index.ts";
import { PASS_THRESHOLD } from "./grade/agreement.ts";
import { InputError, issuesOf } from "./util/errors.ts";

/**
 * A message as TRL's conversational format reads it: tool calls carry their arguments as an object
 * (TRL's documented form, rendered by chat templates with `tojson`); tool replies carry the tool's
 * `name` and, as our rows have it, the `tool_call_id` they answer.
 */
export type TrainingMessage =
  | { role: "system" | "user"; content: string }
  | {
      role: "assistant";
      content: string;
      tool_calls?: {
        id: string;
        type: "function";
        function: { name: string; arguments: Record<string, unknown> | string };
      }[];
    }
  | { role: "tool"; name: string; tool_call_id: string; content: string };

/** Which agent turns the loss is taken on: every policy turn, or only the last one. */
export type MaskMode = "all" | "final";

/** One SFT row: TRL's `messages` and `tools`, with one loss flag per message, and where it came from. */
export interface SftRow {
  id: string;
  task_id: string;
  messages: TrainingMessage[];
  tools: Row["tools"];
  loss_mask: boolean[];
  reward: number | null;
}

/** Options of `data.trainingSet` and `exportSft`. */
export interface TrainingSetOptions {
  /** `all` (default): every policy turn is learned; `final`: only the last one. */
  maskMode?: MaskMode;
  /**
   * `true` (default): only rows that passed the grader (reward ≥ PASS_THRESHOLD); never-graded rows
   * are refused. `false`: every row, graded or not, passing or not.
   */
  passing?: boolean;
}

/** Tool-call arguments as an object when they parse as one; anything else stays the string the agent wrote. */
function argumentsOf(text: string): Record<string, unknown> | string {
  try {
    const value: unknown = JSON.parse(text);
    if (value !== null && typeof value === "object" && !Array.isArray(value))
      return value as Record<string, unknown>;
  } catch {
    // Not JSON: kept as written, so the data shows what the agent really sent.
  }
  return text;
}

/** A row's message in TRL's form; sampling facts (logprobs, settings) are left to the row. */
export function trainingMessage(message: ChatMessage): TrainingMessage {
  if (message.role === "assistant") {
    const calls = message.tool_calls ?? [];
    return {
      role: "assistant",
      content: message.content ?? "",
      ...(calls.length > 0
        ? {
            tool_calls: calls.map((call) => ({
              id: call.id,
              type: "function" as const,
              function: {
                name: call.function.name,
                arguments: argumentsOf(call.function.arguments),
              },
            })),
          }
        : {}),
    };
  }
  if (message.role === "tool")
    return {
      role: "tool",
      name: message.name,
      tool_call_id: message.tool_call_id,
      content: message.content,
    };
  return { role: message.role, content: message.content };
}

/**
 * Where the policy's own turns start: after the system prompt and the `history_turns` that replay
 * earlier contact (written by the situation writer, not the policy, so never learned).
 */
export function firstPolicyIndex(row: Row): number {
  const system = row.messages[0]?.role === "system" ? 1 : 0;
  return system + row.episode.history_turns;
}

/**
 * One loss flag per message: true only on the policy's own agent turns — never the system prompt,
 * the person, a tool's output, or a history turn; with `final`, only the last policy turn.
 */
export function lossMask(row: Row, mode: MaskMode = "all"): boolean[] {
  const start = firstPolicyIndex(row);
  const mask = row.messages.map((m, i) => i >= start && m.role === "assistant");
  if (mode === "all") return mask;
  const last = mask.lastIndexOf(true);
  return mask.map((_, i) => i === last);
}

/** A row as an SFT row: TRL conversational `messages` and `tools`, plus `loss_mask`. */
export function sftRow(row: Row, mode: MaskMode = "all"): SftRow {
  return {
    id: row.id,
    task_id: row.task_id,
    messages: row.messages.map(trainingMessage),
    tools: row.tools,
    loss_mask: lossMask(row, mode),
    reward: row.reward ?? null,
  };
}

/** Why a row is left out of a training set, or null when it is kept. */
export type TrainingFilter = "grade_error" | "not_passing" | "no_policy_turn";

/**
 * Whether a row goes into a training set under `passing`, and if not, why. A row never graded is
 * refused (an {@link InputError}) under `passing: true`: an ungraded set has no passing rows to pick.
 */
export function trainingFilter(
  row: Row,
  options: { passing: boolean; mode: MaskMode },
): TrainingFilter | null {
  if (options.passing) {
    if (row.reward === undefined) {
      if (row.grade_error !== undefined) return "grade_error";
      throw ungraded(row);
    }
    if (row.reward < PASS_THRESHOLD) return "not_passing";
  }
  if (!lossMask(row, options.mode).includes(true)) return "no_policy_turn";
  return null;
}

/** The refusal for a never-graded row where only passing rows were asked for. */
export function ungraded(row: Row): InputError {
  return new InputError("training set", [
    {
      path: `rows[id=${row.id}].reward`,
      message:
        "expected graded rows: this row has no reward. Grade the data first (data.grade, rehearse grade), or ask for every row with passing: false (--no-passing)",
    },
  ]);
}

/** The training set's options checked (an {@link InputError} names a bad one), defaults applied. */
export function trainingOptions(options: unknown): Required<TrainingSetOptions> {
  const parsed = TrainingSetOptionsSchema.safeParse(options ?? {});
  if (!parsed.success)
    throw new InputError("training set options", issuesOf(parsed.error, options));
  return { maskMode: parsed.data.maskMode ?? "all", passing: parsed.data.passing ?? true };
}

/** The SFT rows of `rows` under the options (see {@link TrainingSetOptions}), in order. */
export function trainingRows(rows: Iterable<Row>, options: TrainingSetOptions = {}): SftRow[] {
  const { maskMode: mode, passing } = trainingOptions(options);
  const out: SftRow[] = [];
  for (const row of rows)
    if (trainingFilter(row, { passing, mode }) === null) out.push(sftRow(row, mode));
  return out;
}
