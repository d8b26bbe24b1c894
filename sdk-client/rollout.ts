import type { z } from "zod";
import {
  type AssistantMessage,
  AssistantMessageSchema,
  type ChatMessage,
  type ObservationData,
  type ResetRequest,
  type RewardReport,
  type RowToolSchema,
} from "../spec/index.ts";
import type { EnvClient } from "./client.ts";

/** A tool as the episode offers it (OpenAI function format). */
type RowTool = z.infer<typeof RowToolSchema>;

/** What a policy sees: the conversation so far (the agent's own turns included) and the tools. */
export interface PolicyInput {
  conversation: readonly ChatMessage[];
  tools: readonly RowTool[];
  /** The last result: the new messages, the turn, and the episode's metadata. */
  last: ObservationData;
}

/** The agent under training: any function from the conversation to the next assistant message. */
export type Policy = (input: PolicyInput) => AssistantMessage | Promise<AssistantMessage>;

/** What one episode left: the whole conversation, the last result, the full grade and the steps taken. */
export interface ClientRolloutResult {
  conversation: ChatMessage[];
  last: ObservationData;
  reward: RewardReport;
  steps: number;
}

/**
 * Runs one episode on the server with a policy: reset, then the policy answers each observation
 * until the episode is done; returns the conversation and the full grade.
 *
 * @example
 * const { reward, conversation } = await rollout(client, chatModel({ baseUrl, model: "qwen3-8b" }), { split: "train" });
 */
export async function rollout(
  client: EnvClient,
  policy: Policy,
  request: ResetRequest = {},
): Promise<ClientRolloutResult> {
  let last = await client.reset(request);
  const tools = last.observation.tools ?? [];
  const conversation: ChatMessage[] = [...last.observation.messages];
  let steps = 0;
  while (!last.done) {
    const message = await policy({ conversation, tools, last });
    last = await client.step(message);
    steps++;
    conversation.push(message, ...last.observation.messages);
  }
  return { conversation, last, reward: await client.reward(), steps };
}

/** An OpenAI-compatible chat model as a policy. */
export interface ChatModelOptions {
  /** The API's base URL, e.g. `http://localhost:8001/v1` (vLLM, SGLang, Ollama, OpenAI). */
  baseUrl: string;
  model: string;
  apiKey?: string;
  temperature?: number;
  maxTokens?: number;
  /** Milliseconds one completion may take (default 120,000). */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

/** The most bytes a completion may take: a larger one is refused, before it could take the process down. */
const MAX_COMPLETION_BYTES = 64 << 20;

/**
 * A policy that asks an OpenAI-compatible `/chat/completions` endpoint for each turn, with the
 * episode's tools. Tool-call ids the model reuses from earlier turns (servers that number calls
 * `call_1` every turn) are replaced by fresh ones, since the episode pairs answers with calls by id.
 * A reply over 64 MiB is refused unread, and the API key is blanked out of what an error quotes.
 */
export function chatModel(options: ChatModelOptions): Policy {
  const send = options.fetch ?? fetch;
  const url = `${options.baseUrl.replace(/\/+$/, "")}/chat/completions`;
  return async ({ conversation, tools }) => {
    const response = await send(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
      },
      body: JSON.stringify({
        model: options.model,
        messages: conversation.map(forApi),
        ...(tools.length > 0 ? { tools } : {}),
        ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
        ...(options.maxTokens !== undefined ? { max_tokens: options.maxTokens } : {}),
      }),
      signal: AbortSignal.timeout(options.timeoutMs ?? 120_000),
    });
    const text = await textOf(response, options.model);
    if (!response.ok) {
      const said = text.slice(0, 300);
      throw new Error(
        `${options.model}: HTTP ${response.status} from ${url}: ${options.apiKey ? said.replaceAll(options.apiKey, "[redacted]") : said}`,
      );
    }
    let body: { choices?: { message?: Record<string, unknown> }[] };
    try {
      body = JSON.parse(text);
    } catch {
      throw new Error(`${options.model}: expected a JSON completion, got ${text.slice(0, 120)}`);
    }
    const reply = body.choices?.[0]?.message;
    if (!reply) throw new Error(`${options.model}: the completion holds no message`);
    return withFreshIds(assistantOf(reply, options.model), conversation);
  };
}

/** A completion's text, decoded as it comes, refused once it passes {@link MAX_COMPLETION_BYTES}. */
async function textOf(response: Response, model: string): Promise<string> {
  if (!response.body) return "";
  const decoder = new TextDecoder();
  let text = "";
  let bytes = 0;
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.byteLength;
    if (bytes > MAX_COMPLETION_BYTES)
      throw new Error(
        `${model}: the completion is over ${MAX_COMPLETION_BYTES} bytes: refused unread`,
      );
    text += decoder.decode(chunk, { stream: true });
  }
  return text + decoder.decode();
}

/** A message as the chat API takes it: only the fields every OpenAI-compatible server knows. */
function forApi(message: ChatMessage): Record<string, unknown> {
  if (message.role === "tool")
    return { role: "tool", tool_call_id: message.tool_call_id, content: message.content };
  if (message.role === "assistant")
    return {
      role: "assistant",
      content: message.content ?? null,
      ...(message.tool_calls?.length ? { tool_calls: message.tool_calls } : {}),
    };
  return { role: message.role, content: message.content };
}

/** The model's reply as an assistant message, checked by the contract. */
function assistantOf(reply: Record<string, unknown>, model: string): AssistantMessage {
  const calls = Array.isArray(reply.tool_calls) ? reply.tool_calls : [];
  // Taken as the model wrote it: a reply that is not an assistant message is refused, never mended.
  const parsed = AssistantMessageSchema.safeParse({
    role: "assistant",
    content: reply.content ?? null,
    ...(calls.length > 0
      ? {
          tool_calls: calls.map((call: { id?: string; function?: Record<string, unknown> }) => ({
            id: call.id,
            type: "function",
            function: { name: call.function?.name, arguments: call.function?.arguments },
          })),
        }
      : {}),
  });
  if (!parsed.success)
    throw new Error(
      `${model}: the reply is not an assistant message: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`,
    );
  return parsed.data;
}

/** The message with each tool-call id already used in the conversation (or twice in it) replaced. */
function withFreshIds(
  message: AssistantMessage,
  conversation: readonly ChatMessage[],
): AssistantMessage {
  if (!message.tool_calls) return message;
  const used = new Set<string>();
  for (const m of conversation)
    if (m.role === "assistant") for (const call of m.tool_calls ?? []) used.add(call.id);
  let n = used.size;
  const tool_calls = message.tool_calls.map((call) => {
    if (!used.has(call.id)) {
      used.add(call.id);
      return call;
    }
    let id: string;
    do id = `call_${++n}`;
    while (used.has(id));
    used.add(id);
    return { ...call, id };
  });
  return { ...message, tool_calls };
}
