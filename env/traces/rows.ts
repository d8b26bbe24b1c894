import type { Row, Trace, TraceCall } from "../../spec/index.ts";
import { errorIn, parsedJson } from "../util/parsed.ts";

/** A graded row of ours as a trace: its situation's own coordinate, its agent model, its reward. */
export function traceOfRow(row: Row, source: string, known: ReadonlySet<string>): Trace {
  const results = new Map<string, string>();
  for (const message of row.messages)
    if (message.role === "tool") results.set(message.tool_call_id, message.content);
  const calls: TraceCall[] = [];
  for (const message of row.messages) {
    if (message.role !== "assistant") continue;
    for (const call of message.tool_calls ?? []) {
      const result = results.get(call.id) ?? null;
      calls.push({ tool: call.function.name, error: errorOf(result), result });
    }
  }
  const { tool, condition, world } = row.situation.axes;
  return {
    id: row.id,
    source,
    model: row.models.agent,
    started: null,
    calls,
    coordinate: { tool, condition, world },
    grade:
      row.reward === undefined
        ? null
        : {
            reward: row.reward,
            ...(row.failure_class ? { failure_class: row.failure_class } : {}),
            by: "row",
          },
    unknown_tools: [...new Set(calls.map((call) => call.tool).filter((name) => !known.has(name)))],
  };
}

/** The error a world's answer carries (`{"error": ...}`), or null. */
function errorOf(result: string | null): string | null {
  if (result === null || !result.startsWith("{")) return null;
  return errorIn(parsedJson(result));
}
