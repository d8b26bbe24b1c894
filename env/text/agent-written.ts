/** Which arguments the agent writes itself (a note, a summary, a hand-off's reason) rather than asking the person for them. */

import { snake } from "../util/names.ts";
import { identityKey } from "../world/identity.ts";
import type { ToolModel } from "../world/model.ts";
import type { SchemaFragment } from "../world/values.ts";
import { DETAIL_PARAM } from "./slots.ts";

/** Arguments the agent composes itself rather than asking the person for. */
export const AGENT_WRITTEN =
  /^(summary|notes?|comment|memo|message|resolution|description|thought|access_notes|special_requests)$/;

/**
 * Whether the agent writes an argument itself (a summary, a resolution note) rather than asking
 * for it; not when the argument is what the tool is for (the note of `add_claim_note`).
 */
export function agentWrites(tool: { tool: { name: string } }, param: string): boolean {
  const key = snake(param);
  if (!AGENT_WRITTEN.test(key)) return false;
  const subject = key.replace(/s$/, "");
  return !snake(tool.tool.name)
    .split("_")
    .some((word) => word.replace(/s$/, "") === subject);
}

/**
 * Whether the agent composes an argument of a tool itself: a summary or note it writes, or a
 * hand-off's free text (the question, the reason), told from what the person said.
 */
export function composedByAgent(tool: ToolModel, param: string): boolean {
  const schema = tool.tool.parameters.properties?.[param] as SchemaFragment | undefined;
  return agentWrites(tool, param) || (tool.kind === "handoff" && isFreeText(param, schema));
}

/**
 * Text with no shape that is not a detail (a hand-off's question or reason, not a callback
 * phone): what the agent writes from what it heard.
 */
export function isFreeText(param: string, schema: SchemaFragment | undefined): boolean {
  if (!schema) return false;
  const key = snake(param);
  return (
    !DETAIL_PARAM.test(key) &&
    identityKey(key) === null &&
    schema.type === "string" &&
    schema.enum === undefined &&
    schema.pattern === undefined &&
    schema.format === undefined
  );
}
