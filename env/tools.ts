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
  "think",
  "compute",
  "evaluate",
  "locate",
  "identify",
  "lookup",
  "see",
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
  "request",
  "setup",
  "port",
  "renew",
  "extend",
  "waive",
  "dispute",
  "report",
  "log",
  "file",
  "attach",
  "invite",
  "suspend",
  "resume",
  "activate",
  "deactivate",
  "enable",
  "disable",
  "rebook",
  "reserve",
  "refill",
  "purchase",
  "buy",
  "subscribe",
  "unsubscribe",
  "generate",
  "grant",
  "revoke",
  "merge",
  "split",
  "start",
  "stop",
  "end",
  "terminate",
  "notify",
  "email",
  "text",
  "handoff",
  "hand",
  "connect",
  "route",
  "reopen",
  "redeliver",
  "reactivate",
  "consult",
]);

/** The words of a tool name, lower case: `getOrder`, `get_order`, `get-order` → `get`, `order`. */
export function nameWords(name: string): string[] {
  return name
    .split(/[_\-\s]+|(?<=[a-z0-9])(?=[A-Z])/)
    .filter(Boolean)
    .map((w) => w.toLowerCase());
}

/**
 * The verb of a tool name: its first word when that is a verb (`get_order`), else its last word
 * when that is one, as names that put the noun first do (`meter_reading_submit`), else the first word.
 */
export function verbOf(name: string): string {
  const words = nameWords(name);
  const first = words[0] ?? name.toLowerCase();
  const last = words.at(-1) ?? first;
  if (isVerb(first) || words.length === 1) return first;
  return isVerb(last) ? last : first;
}

/** Whether a word is a verb tools are named with (`get`, `cancel`, `freeze`…). */
export function isVerb(word: string): boolean {
  return READ_VERBS.has(word) || WRITE_VERBS.has(word);
}

/** Where a tool's parameter schema sits in the format it was written in: `function.parameters`, `inputSchema` or `parameters`. */
export function parametersPath(input: ToolInput): string {
  if ("function" in input) return "function.parameters";
  return "inputSchema" in input ? "inputSchema" : "parameters";
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
  const schema = parameters ?? { type: "object", properties: {} };
  const tool: ToolDefinition = {
    name,
    description,
    parameters: schema,
    ...access(name, annotations),
    ...roleOf(name, description, Object.keys(schema.properties ?? {})),
  };
  if (outputSchema) tool.output_schema = outputSchema;
  return tool;
}

/** Names of tools that serve the agent alone. */
const UTILITY_NAMES =
  /^(think|thinking|calculate|calculator|compute|evaluate|evaluate_expression|math|scratchpad|reflect|reason|reasoning)$/;
/** Parameters that name a record or a person: a tool taking one acts on the world. */
const RECORD_PARAM = /(^|_)(id|ids|number|no|code|email|reference|ref)$/;
/** A description saying the tool touches nothing: "It will not obtain new information or change the database". */
const TOUCHES_NOTHING =
  /(?:^|[.:;!]\s+)(?:(?:it|this(?: tool)?|the tool)\s+)?(?:does not|doesn'?t|will not|won'?t|never|cannot|can'?t)\s+(?:\w+\s+){0,2}?(?:read|look|obtain|access|change|modify|update|alter|touch|affect|write)\b|\bpure (?:calculation|computation|function)\b|\bonly (?:calculates|computes)\b/i;
/** A name that hands the conversation over: `transfer_to_human_agents`, `front_desk_handoff`, `escalate_to_account_manager`. */
const HANDOFF_NAME =
  /(^|_)(hand_?off|hand_over)(_|$)|^(transfer|escalate|connect|route|handoff|hand)_(\w+_)?to_(\w+_)?(human|agent|person|representative|rep|operator|staff|support|manager|supervisor|specialist|pharmacist|nurse|doctor|adjuster|team|colleague|advisor|adviser|expert|live)s?(_|$)/;
/** A description that hands the conversation over: "Hand the conversation to a licensed pharmacist". */
const HANDOFF_TEXT =
  /\b(?:hand(?:s|ing)?|pass(?:es|ing)?|transfer(?:s|ring)?|escalat(?:e|es|ing)|rout(?:e|es|ing)|connect(?:s|ing)?)\b(?: (?:the|this|a|an))? ?(?<object>conversation|call|chat|customer|user|caller|guest|patient|member|client|traveller|traveler|policyholder|person|them|it)?(?<over> over| off)? to (?:a |an |the |our |your )?(?:[\w-]+ ){0,3}?(?:human|person|agent|pharmacist|nurse|doctor|clinician|adjuster|specialist|manager|supervisor|representative|colleague|team|staff|advisor|adviser|expert|operator)s?\b/i;

/** Whether a tool serves the agent alone or hands the conversation over, read from its name and description. */
function roleOf(
  name: string,
  description: string,
  params: string[],
): Pick<ToolDefinition, "role" | "role_source"> {
  const snakeName = nameWords(name).join("_");
  const touchesRecords = params.some((p) => RECORD_PARAM.test(nameWords(p).join("_")));
  if (HANDOFF_NAME.test(snakeName)) return { role: "handoff", role_source: "name" };
  if (!touchesRecords && UTILITY_NAMES.test(snakeName))
    return { role: "utility", role_source: "name" };
  const handsOver = HANDOFF_TEXT.exec(description);
  // The one handed over must be the conversation or the person, not money or a prescription.
  if (handsOver?.groups?.object !== undefined || handsOver?.groups?.over !== undefined)
    return { role: "handoff", role_source: "description" };
  if (!touchesRecords && TOUCHES_NOTHING.test(description))
    return { role: "utility", role_source: "description" };
  return { role: "normal", role_source: "default" };
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
