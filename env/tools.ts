import type { ToolDefinition, ToolInput } from "../spec/index.ts";

const READ_VERBS = new Set([
  "get",
  "list",
  "find",
  "search",
  "lookup",
  "look",
  "check",
  "fetch",
  "read",
  "query",
  "show",
  "view",
  "describe",
  "count",
  "retrieve",
  "browse",
  "inspect",
  "preview",
  "estimate",
  "calculate",
  "quote",
  "track",
  "verify",
  "validate",
  "download",
  "export",
  "compare",
  "summarize",
]);

const WRITE_VERBS = new Set([
  "create",
  "update",
  "cancel",
  "refund",
  "transfer",
  "delete",
  "add",
  "remove",
  "set",
  "send",
  "pay",
  "move",
  "submit",
  "book",
  "place",
  "modify",
  "change",
  "issue",
  "close",
  "open",
  "approve",
  "reject",
  "reset",
  "schedule",
  "reschedule",
  "exchange",
  "return",
  "withdraw",
  "deposit",
  "charge",
  "post",
  "edit",
  "assign",
  "register",
  "enroll",
  "upgrade",
  "downgrade",
  "block",
  "unblock",
  "freeze",
  "unfreeze",
  "lock",
  "unlock",
  "apply",
  "confirm",
  "redeem",
  "replace",
  "upload",
  "write",
  "save",
  "insert",
  "archive",
  "restore",
  "escalate",
]);

/** The first word of a tool name: `getOrder`, `get_order`, `get-order` → `get`. */
export function verbOf(name: string): string {
  const first = name.split(/[_\-\s]|(?<=[a-z0-9])(?=[A-Z])/)[0] ?? name;
  return first.toLowerCase();
}

/** Normalises a tool from any accepted format to one shape, classifying it as read or write. */
export function normaliseTool(input: ToolInput): ToolDefinition {
  if ("function" in input) {
    const f = input.function;
    return classify(f.name, f.description ?? "", f.parameters ?? undefined, undefined, undefined);
  }
  if ("inputSchema" in input) {
    return classify(
      input.name,
      input.description ?? input.title ?? "",
      input.inputSchema,
      input.outputSchema,
      input.annotations,
    );
  }
  return classify(
    input.name,
    input.description ?? "",
    input.parameters ?? undefined,
    undefined,
    undefined,
  );
}

function classify(
  name: string,
  description: string,
  parameters: ToolDefinition["parameters"] | undefined,
  outputSchema: ToolDefinition["output_schema"] | undefined,
  annotations:
    | { readOnlyHint?: boolean | undefined; destructiveHint?: boolean | undefined }
    | undefined,
): ToolDefinition {
  const tool: ToolDefinition = {
    name,
    description,
    parameters: parameters ?? { type: "object", properties: {} },
    ...access(name, annotations),
  };
  if (outputSchema) tool.output_schema = outputSchema;
  return tool;
}

function access(
  name: string,
  annotations:
    | { readOnlyHint?: boolean | undefined; destructiveHint?: boolean | undefined }
    | undefined,
): Pick<ToolDefinition, "access" | "access_source"> {
  if (annotations?.readOnlyHint === true) return { access: "read", access_source: "annotation" };
  if (annotations?.readOnlyHint === false || annotations?.destructiveHint === true) {
    return { access: "write", access_source: "annotation" };
  }
  const verb = verbOf(name);
  if (READ_VERBS.has(verb)) return { access: "read", access_source: "verb" };
  if (WRITE_VERBS.has(verb)) return { access: "write", access_source: "verb" };
  // An unknown verb is treated as a write: wrongly assuming a tool is harmless is the costlier mistake.
  return { access: "write", access_source: "default" };
}

/** The tool in OpenAI's Chat Completions format, as rows and trainers expect it. */
export function openAITool(tool: ToolDefinition): {
  type: "function";
  function: { name: string; description: string; parameters: ToolDefinition["parameters"] };
} {
  return {
    type: "function",
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  };
}
