import { z } from "zod";
import { isPlainObject, keysWithin } from "./plain.ts";

/** A tool call as an assistant message carries it (OpenAI chat format; arguments are a JSON string). */
export const ToolCallSchema = z.object({
  id: z.string().min(1, "expected the tool call's id"),
  type: z.literal("function"),
  function: z.object({
    name: z.string().min(1, "expected the name of the tool to call"),
    arguments: z.string({ error: "expected the arguments as a JSON string" }),
  }),
});
export type ToolCall = z.infer<typeof ToolCallSchema>;

export const SystemMessageSchema = z.object({ role: z.literal("system"), content: z.string() });
export const UserMessageSchema = z.object({ role: z.literal("user"), content: z.string() });

/** Deepest a turn's `sampling` settings may nest: the object itself is level 1. */
export const SAMPLING_MAX_DEPTH = 8;
/** Most bytes a turn's `sampling` settings may take as JSON. */
export const SAMPLING_MAX_BYTES = 16 * 1024;

/** Whether a value nests objects or arrays more than `levels` deep (a cycle always does). */
function deeperThan(value: unknown, levels: number): boolean {
  if (value === null || typeof value !== "object") return false;
  if (levels === 0) return true;
  return Object.values(value).some((v) => deeperThan(v, levels - 1));
}

/**
 * The sampling settings of a turn: small and shallow, because every copy of the conversation
 * (each observation, the row) clones them, and a deep one breaks `structuredClone` later.
 */
const SamplingSchema = z.record(z.string(), z.unknown()).superRefine((sampling, ctx) => {
  if (deeperThan(sampling, SAMPLING_MAX_DEPTH)) {
    ctx.addIssue({
      code: "custom",
      message: `expected settings nested at most ${SAMPLING_MAX_DEPTH} levels deep`,
    });
    return;
  }
  let json: string;
  try {
    json = JSON.stringify(sampling);
  } catch (error) {
    ctx.addIssue({ code: "custom", message: `expected JSON values: ${(error as Error).message}` });
    return;
  }
  const bytes = new TextEncoder().encode(json).length;
  if (bytes > SAMPLING_MAX_BYTES)
    ctx.addIssue({
      code: "custom",
      message: `expected at most ${SAMPLING_MAX_BYTES} bytes of JSON, got ${bytes}`,
    });
});

/** Sampling facts a policy turn can carry for off-policy corrections (filled when logprobs are asked for). */
export const TurnLogprobsSchema = z.object({
  logprob: z.number(),
  n_tokens: z.int().min(0),
  token_logprobs: z.array(z.number()).optional(),
  policy_version: z.string().optional(),
  sampling: SamplingSchema.optional(),
});

/** What the agent says: text, tool calls, or both. */
export const AssistantMessageSchema = z
  .object({
    role: z.literal("assistant"),
    content: z.string().nullable().optional(),
    tool_calls: z.array(ToolCallSchema).optional(),
  })
  .extend(TurnLogprobsSchema.partial().shape)
  .refine((m) => (m.content ?? "").length > 0 || (m.tool_calls ?? []).length > 0, {
    message: "expected text content or at least one tool call",
  });
export type AssistantMessage = z.infer<typeof AssistantMessageSchema>;

const MESSAGE_KEYS = new Set(["role", "content", "tool_calls"]);
const CALL_KEYS = new Set(["id", "type", "function"]);
const FUNCTION_KEYS = new Set(["name", "arguments"]);

/** A tool call exactly as {@link ToolCallSchema} returns it, or null when it is anything else. */
function plainToolCall(value: unknown): ToolCall | null {
  if (!isPlainObject(value) || !keysWithin(value, CALL_KEYS)) return null;
  const { id, type, function: called } = value;
  if (typeof id !== "string" || id.length === 0 || type !== "function") return null;
  if (!isPlainObject(called) || !keysWithin(called, FUNCTION_KEYS)) return null;
  const { name, arguments: args } = called;
  if (typeof name !== "string" || name.length === 0 || typeof args !== "string") return null;
  return { id, type, function: { name, arguments: args } };
}

/**
 * The usual assistant message (its role, text and tool calls, nothing else) read without zod: the
 * object `AssistantMessageSchema.parse` returns for it, or null for any other value, which the
 * schema then reads and says what is wrong with. A live server reads one on every step, where the
 * schema's general machinery cost a sixth of the CPU a step took.
 */
export function plainAssistantMessage(value: unknown): AssistantMessage | null {
  if (!isPlainObject(value) || !keysWithin(value, MESSAGE_KEYS) || value.role !== "assistant")
    return null;
  const message: AssistantMessage = { role: "assistant" };
  if ("content" in value) {
    const { content } = value;
    if (typeof content !== "string" && content !== null) return null;
    message.content = content;
  }
  if ("tool_calls" in value) {
    const listed = value.tool_calls;
    if (!Array.isArray(listed)) return null;
    const calls: ToolCall[] = [];
    for (let i = 0; i < listed.length; i++) {
      const call = plainToolCall(listed[i]);
      if (call === null) return null;
      calls.push(call);
    }
    message.tool_calls = calls;
  }
  return (message.content ?? "").length > 0 || (message.tool_calls ?? []).length > 0
    ? message
    : null;
}

/** An assistant message checked by {@link AssistantMessageSchema}: the usual one at once, any other by the schema. */
export function parseAssistantMessage(
  value: unknown,
): ReturnType<typeof AssistantMessageSchema.safeParse> {
  const plain = plainAssistantMessage(value);
  return plain === null ? AssistantMessageSchema.safeParse(value) : { success: true, data: plain };
}

/** A tool's answer, as the agent sees it. */
export const ToolMessageSchema = z.object({
  role: z.literal("tool"),
  tool_call_id: z.string(),
  name: z.string(),
  content: z.string(),
});

/** Any message of a conversation. */
export const ChatMessageSchema = z.union([
  SystemMessageSchema,
  UserMessageSchema,
  AssistantMessageSchema,
  ToolMessageSchema,
]);
export type ChatMessage = z.infer<typeof ChatMessageSchema>;
export type UserMessage = z.infer<typeof UserMessageSchema>;
export type ToolMessage = z.infer<typeof ToolMessageSchema>;
