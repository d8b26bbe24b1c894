import { simulate } from "../../env/index.ts";
import grader from "../../examples/grader.ts";
import type { ChatMessage, Row } from "../../spec/index.ts";
import { ROOT } from "../support/cli.ts";

const cache = new Map<string, Promise<Row[]>>();

/** Offline rows of a spec (examples/ or test/fixtures/specs/), graded with the README's grader; cached per run. */
export function gradedRows(spec: string, rows = 24, rollouts = 3): Promise<Row[]> {
  const key = `${spec}|${rows}|${rollouts}`;
  let found = cache.get(key);
  if (!found) {
    found = (async () => {
      const data = await simulate(`${ROOT}/${spec}`, { rows, rollouts, seed: 11 });
      await data.grade({ grader, judge: "readme-grader", version: "1" });
      return data.rows();
    })();
    cache.set(key, found);
  }
  return found.then((rows) => structuredClone(rows));
}

/** A real row with its conversation, ids and grade replaced: for crafted cases. */
export async function craftedRow(
  fields: Partial<Row> & { messages: ChatMessage[]; history_turns?: number },
): Promise<Row> {
  const base = (await gradedRows("examples/retail-orders.json"))[0] as Row;
  const { history_turns, ...rest } = fields;
  return {
    ...base,
    ...rest,
    episode: { ...base.episode, history_turns: history_turns ?? 0 },
  };
}

/** `count` distinct words, `prefix0 prefix1 …`, as a list. */
export function distinctWords(count: number, prefix = "word"): string[] {
  return Array.from({ length: count }, (_, i) => `${prefix}${i}`);
}
