import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";
import { InputError, issuesOf } from "../env/index.ts";
import { type EvalItem, EvalItemSchema } from "../spec/index.ts";

/** A message as the leakage check reads it: its text and, for an agent turn, its tool calls. */
interface TextMessage {
  role: string;
  content?: string | null;
  tool_calls?: readonly { function: { name: string; arguments: string } }[];
}

/**
 * The words a conversation trains on, as one text: every message but the system prompt (the
 * same for every row of a spec, so it would make every row look like every eval item), with each
 * tool call's name and arguments.
 */
export function conversationText(messages: readonly TextMessage[]): string {
  const parts: string[] = [];
  for (const message of messages) {
    if (message.role === "system") continue;
    if (message.content) parts.push(message.content);
    for (const call of message.tool_calls ?? [])
      parts.push(`${call.function.name} ${call.function.arguments}`);
  }
  return parts.join("\n");
}

/** An eval item as the check uses it: its name in reports, its task id, its text. */
export interface EvalEntry {
  id: string;
  task_id: string | null;
  text: string;
}

/** An eval item's entry: `text` when given, else its messages' words; named by id, task id or line. */
export function evalEntry(item: EvalItem, position: number): EvalEntry {
  const taskId = item.task_id === undefined ? null : String(item.task_id);
  return {
    id: String(item.id ?? item.task_id ?? `line ${position + 1}`),
    task_id: taskId,
    text: item.text ?? conversationText(item.messages ?? []),
  };
}

/** An eval set given as items (our rows, or records with `text`/`messages` and `task_id`) or a JSONL file. */
export type EvalSet = readonly unknown[] | string;

/** The entries of an eval set, each checked; a bad item is refused naming its place and field. */
export async function* evalEntries(evalSet: EvalSet): AsyncGenerator<EvalEntry> {
  if (typeof evalSet !== "string") {
    for (const [n, item] of evalSet.entries()) yield parseItem(item, `eval set[${n}]`, n);
    return;
  }
  const lines = createInterface({
    input: createReadStream(evalSet, "utf8"),
    crlfDelay: Number.POSITIVE_INFINITY,
  });
  let n = 0;
  try {
    for await (const line of lines) {
      n++;
      if (line.trim() === "") continue;
      let json: unknown;
      try {
        json = JSON.parse(line);
      } catch (error) {
        throw new InputError(`${evalSet}:${n}`, [
          { path: "", message: `expected a JSON eval item: ${(error as Error).message}` },
        ]);
      }
      yield parseItem(json, `${evalSet}:${n}`, n - 1);
    }
  } catch (error) {
    if (error instanceof InputError) throw error;
    throw new InputError("eval set", [
      { path: "", message: `cannot read ${evalSet}: ${(error as Error).message}` },
    ]);
  }
}

function parseItem(item: unknown, where: string, position: number): EvalEntry {
  const parsed = EvalItemSchema.safeParse(item);
  if (!parsed.success) throw new InputError(where, issuesOf(parsed.error, item));
  return evalEntry(parsed.data, position);
}
