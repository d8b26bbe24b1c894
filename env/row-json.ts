import type { Row } from "../spec/index.ts";
import type { Agent } from "./agent.ts";
import { openAITool } from "./tools.ts";

/** Each agent's tools as its rows list them, written as JSON once. */
const toolsWritten = new WeakMap<Agent, string>();

/**
 * A row of `agent` as JSON text, the same text as `JSON.stringify(row)`. Every row lists the
 * agent's tools, about a third of its bytes on the examples: they are written once per agent and
 * put in place. A row whose tools are not exactly the agent's, as `Episode.row()` lists them, is
 * written whole.
 */
export function rowJson(row: Row, agent: Agent): string {
  if (!listsToolsOf(row, agent)) return JSON.stringify(row);
  let tools = toolsWritten.get(agent);
  if (tools === undefined) {
    tools = JSON.stringify(agent.tools.map(openAITool));
    toolsWritten.set(agent, tools);
  }
  let out = "";
  for (const key of Object.keys(row)) {
    const value = row[key as keyof Row];
    // JSON.stringify leaves out a member whose value is undefined.
    if (value === undefined) continue;
    out += `${out === "" ? "{" : ","}${JSON.stringify(key)}:${key === "tools" ? tools : JSON.stringify(value)}`;
  }
  return out === "" ? "{}" : `${out}}`;
}

/** A listed tool's members, and its function's, in the order `openAITool` writes them. */
const TOOL_KEYS = ["type", "function"];
const FUNCTION_KEYS = ["name", "description", "parameters"];

/** Whether an object has exactly these members, in this order (the order JSON writes them in). */
function keysAre(value: object, keys: readonly string[]): boolean {
  const own = Object.keys(value);
  return own.length === keys.length && own.every((key, i) => key === keys[i]);
}

/** Whether the row's tools are the agent's, member for member, each sharing the agent's parameters. */
function listsToolsOf(row: Row, agent: Agent): boolean {
  const { tools } = row;
  if (!Array.isArray(tools) || tools.length !== agent.tools.length) return false;
  for (let i = 0; i < tools.length; i++) {
    const listed = tools[i];
    const own = agent.tools[i];
    if (
      !listed ||
      !own ||
      !keysAre(listed, TOOL_KEYS) ||
      listed.type !== "function" ||
      !keysAre(listed.function, FUNCTION_KEYS) ||
      listed.function.name !== own.name ||
      listed.function.description !== own.description ||
      listed.function.parameters !== own.parameters
    )
      return false;
  }
  return true;
}
