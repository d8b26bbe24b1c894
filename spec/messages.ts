import { z } from "zod";

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

/** Sampling facts a policy turn can carry for off-policy corrections (filled when logprobs are asked for). */
export const TurnLogprobsSchema = z.object({
  logprob: z.number(),
  n_tokens: z.int().min(0),
  token_logprobs: z.array(z.number()).optional(),
  policy_version: z.string().optional(),
  sampling: z.record(z.string(), z.unknown()).optional(),
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
